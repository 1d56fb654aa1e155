#!/usr/bin/env bash
# Packing against derived datatypes at the aggregators (colio_typed_min: the default 1 GiB packs always,
# 2048 was the default before): two-phase writes and reads of interleaved 2-64 KiB blocks (collective
# buffering forced, so every block size runs two-phase) and the default path on interleaved 4 KiB and
# lattice; 2 ranks bound, /dev/shm, engines interleaved, medians of 9, --steps 4. JSON and text into OUT.
# usage: ab.sh OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
source "$(dirname "$0")/../launch.sh" # launch MPI ARGS...
out=${1:?a folder}; mkdir -p "$out"
cb="romio_cb_write=enable+romio_cb_read=enable"
for mpi in mpich openmpi; do
  bench=build/$mpi/bench/colio-bench
  launch $mpi $bench --workload interleaved --block 2048,4096,8192,16384,65536 --size medium --steps 4 --repeat 9 \
    --interleave --engine colio:$cb,colio:$cb+colio_typed_min=2048 --json "$out/forced-$mpi.json" > "$out/forced-$mpi.txt"
  launch $mpi $bench --workload interleaved,lattice --block 4096 --size medium --steps 4 --repeat 9 \
    --interleave --engine colio,colio:colio_typed_min=2048,alltoallv --json "$out/default-$mpi.json" > "$out/default-$mpi.txt"
done
