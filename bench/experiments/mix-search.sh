#!/usr/bin/env bash
# A search for wrong bytes and disagreeing errors beyond ctest's fixed
# sequence: test_mix_random (tests/mpi/test_mix_random.c) with seeds FIRST..LAST
# (COLIO_TEST_SEED), each under every hint set below at 2-4 ranks in turn,
# under Open MPI (oversubscribed runs are cheap there; MPICH's busy polling
# makes them slow). Prints the failing seed, ranks and hints with the first
# failed checks; a run takes about a second.
# usage: bench/experiments/mix-search.sh FIRST LAST   (after scripts/build.sh openmpi)
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
colio_mpi_env openmpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sets=("" "colio_agreements=p2p" "romio_cb_write=enable;romio_cb_read=enable;cb_buffer_size=4096"
      "romio_cb_write=disable;romio_cb_read=disable" "colio_progress=thread"
      "colio_subfiles=3;colio_subfile_stripe=256" "colio_exchange=tam;colio_node_size=2"
      "colio_pipeline=2;cb_buffer_size=8192" "colio_io_executor=uring" "colio_stage_bytes=4096;cb_nodes=1"
      "colio_progress=thread;colio_node_size=2"
      "colio_progress=thread;colio_node_size=2;colio_subfiles=2;colio_subfile_stripe=97")
failed=0
for seed in $(seq "$1" "$2"); do
  for i in "${!sets[@]}"; do
    h=${sets[$i]}
    np=$((2 + (seed + i) % 3))
    env=(-x COLIO_TEST_SEED="$seed")
    [ -n "$h" ] && env+=(-x COLIO_HINTS="$h")
    [[ "$h" == *subfiles* ]] && env+=(-x COLIO_TEST_SUBFILING=1)
    [[ "$h" == *progress=thread* ]] && env+=(-x COLIO_TEST_THREADS=multiple)
    out=$(timeout 300 mpiexec.openmpi -n "$np" --oversubscribe "${env[@]}" build/openmpi/tests/test_mix_random 2>&1)
    if ! grep -q "PASS" <<<"$out"; then
      failed=$((failed + 1))
      echo "FAIL seed=$seed np=$np hints=$h"
      grep -E "CHECK|rror" <<<"$out" | head -5
    fi
  done
done
echo "seeds $1..$2: $failed failed runs"
[ "$failed" -eq 0 ]
