#!/bin/bash
# At 16 ranks: smaller two-phase rounds (more of them per aggregator, so pipelined writes start sooner) beside the default
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
ENG=colio,colio:colio_round_size=256k,colio:colio_round_size=512k,alltoallv
t 40 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --op write --repeat 9 --quiet --json $out/f.json
t 40 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine $ENG --op write --steps 5 --repeat 9 --quiet --json $out/g.json
t 60 $run mpich 16 colio-bench --workload interleaved --block 64,4096 --size medium --engine $ENG --op write --repeat 7 --quiet --json $out/il.json
t 40 $run openmpi 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --op write --repeat 9 --quiet --json $out/fo.json
echo "### done $(date +%T)"
