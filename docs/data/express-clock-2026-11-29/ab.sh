#!/usr/bin/env bash
# Build against build, in turn: call-cost's 64-byte calls under Open MPI at 2 ranks bound (/dev/shm, default
# hints) through colio's API (with OMPIO beside it) and through the interposer, for each tree given (each built
# with scripts/build.sh openmpi), ROUNDS times. Lines: round tree api|pre engine w <us> r <us>.
# usage: ab.sh ROUNDS OUT TREE...   (medians: ab.py OUT)
set -u
source "$(dirname "$0")/../launch.sh"
rounds=$1 out=$2; shift 2
: > "$out"
for k in $(seq "$rounds"); do
  for t in "$@"; do
    (cd "$t" && call_cost openmpi 64 0 colio,mpiio) | awk -v k="$k" -v t="$t" '/write_at_all/ {print k, t, "api", $1, "w", $3, "r", $5}' >> "$out"
    (cd "$t" && call_cost openmpi 64 1 mpiio) | awk -v k="$k" -v t="$t" '/write_at_all/ {print k, t, "pre", $1, "w", $3, "r", $5}' >> "$out"
  done
done
