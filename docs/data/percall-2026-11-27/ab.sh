#!/usr/bin/env bash
# The tenth session's per-call work against its start, in turn, same machine:
# BASE is a worktree of 6e43581 (this session's first commit's parent) with
# this session's tools/call_cost.c, built by scripts/build.sh mpich and
# openmpi; NEW is this tree. call-cost at 2 ranks bound to cores, files in
# /dev/shm, 64 B and 4 KiB calls: colio through its API (colio row, with
# the library's own MPI-IO, pwrite + MPI_Allreduce and plain pwrite beside
# it) and through the interposer (mpiio row under LD_PRELOAD).
# BASE may be any built worktree (the fifteenth session compared 1a411ef,
# docs/data/express-2026-11-28/ab.txt).
# usage: BASE=/tmp/basewt ab.sh ROUNDS [OUT]   (from the repository root)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
base=${BASE:?a worktree of 6e43581, built}; rounds=${1:-6}
out=${2:-docs/data/percall-2026-11-27/ab.txt}
: > "$out"
run() { # tree mpi bytes preload
  local tree=$1 mpi=$2 b=$3 pre=$4 env=(env) eng=colio,mpiio,agreed,posix
  [ "$pre" = 1 ] && env+=(LD_PRELOAD=$tree/build/$mpi/libcolio_mpiio.so) && eng=mpiio
  if [ "$mpi" = mpich ]; then
    mpiexec.mpich -n 2 -bind-to core "${env[@]}" "$tree/build/mpich/tools/call-cost" /dev/shm/cc.dat "$b" 20000 5 "$eng"
  else
    mpiexec.openmpi -n 2 --bind-to core "${env[@]}" "$tree/build/openmpi/tools/call-cost" /dev/shm/cc.dat "$b" 20000 5 "$eng"
  fi | awk -v t="$5" -v m="$mpi" -v b="$b" -v p="$pre" '/write_at_all/ {printf "%s %s %s preload=%s %s w %s r %s\n", t, m, b, p, $1, $3, $5}' >> "$out"
}
for round in $(seq "$rounds"); do
  for mpi in mpich openmpi; do
    for b in 64 4096; do
      for pre in 0 1; do
        run "$base" $mpi $b $pre base
        run "$PWD" $mpi $b $pre new
      done
    done
  done
done
