#!/usr/bin/env bash
# The interleaved block sweep, engines interleaved: colio, the library's MPI-IO, posix and the transposition
# (alltoallv), 2 ranks bound,
# /dev/shm, default hints, medians of 7. JSON and text into OUT; table: docs/data/standing-2026-11-27/sweep.py.
# usage: sweep.sh OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${1:?a folder}; mkdir -p "$out"
args="--workload interleaved --block 64,256,1024,4096,65536,1048576,4194304 --size medium --engine colio,mpiio,posix,alltoallv
      --op write,read --repeat 7 --interleave"
mpiexec.mpich -n 2 -bind-to core build/mpich/bench/colio-bench $args --json "$out/sweep-mpich.json" > "$out/sweep-mpich.txt"
mpiexec.openmpi -n 2 --bind-to core build/openmpi/bench/colio-bench $args --json "$out/sweep-openmpi.json" > "$out/sweep-openmpi.txt"
