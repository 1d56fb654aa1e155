#!/bin/bash
# colio at 4-16 real ranks, colio beside the MPI library's MPI-IO (issue 23's 16-rank cells).
# usage (project root, after ../shared/tools/device16/pack.sh): bash survey.sh OUTDIR [RUNNER]
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
E3=bench/data/e3sm; D=/dev/shm
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread' ; free -g | head -2
for m in mpich openmpi; do
  for n in ${NPS:-4 16}; do t 60 $run $m $n call-cost $D/cc.dat 64 10000 3; done
  t 60 $run $m ${BIG:-16} call-cost $D/cc.dat 4096 4000 3
  t 90 $run $m ${BIG:-16} colio-bench --workload ior --block 64,4096 --size small --engine colio,mpiio,posix --repeat 3 --quiet --json $out/ior-$m.json
  t 90 $run $m ${BIG:-16} colio-bench --workload interleaved --block 64,4096,1048576 --size medium --engine colio,mpiio,posix,alltoallv --repeat 5 --quiet --json $out/sweep-$m.json
  t 120 $run $m ${BIG:-16} colio-bench --size medium --engine colio,mpiio,alltoallv --repeat 5 --steps 4 --quiet --json $out/all-$m.json
  t 60 $run $m ${BIG:-16} colio-bench --workload e3sm --decomp $E3/map_g_case_16p.nc --header $E3/g_case_hist.txt --engine colio,mpiio,alltoallv --steps 5 --repeat 9 --quiet --json $out/g-$m.json
  t 90 $run $m ${BIG:-16} colio-bench --workload e3sm --decomp $E3/map_f_case_16p.nc --header $E3/f_case_h0.txt --engine colio,mpiio,alltoallv --repeat 5 --quiet --json $out/f-$m.json
done
# the drop-in: colio under the unmodified benchmark's MPI-IO engine
export PRELOAD=1; t 90 $run mpich ${BIG:-16} colio-bench --workload ior --block 64,4096 --size small --engine mpiio --repeat 3 --quiet --json $out/ior-preload-mpich.json
echo "### done $(date +%T)"
