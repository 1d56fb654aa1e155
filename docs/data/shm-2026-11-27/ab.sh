#!/usr/bin/env bash
# Agreements through node-shared slots (colio_agreements=shm, the default)
# against colio's point-to-point schedules (p2p), in turn, same binaries:
# call-cost at 2 ranks bound to cores, files in /dev/shm, 64 B and 4 KiB
# calls, through the API (colio row) and through the interposer (mpiio row
# under LD_PRELOAD=libcolio_mpiio.so). Run from the repository root after
# scripts/build.sh mpich and openmpi. Output: one line per run in ab.txt.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=docs/data/shm-2026-11-27/ab.txt
: > "$out"
run() { # mpi agreements bytes preload
  local mpi=$1 a=$2 b=$3 pre=$4 env=(env COLIO_HINTS="colio_agreements=$a")
  [ "$pre" = 1 ] && env+=(LD_PRELOAD=$PWD/build/$mpi/libcolio_mpiio.so)
  if [ "$mpi" = mpich ]; then
    mpiexec.mpich -n 2 -bind-to core "${env[@]}" build/mpich/tools/call-cost /dev/shm/cc.dat "$b" 20000 5
  else
    mpiexec.openmpi -n 2 --bind-to core "${env[@]}" build/openmpi/tools/call-cost /dev/shm/cc.dat "$b" 20000 5
  fi | awk -v m="$mpi" -v a="$a" -v b="$b" -v p="$pre" '/write_at_all/ {printf "%s %s %s preload=%s %s w %s r %s\n", m, a, b, p, $1, $3, $5}' >> "$out"
}
for round in 1 2 3 4 5 6; do
  for mpi in mpich openmpi; do
    for b in 64 4096; do
      for a in p2p shm; do run $mpi $a $b 0; done
    done
    for a in p2p shm; do run $mpi $a 64 1; done
  done
done
