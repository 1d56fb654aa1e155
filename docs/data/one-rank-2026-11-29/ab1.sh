#!/usr/bin/env bash
# One rank, build against build, in turn: call-cost's 64-byte calls (/dev/shm, default hints, core bound) through
# colio's API beside the MPI library's MPI-IO and one pwrite/pread per call, under MPICH and Open MPI, for each
# tree given (each built with scripts/build.sh mpich and openmpi), ROUNDS times.
# Lines: round tree mpi engine w <us> r <us>.
# usage: ab1.sh ROUNDS OUT TREE...
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rounds=$1 out=$2; shift 2
: > "$out"
for k in $(seq "$rounds"); do
  for t in "$@"; do
    for mpi in mpich openmpi; do
      launch=(mpiexec.openmpi -n 1 --bind-to core)
      [ "$mpi" = mpich ] && launch=(mpiexec.mpich -n 1 -bind-to core)
      (cd "$t" && "${launch[@]}" build/$mpi/tools/call-cost /dev/shm/cc1.dat 64 20000 5 colio,mpiio,posix) |
        awk -v k="$k" -v t="$t" -v m="$mpi" '/write_at_all/ {print k, t, m, $1, "w", $3, "r", $5}' >> "$out"
    done
  done
done
