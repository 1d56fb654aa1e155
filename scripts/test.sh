#!/usr/bin/env bash
# The whole test suite: set up, then for each MPI library of
# scripts/mpi/versions.sh (Debian's MPICH 4 and Open MPI 4, PyPI's MPICH 5
# and Open MPI 5) build colio, run every test (unit tests and MPI tests at
# 1-4 ranks) and check an installed colio (find_package, pkg-config, the
# preloaded interposer and colio-bench with no LD_LIBRARY_PATH); the MPI
# standard ABI build of MPICH 5; PnetCDF 1.15's own tests, a subset, stock
# and through colio (scripts/pnetcdf-suite.sh); the SMPI build and its simulation smoke
# test; then the suite again under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
start=$SECONDS
for mpi in "${COLIO_MPIS[@]}"; do
  echo "=== colio tests against $mpi"
  t0=$SECONDS
  scripts/build.sh "$mpi"
  trim=(-LE "$COLIO_MATRIX_LABELS")
  [[ " ${COLIO_MPIS_FULL[*]} " == *" $mpi "* ]] && trim=()
  ctest --test-dir "build/$mpi" --output-on-failure --timeout 900 --parallel "$(nproc)" "${trim[@]}"
  scripts/install-check.sh "$mpi"
  echo "=== $mpi: $((SECONDS - t0)) s"
done
echo "=== PnetCDF 1.15's own tests through colio, a subset (the whole suite: scripts/pnetcdf-suite.sh)"
scripts/pnetcdf-suite.sh --subset --out build/pnetcdf-suite
echo "=== MPICH 5's MPI standard ABI (libmpi_abi.so)"
scripts/abi-check.sh
echo "=== SimGrid SMPI build and the simulation smoke test (docs/SCALE.md)"
scripts/build-smpi.sh
ctest --test-dir build/smpi --output-on-failure --timeout 900
echo "=== sanitizers (MPICH)"
scripts/sanitize.sh
echo "=== all tests passed against ${COLIO_MPIS[*]} in $((SECONDS - start)) s"
