#!/usr/bin/env bash
# Express calls on and off (colio_express=true/false, the same build) in turn:
# call-cost at 2 ranks bound to cores, files in /dev/shm, 64 B and 4 KiB
# calls, through colio's API (colio row, beside the library's own MPI-IO and
# pwrite + MPI_Allreduce in the same run) and through the interposer (mpiio
# row under LD_PRELOAD=libcolio_mpiio.so).
# Lines: express mpi bytes preload=0|1 engine w <us> r <us>.
# usage: pairs.sh ROUNDS OUT   (from the repository root, after scripts/build.sh mpich and openmpi)
set -u
source "$(dirname "$0")/../launch.sh"
rounds=${1:-6}; out=${2:-pairs.txt}
: > "$out"
run() { # mpi bytes preload express
  local mpi=$1 b=$2 pre=$3 x=$4 eng=colio,mpiio,agreed
  [ "$pre" = 1 ] && eng=mpiio
  call_cost "$mpi" "$b" "$pre" "$eng" "colio_express=$x" |
    awk -v t="$x" -v m="$mpi" -v b="$b" -v p="$pre" '/write_at_all/ {printf "%s %s %s preload=%s %s w %s r %s\n", t, m, b, p, $1, $3, $5}' >> "$out"
}
for round in $(seq "$rounds"); do
  for mpi in mpich openmpi; do
    for b in 64 4096; do
      for pre in 0 1; do
        run $mpi $b $pre false
        run $mpi $b $pre true
      done
    done
  done
done
