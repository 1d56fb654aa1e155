#!/usr/bin/env bash
# colio-bench with express calls on and off (colio_express) beside the library's MPI-IO, 2 ranks bound,
# /dev/shm: IOR's segmented pattern (64 B and 4 KiB calls, through the API and the interposer) and every
# workload at medium size (--steps 4). JSON and text into OUT (a folder).
# usage: bench.sh OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
source "$(dirname "$0")/../launch.sh" # launch MPI ARGS...
out=${1:?a folder}; mkdir -p "$out"
for mpi in mpich openmpi; do
  bench=build/$mpi/bench/colio-bench pre=$PWD/build/$mpi/libcolio_mpiio.so
  launch $mpi $bench --workload ior --block 64,4096 --size medium --op write,read --repeat 5 \
    --engine colio,colio:colio_express=false,mpiio --json "$out/ior-$mpi.json" > "$out/ior-$mpi.txt"
  for x in true false; do
    launch $mpi env LD_PRELOAD=$pre COLIO_HINTS=colio_express=$x $bench --workload ior --block 64,4096 --size medium \
      --op write,read --repeat 5 --engine mpiio --json "$out/ior-$mpi-interposer-$x.json" > "$out/ior-$mpi-interposer-$x.txt"
  done
  launch $mpi $bench --workload all --size medium --steps 4 --repeat 9 \
    --engine colio,colio:colio_express=false,mpiio --json "$out/medium-$mpi.json" > "$out/medium-$mpi.txt"
done
