#!/bin/bash
# aggregators on one node of 16 cores: the default then (2) beside 4, 8, 16 and the transposition
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
ENG=colio,colio:cb_nodes=4,colio:cb_nodes=8,colio:cb_nodes=16,alltoallv
N=${BIG:-16}
t 60 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --repeat 5 --quiet --json $out/f16.json
t 60 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine $ENG --steps 5 --repeat 9 --quiet --json $out/g16.json
t 90 $run mpich $N colio-bench --workload interleaved --block 64,4096 --size medium --engine $ENG --repeat 5 --quiet --json $out/il16.json
t 90 $run mpich $N colio-bench --workload lattice,e3sm,cube,btio --size medium --engine $ENG --repeat 5 --steps 2 --quiet --json $out/w16.json
t 60 $run openmpi $N colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --repeat 5 --quiet --json $out/f16o.json
t 60 $run mpich 8 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine colio,colio:cb_nodes=4,colio:cb_nodes=8,alltoallv --repeat 5 --quiet --json $out/f8.json
t 60 $run mpich 8 colio-bench --workload interleaved --block 64,4096 --size medium --engine colio,colio:cb_nodes=4,colio:cb_nodes=8,alltoallv --repeat 5 --quiet --json $out/il8.json
echo "### done $(date +%T)"
