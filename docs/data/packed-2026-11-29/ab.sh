#!/usr/bin/env bash
# Two builds of colio in turn on the E3SM F map: colio and the alltoallv transposition, engines interleaved,
# 2 ranks bound, /dev/shm, default hints, 9 repeats a run, three runs of each build per MPI library.
# usage: ab.sh OLD_TREE NEW_TREE OUT   (each tree built with scripts/build.sh mpich and openmpi)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../launch.sh"
old=${1:?old tree} new=${2:?new tree} out=${3:?a folder}; mkdir -p "$out"
d=$here/../../../bench/data/e3sm
for mpi in mpich openmpi; do
  for i in 1 2 3; do
    for tree in "$old" "$new"; do
      tag=$([ "$tree" = "$old" ] && echo old || echo new)
      launch $mpi "$tree/build/$mpi/bench/colio-bench" --workload e3sm --decomp $d/map_f_case_16p.nc \
        --header $d/f_case_h0.txt --engine colio,alltoallv --op write,read --repeat 9 --interleave --dir /dev/shm \
        --json "$out/f-$mpi-$tag-$i.json" > /dev/null
    done
  done
done
python3 "$here/ab.py" "$out"
