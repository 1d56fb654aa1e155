#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer pass over the test suite
# (MPICH, without the multi-GiB test). MPI libraries leak a few objects at
# exit from their own plug-ins, so leak reports fail the run only when a
# stack names colio code.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scripts/build.sh asan -DCOLIO_MPI=mpich -DCOLIO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# The suite, less the multi-GiB test, the per-kernel and per-placement
# matrices (once each below), the matrix through the nonblocking calls and
# with colio_pipeline=1 (test_nonblocking and the default colio_pipeline=2
# cover that code here), the 4-rank benchmark smoke test, the 3-4 rank client runs and the runs
# across emulated nodes (the plain builds run those under every MPI library).
ASAN_OPTIONS=detect_leaks=0 ctest --test-dir build/asan --output-on-failure --parallel "$(nproc)" \
  -LE 'large|kernels|placement|pipeline|nbmatrix|submatrix|cluster' -E 'bench_smoke.np4|client\..*\.np[34]'
# every exchange kernel once under the sanitizers (the full matrix per kernel runs in the plain builds)
for k in issend spread balanced pairwise tam rma; do
  COLIO_HINTS="colio_exchange=$k;colio_meta_exchange=$k;colio_throttle=1;colio_node_size=2;romio_cb_write=enable;romio_cb_read=enable" \
    ASAN_OPTIONS=detect_leaks=0 mpiexec.mpich -n 2 build/asan/tests/test_lists >/dev/null ||
    { echo "sanitize: test_lists with kernel $k failed"; exit 1; }
done
# every placement strategy once, each file-domain layout in turn (the full matrix runs in the plain builds)
for p in greedy shortest longest topology lap; do
  COLIO_HINTS="colio_placement=$p;colio_node_size=2;colio_topology=torus:dims=4,psets=4,bridges=1;romio_cb_write=enable;romio_cb_read=enable" \
    COLIO_TEST_ROTATE="colio_domain=even,stripe,block" ASAN_OPTIONS=detect_leaks=0 mpiexec.mpich -n 3 build/asan/tests/test_lists >/dev/null ||
    { echo "sanitize: test_lists with placement $p failed"; exit 1; }
done
# the matrix on subfiled files once (test_subfile itself runs above)
COLIO_HINTS="colio_subfiles=3;colio_subfile_stripe=97;romio_cb_write=enable;romio_cb_read=enable" COLIO_TEST_SUBFILING=1 \
  ASAN_OPTIONS=detect_leaks=0 mpiexec.mpich -n 3 build/asan/tests/test_lists >/dev/null ||
  { echo "sanitize: test_lists on subfiled files failed"; exit 1; }
log=$(mktemp)
for t in test_views test_lists test_errors test_semantics test_plans test_rma test_placement test_subfile test_stage test_mix_random; do
  args=()
  [ "$t" = test_subfile ] && args=(build/asan/tools/colio-subfile)
  ASAN_OPTIONS=detect_leaks=1:exitcode=0 mpiexec.mpich -n 2 "build/asan/tests/$t" "${args[@]}" >"$log" 2>&1 || true
  if grep -A30 "leak of" "$log" | grep -qE " in colio_|$PWD/(src|tests)/"; then
    grep -A30 'leak of' "$log" | head -60
    echo "sanitize: $t leaks memory allocated by colio"; exit 1
  fi
done
rm -f "$log"
echo "sanitize: no memory errors, no undefined behaviour, no leaks from colio"
