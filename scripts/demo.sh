#!/usr/bin/env bash
# The main job: set up, build against MPICH and Open MPI, and run colio-bench's
# quick suite (every workload at small size, colio against the MPI library's
# own MPI-IO -- ROMIO in MPICH, OMPIO in Open MPI -- write and read, 2 ranks,
# every byte verified), then draw the figures. Results: results/quick-*.json
# and results/quick-*.png. Extra arguments go to colio-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
for mpi in mpich openmpi; do
  scripts/build.sh "$mpi"
done
mkdir -p results
data=bench/data/e3sm
dir=/dev/shm
[ -d "$dir" ] || dir=/tmp
for mpi in mpich openmpi; do
  echo
  mpiexec."$mpi" -n 2 "build/$mpi/bench/colio-bench" --quick --dir "$dir" \
    --decomp "$data/map_f_case_16p.nc" --header "$data/f_case_h0.txt" --json "results/quick-$mpi.json" "$@"
done
echo
echo "figures:"
tools/colio-bench-plot results/quick-mpich.json results/quick-openmpi.json --out results --prefix quick
