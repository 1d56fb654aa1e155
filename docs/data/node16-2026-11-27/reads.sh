#!/bin/bash
# reads at 16 ranks: the strategy's choice (direct, sieved) beside forced two-phase and the transposition
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
ENG=colio,colio:romio_cb_read=enable,alltoallv
N=${BIG:-16}
t 30 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --op read --repeat 7 --quiet --json $out/rf.json
t 30 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine $ENG --op read --steps 5 --repeat 9 --quiet --json $out/rg.json
t 40 $run mpich $N colio-bench --workload interleaved --block 64,4096 --size medium --engine $ENG --op read --repeat 7 --quiet --json $out/ril.json
t 60 $run mpich $N colio-bench --workload e3sm,btio,collperf,cube --size medium --engine $ENG --op read --repeat 5 --steps 2 --quiet --json $out/rw.json
echo "### done $(date +%T)"
