#!/bin/bash
# the new default (ceil(sqrt(ranks)) aggregators on one node) beside the old (2), in one run
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
ENG=colio,colio:cb_nodes=2,alltoallv
N=${BIG:-16}
t 40 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG,mpiio --repeat 7 --quiet --json $out/f.json
t 40 $run openmpi $N colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine $ENG --repeat 7 --quiet --json $out/fo.json
t 40 $run mpich $N colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine $ENG,mpiio --steps 5 --repeat 9 --quiet --json $out/g.json
t 60 $run mpich $N colio-bench --workload interleaved --block 64,4096,1048576 --size medium --engine $ENG --repeat 7 --quiet --json $out/il.json
t 90 $run mpich $N colio-bench --workload e3sm,lattice,cube,btio,flash,hacc,collperf,random --size medium --engine $ENG --repeat 5 --steps 2 --quiet --json $out/w.json
echo "### done $(date +%T)"
