#!/usr/bin/env bash
# The main job: set up, build against MPICH and Open MPI, and run the same
# verified noncontiguous collective write and read through colio and through
# each MPI library's own MPI-IO (ROMIO, OMPIO) on 2 ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
for mpi in mpich openmpi; do
  scripts/build.sh "$mpi"
done
echo
mpiexec.mpich -n 2 build/mpich/bench/colio-demo "$@"
echo
mpiexec.openmpi -n 2 build/openmpi/bench/colio-demo "$@"
