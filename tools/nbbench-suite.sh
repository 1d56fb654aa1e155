#!/usr/bin/env bash
# The nonblocking experiments of docs/PERFORMANCE.md ("Nonblocking I/O"):
# colio-nbbench overlap and outstanding, 2 ranks bound to cores, under MPICH
# and Open MPI, on /dev/shm as it is and behind the fault backend with a
# 5 ms sleep per storage call (storage that takes time without the CPU).
# Prints colio-nbbench's lines, each prefixed with its configuration.
# usage: tools/nbbench-suite.sh [repeat]   (from the source tree, after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
repeat=${1:-9}
base="romio_cb_write=enable;romio_cb_read=enable;cb_buffer_size=1048576"
delay=";colio_backend=fault;colio_fault=delay:5000"
run() { # mpi label args...
  local mpi=$1 label=$2; shift 2
  (colio_mpi_env "$mpi"
   "$COLIO_MPIEXEC" $COLIO_MPIEXEC_BIND -n 2 "build/$mpi/bench/colio-nbbench" --repeat "$repeat" "$@") |
    grep -v '^#' | sed "s/^/$mpi $label /"
}
for mpi in mpich openmpi; do
  for st in delay tmpfs; do
    h=$base; [ $st = delay ] && h=$base$delay
    run $mpi "$st thread" --hints "colio_progress=thread;$h" overlap
    run $mpi "$st none+test" --test-calls --slices 1000 --hints "colio_progress=none;$h" overlap
    run $mpi "$st none" --hints "colio_progress=none;$h" overlap
    run $mpi "$st thread" --bytes 2097152 --hints "colio_progress=thread;$h" outstanding
    run $mpi "$st none" --bytes 2097152 --hints "colio_progress=none;$h" outstanding
  done
  run $mpi "tmpfs mpiio+test" --engine mpiio --test-calls --slices 1000 --hints "$base" overlap
  run $mpi "tmpfs mpiio" --engine mpiio --hints "$base" overlap
  run $mpi "tmpfs mpiio" --engine mpiio --bytes 2097152 --hints "$base" outstanding
done
