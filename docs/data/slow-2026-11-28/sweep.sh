#!/usr/bin/env bash
# The interleaved block sweep behind slow storage: every read and write call of every engine sleeps 1 ms first
# (tools/slowfs.c preloaded), engines interleaved, 2 ranks bound, default hints, colio's probe run afresh
# (COLIO_STORAGE_CACHE=none). colio, the transposition (alltoallv) and ROMIO at every block; OMPIO from 64 KiB
# blocks (below that it writes one 1 ms call per piece: 9-36 s a run, see docs/PERFORMANCE.md, 2026-11-26),
# at 4 KiB three repeats. JSON and text into OUT; table: sweep.py OUT.
# usage: sweep.sh OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
here=$(dirname "$0")
source "$here/../launch.sh"
out=${1:?a folder}; mkdir -p "$out" /dev/shm/slow
blocks="64,256,1024,4096,65536,1048576,4194304"
common="--workload interleaved --size medium --op write,read --interleave --dir /dev/shm/slow"
slow() { # mpi, then colio-bench's arguments
  local mpi=$1; shift
  local lib=build/$mpi/tools/libcolio_slowfs.so
  if [ "$mpi" = mpich ]; then
    launch mpich -genv LD_PRELOAD $lib -genv COLIO_SLOWFS_PREFIX /dev/shm/slow/ -genv COLIO_STORAGE_CACHE none \
      build/mpich/bench/colio-bench "$@"
  else
    launch openmpi -x LD_PRELOAD=$lib -x COLIO_SLOWFS_PREFIX=/dev/shm/slow/ -x COLIO_STORAGE_CACHE=none \
      build/openmpi/bench/colio-bench "$@"
  fi
}
slow mpich $common --block $blocks --engine colio,mpiio,alltoallv --repeat 7 --json "$out/mpich.json" > "$out/mpich.txt"
slow openmpi $common --block $blocks --engine colio,alltoallv --repeat 7 --json "$out/openmpi.json" > "$out/openmpi.txt"
slow openmpi $common --block 65536,1048576,4194304 --engine colio,mpiio --repeat 7 --json "$out/openmpi-ompio.json" \
  > "$out/openmpi-ompio.txt"
slow openmpi $common --block 4096 --engine colio,mpiio --repeat 3 --json "$out/openmpi-ompio-4k.json" \
  > "$out/openmpi-ompio-4k.txt"
