#!/usr/bin/env bash
# The standing table with engines interleaved: every workload at medium size, 2 ranks bound, /dev/shm,
# default hints, --steps 4, 15 repeats, each repeat running colio, MPI-IO, posix, alltoallv and the
# ceiling in turn. JSON and text into OUT (a folder); table: python3 docs/data/standing-2026-11-27/table.py.
# usage: run.sh OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${1:?a folder}; mkdir -p "$out"
args="--workload all --size medium --engine colio,mpiio,posix,ceiling,alltoallv --steps 4 --repeat 15 --interleave"
mpiexec.mpich -n 2 -bind-to core build/mpich/bench/colio-bench $args \
  --json "$out/medium-mpich.json" > "$out/medium-mpich.txt"
mpiexec.openmpi -n 2 --bind-to core build/openmpi/bench/colio-bench $args \
  --json "$out/medium-openmpi.json" > "$out/medium-openmpi.txt"
