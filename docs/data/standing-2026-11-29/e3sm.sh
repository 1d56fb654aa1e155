#!/usr/bin/env bash
# The real E3SM maps (F and G cases, 16-rank decompositions read by 2 ranks), engines interleaved: colio,
# the library's MPI-IO and the alltoallv transposition, 2 ranks bound, /dev/shm, default hints.
# F: one call per open file, 9 repeats; G (a few ms a call): --steps 5, 15 repeats. JSON and text into OUT.
# usage: e3sm.sh OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
here=$(dirname "$0")
source "$here/../launch.sh"
out=${1:?a folder}; mkdir -p "$out"
d=bench/data/e3sm
for mpi in mpich openmpi; do
  launch $mpi build/$mpi/bench/colio-bench --workload e3sm --decomp $d/map_f_case_16p.nc --header $d/f_case_h0.txt \
    --engine colio,mpiio,alltoallv --op write,read --repeat 9 --interleave --json "$out/f-$mpi.json" > "$out/f-$mpi.txt"
  launch $mpi build/$mpi/bench/colio-bench --workload e3sm --decomp $d/map_g_case_16p.nc --header $d/g_case_hist.txt \
    --engine colio,mpiio,alltoallv --op write,read --steps 5 --repeat 15 --interleave \
    --json "$out/g-$mpi.json" > "$out/g-$mpi.txt"
done
