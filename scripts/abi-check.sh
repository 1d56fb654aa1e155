#!/usr/bin/env bash
# MPICH 5's MPI standard ABI (libmpi_abi.so, programs built with mpicc_abi):
# colio built with mpicc_abi (build/mpich5-abi) runs such a program through
# its libcolio_mpiio; the libcolio_mpiio built for libmpi.so (build/mpich5,
# made by the test loop before this) refuses it at its first file call with
# a message naming the build to use, instead of misreading its handles.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/build.sh mpich5-abi -DCOLIO_BUILD_TESTS=OFF >/dev/null
colio_mpi_env mpich5-abi
dir=$(mktemp -d /dev/shm/colio-abi.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$COLIO_MPICC" -Wno-stringop-overflow -Itests/clients tests/clients/mpiio_basic.c -o "$dir/basic_abi"
"$COLIO_MPIEXEC" -n 2 env LD_PRELOAD="$PWD/build/mpich5-abi/libcolio_mpiio.so" COLIO_HINTS="colio_stats=$dir/stats.jsonl" \
  "$dir/basic_abi" "$dir/abi.dat" >/dev/null
[ -s "$dir/stats.jsonl" ] || { echo "abi check: the standard-ABI program's calls did not go through colio" >&2; exit 1; }
if "$COLIO_MPIEXEC" -n 1 env LD_PRELOAD="$PWD/build/mpich5/libcolio_mpiio.so" "$dir/basic_abi" "$dir/x.dat" >"$dir/out" 2>&1 ||
  ! grep -q "built for its MPI library's own ABI" "$dir/out"; then
  cat "$dir/out" >&2
  echo "abi check: the libmpi.so build of libcolio_mpiio did not refuse a standard-ABI program with its message" >&2
  exit 1
fi
echo "abi check: a program built with mpicc_abi runs through build/mpich5-abi's libcolio_mpiio (colio took its" \
     "calls); build/mpich5's refuses it with a message"
