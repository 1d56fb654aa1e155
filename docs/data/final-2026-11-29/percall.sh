#!/usr/bin/env bash
# The per-call targets: call-cost at 2 ranks bound, /dev/shm, default hints, 64 B and 4 KiB calls through
# colio's API (colio row, beside the library's MPI-IO, pwrite/pread + MPI_Allreduce and the same with a
# cache line per rank in node-shared memory instead: agreed, slots) and through the interposer (mpiio row
# under LD_PRELOAD=libcolio_mpiio.so), in turn, ROUNDS times. Lines: round mpi bytes preload=0|1 engine w <us> r <us>.
# usage: percall.sh ROUNDS OUT   (from the repository root; medians: percall.py OUT)
set -u
source "$(dirname "$0")/../launch.sh"
rounds=${1:-4}; out=${2:?a file}
: > "$out"
run() { # round mpi bytes preload
  local round=$1 mpi=$2 b=$3 pre=$4 eng=colio,mpiio,agreed,slots
  [ "$pre" = 1 ] && eng=mpiio
  call_cost "$mpi" "$b" "$pre" "$eng" |
    awk -v k="$round" -v m="$mpi" -v b="$b" -v p="$pre" '/write_at_all/ {printf "%s %s %s preload=%s %s w %s r %s\n", k, m, b, p, $1, $3, $5}' >> "$out"
}
for round in $(seq "$rounds"); do
  for mpi in mpich openmpi; do
    for b in 64 4096; do
      run $round $mpi $b 0
      run $round $mpi $b 1
    done
  done
done
