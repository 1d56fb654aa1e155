#!/usr/bin/env bash
# IOR's segmented pattern (colio-bench --workload ior: one collective call per block per rank), 2 ranks
# bound, files in /dev/shm, default hints. Each round, per MPI: colio's API beside the library's MPI-IO
# (engines interleaved), then the same binary with the interposer preloaded (its mpiio engine is colio),
# so API, interposer and library alternate through the VM's phases.
# usage: ior.sh ROUNDS OUT [BLOCKS]   (from the repository root; tables: ior.py OUT)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rounds=${1:-3}; out=${2:?a folder}; blocks=${3:-4096,1048576}
mkdir -p "$out"
bench() { # mpi preload tag engines
  local mpi=$1 pre=$2 tag=$3 eng=$4 env=(env)
  [ "$pre" = 1 ] && env+=(LD_PRELOAD=$PWD/build/$mpi/libcolio_mpiio.so)
  local launch=(mpiexec.openmpi -n 2 --bind-to core)
  [ "$mpi" = mpich ] && launch=(mpiexec.mpich -n 2 -bind-to core)
  "${launch[@]}" "${env[@]}" build/$mpi/bench/colio-bench --workload ior --block "$blocks" --size medium \
      --engine "$eng" --op write,read --repeat 9 --interleave --quiet --json "$out/$tag.json" > "$out/$tag.txt"
}
for r in $(seq "$rounds"); do
  for mpi in mpich openmpi; do
    bench $mpi 0 "$mpi-api-$r" colio,mpiio
    bench $mpi 1 "$mpi-interposer-$r" mpiio
  done
done
