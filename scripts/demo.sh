#!/usr/bin/env bash
# The main job: set up, build against each MPI library of
# scripts/mpi/versions.sh (MPICH and Open MPI, Debian's 4.x and PyPI's 5.0),
# and run colio-bench's quick suite under each (every workload at small size,
# colio against that library's own MPI-IO -- ROMIO in MPICH, OMPIO in Open
# MPI -- write and read, 2 ranks, every byte verified), then draw the
# figures. Results: results/quick-*.json and results/quick-*.png. Extra
# arguments go to colio-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
for mpi in "${COLIO_MPIS[@]}"; do
  scripts/build.sh "$mpi"
done
mkdir -p results
data=bench/data/e3sm
dir=/dev/shm
[ -d "$dir" ] || dir=/tmp
for mpi in "${COLIO_MPIS[@]}"; do
  echo
  (colio_mpi_env "$mpi"
   "$COLIO_MPIEXEC" $COLIO_MPIEXEC_FLAGS -n 2 "build/$mpi/bench/colio-bench" --quick --dir "$dir" \
     --decomp "$data/map_f_case_16p.nc" --header "$data/f_case_h0.txt" --json "results/quick-$mpi.json" "$@")
done
echo
echo "figures:"
files=()
for mpi in "${COLIO_MPIS[@]}"; do files+=("results/quick-$mpi.json"); done
tools/colio-bench-plot "${files[@]}" --out results --prefix quick
