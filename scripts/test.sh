#!/usr/bin/env bash
# The whole test suite: set up, then for MPICH and for Open MPI build colio,
# run every test (unit tests and MPI tests at 1-4 ranks), and check that an
# installed colio is found by CMake (find_package) and by pkg-config; the
# SMPI build and its simulation smoke test; then the suite again under
# AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
start=$SECONDS
for mpi in mpich openmpi; do
  echo "=== colio tests against $mpi"
  scripts/build.sh "$mpi"
  ctest --test-dir "build/$mpi" --output-on-failure --timeout 900 --parallel "$(nproc)"
  scripts/install-check.sh "$mpi"
done
echo "=== SimGrid SMPI build and the simulation smoke test (docs/SCALE.md)"
scripts/build-smpi.sh
ctest --test-dir build/smpi --output-on-failure --timeout 900
echo "=== sanitizers (MPICH)"
scripts/sanitize.sh
echo "=== all tests passed against MPICH and Open MPI in $((SECONDS - start)) s"
