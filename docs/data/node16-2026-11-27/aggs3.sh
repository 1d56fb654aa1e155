#!/bin/bash
# aggregators on one node: 3 (sqrt) at 8 and 12 ranks beside the default then (2) and 4
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
ENG=colio,colio:cb_nodes=3,colio:cb_nodes=4,alltoallv
for N in 8 12; do
t 40 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --op write --repeat 7 --quiet --json $out/f$N.json
t 40 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine $ENG --op write --steps 5 --repeat 9 --quiet --json $out/g$N.json
t 60 $run mpich $N colio-bench --workload interleaved --block 64,4096 --size medium --engine $ENG --op write --repeat 7 --quiet --json $out/il$N.json
t 60 $run mpich $N colio-bench --workload e3sm,lattice --size medium --engine $ENG --op write --repeat 5 --steps 2 --quiet --json $out/w$N.json
done
echo "### done $(date +%T)"
