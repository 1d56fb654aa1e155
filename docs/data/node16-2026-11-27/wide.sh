#!/bin/bash
# the wide set (every rank aggregates writes of small pieces on one node) beside the sqrt count alone (cb_nodes=4 at 16, 3 at 8)
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
ENG="colio,colio:cb_nodes=4,alltoallv"
t 30 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --op write --repeat 7 --quiet --json $out/f.json
t 30 $run openmpi 16 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --op write --repeat 7 --quiet --json $out/fo.json
t 30 $run mpich 16 colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine $ENG --op write --steps 5 --repeat 9 --quiet --json $out/g.json
t 40 $run mpich 16 colio-bench --workload interleaved --block 64,1024,4096,1048576 --size medium --engine $ENG --op write --repeat 7 --quiet --json $out/il.json
t 60 $run mpich 16 colio-bench --workload e3sm,lattice,cube,btio,flash,hacc,collperf,random --size medium --engine $ENG --op write,read --repeat 5 --steps 2 --quiet --json $out/w.json
t 30 $run mpich 8 colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine colio,colio:cb_nodes=3,alltoallv --op write --repeat 7 --quiet --json $out/f8.json
t 30 $run mpich 8 colio-bench --workload interleaved --block 64,4096 --size medium --engine colio,colio:cb_nodes=3,alltoallv --op write --repeat 7 --quiet --json $out/il8.json
echo "### done $(date +%T)"
