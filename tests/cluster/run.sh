#!/usr/bin/env bash
# One MPI program across emulated nodes, for ctest (tests/CMakeLists.txt, label "cluster"):
#   run.sh MPIEXEC SETTINGS NODES PPN [--bytes MIN] [--latency US] [--rate GBIT] -- PROGRAM ARGS...
# It makes a cluster of its own (scripts/cluster.sh), runs NODES x PPN ranks of PROGRAM with their
# files in the cluster's memory-backed directory (COLIO_TEST_DIR) and COLIO_TEST_NODES=NODES, then
# removes the cluster, whatever happened. The program checks its own bytes and prints its verdict
# ("... on N ranks: PASS"). --bytes: at least MIN bytes must have crossed the cluster's links.
# Skipped (exit 77) where namespaces cannot be made (not root).
#
# SETTINGS (scripts/mpi/FAMILY-MAJOR.env) may set COLIO_CLUSTER_FINALIZE_WAIT=S for an MPI library
# that can hang in MPI_Finalize across nodes: a job whose verdict has come and that has not ended S
# seconds later is ended, said so, and counted by its verdict (every check ran before it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$root/scripts/cluster.sh

inside() { # MPIEXEC SETTINGS NODES PPN MIN_BYTES WAIT -- PROGRAM ARGS...
  local mpiexec=$1 settings=$2 nodes=$3 ppn=$4 min_bytes=$5 wait_s=$6
  shift 7
  COLIO_TEST_DIR=$("$cluster" mem)
  export COLIO_TEST_DIR COLIO_TEST_NODES=$nodes
  local log before rc=0 verdict_at="" ended=0
  log=$(mktemp)
  before=$("$cluster" bytes)
  "$cluster" mpiexec --mpiexec "$mpiexec" --settings "$settings" "$ppn" -n $((nodes * ppn)) "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$wait_s" -gt 0 ] && [ -z "$verdict_at" ] && grep -qE ' ranks: (PASS|FAIL)' "$log"; then
      verdict_at=$SECONDS
    fi
    if [ -n "$verdict_at" ] && [ $((SECONDS - verdict_at)) -ge "$wait_s" ]; then
      ended=1
      kill -TERM "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  wait "$pid" || rc=$?
  cat "$log"
  if [ "$ended" = 1 ]; then
    echo "run.sh: MPI_Finalize had not returned ${wait_s} s after the verdict: the job was ended" \
         "(COLIO_CLUSTER_FINALIZE_WAIT in $(basename "$settings")); counted by its verdict"
    rc=1
    grep -qE ' ranks: PASS' "$log" && ! grep -qE ' ranks: FAIL' "$log" && rc=0
  fi
  local crossed=$(($("$cluster" bytes) - before))
  echo "run.sh: $nodes nodes x $ppn ranks, $crossed bytes crossed the links"
  if [ "$nodes" -gt 1 ] && [ "$crossed" -lt "$min_bytes" ]; then
    echo "run.sh: fewer than $min_bytes bytes crossed between the nodes: MPI did not use the network"
    rc=1
  fi
  rm -f "$log"
  return "$rc"
}

if [ "${1:-}" = "--inside" ]; then
  shift
  inside "$@"
  exit
fi
mpiexec=${1:?usage: run.sh MPIEXEC SETTINGS NODES PPN [options] -- PROGRAM ARGS...}
settings=${2:?} nodes=${3:?} ppn=${4:?}
shift 4
min_bytes=0 shape=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
  --bytes) min_bytes=$2; shift 2 ;;
  --latency | --rate) shape+=("$1" "$2"); shift 2 ;;
  *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "${1:-}" = "--" ] || { echo "run.sh: no -- before the program" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
  echo "run.sh: skipped: emulated nodes need root (network, UTS, IPC and mount namespaces)"
  exit 77
fi
wait_s=$(sed -n 's/^COLIO_CLUSTER_FINALIZE_WAIT=//p' "$settings")
unset COLIO_CLUSTER
exec "$cluster" with "$nodes" "${shape[@]}" -- "$0" --inside "$mpiexec" "$settings" "$nodes" "$ppn" "$min_bytes" \
  "${wait_s:-0}" "$@"
