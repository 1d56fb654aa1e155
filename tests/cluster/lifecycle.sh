#!/usr/bin/env bash
# scripts/cluster.sh leaves nothing behind: `up 3` makes three nodes, each with its own hostname, that
# MPI sees as three nodes (test_nodes, run on them); `down` removes every namespace, link, process
# and mount it made; a cluster under `with` goes when its command fails and when it is interrupted;
# two clusters at once get names of their own.
#   lifecycle.sh MPIEXEC SETTINGS TEST_NODES   (exit 77 where namespaces cannot be made)
set -uo pipefail
cluster=$(cd "$(dirname "$0")/../.." && pwd)/scripts/cluster.sh
mpiexec=${1:?usage: lifecycle.sh MPIEXEC SETTINGS TEST_NODES} settings=${2:?} test_nodes=${3:?}
if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
  echo "lifecycle.sh: skipped: emulated nodes need root"
  exit 77
fi
failures=0
fail() { echo "lifecycle.sh: FAIL: $*"; failures=$((failures + 1)); }

# Whatever cluster NAME made is gone: namespaces, links, holder processes, its tmpfs, its state.
check_gone() { # NAME PIDS...
  local name=$1
  shift
  ip netns list | grep -q "colio-$name-" && fail "$name: a network namespace is left: $(ip netns list | grep "colio-$name-")"
  ip -o link show | grep -q "$name" && fail "$name: a link is left: $(ip -o link show | grep "$name" | cut -c1-80)"
  local p
  for p in "$@"; do kill -0 "$p" 2>/dev/null && fail "$name: process $p is left"; done
  grep -q "colio-cluster/$name" /proc/mounts && fail "$name: a mount is left"
  [ -e "/dev/shm/colio-cluster-$name" ] && fail "$name: its /dev/shm directory is left"
  [ -e "/run/colio-cluster/$name" ] && fail "$name: its state directory is left"
  return 0
}

unset COLIO_CLUSTER
line=$("$cluster" up 3) || { echo "lifecycle.sh: up failed"; exit 1; }
name=${line#COLIO_CLUSTER=}
export COLIO_CLUSTER=$name
pids=$(cat /run/colio-cluster/"$name"/n*.pid)
for k in 0 1 2; do
  host=$("$cluster" exec "$k" hostname)
  [ "$host" = "$name-n$k" ] || fail "node $k says its hostname is '$host', expected $name-n$k"
done
[ "$(hostname)" != "$name-n0" ] || fail "the machine's own hostname changed"
# a second cluster beside the first: its own name, its own nodes
line2=$("$cluster" up 1) || fail "a second cluster did not come up"
name2=${line2#COLIO_CLUSTER=}
[ "$name2" != "$name" ] || fail "two clusters got one name"
pids2=$(cat /run/colio-cluster/"$name2"/n*.pid 2>/dev/null)
COLIO_CLUSTER=$name2 "$cluster" down
check_gone "$name2" $pids2
[ -d "/run/colio-cluster/$name" ] || fail "taking down $name2 took $name too"
# MPI on the three nodes: three nodes, by its own grouping and by colio's
out=$("$(dirname "$0")/run.sh" --inside "$mpiexec" "$settings" 3 1 1 \
        "$(sed -n 's/^COLIO_CLUSTER_FINALIZE_WAIT=//p' "$settings" | grep . || echo 0)" -- "$test_nodes" 2>&1)
rc=$?
echo "$out"
echo "$out" | grep -q "test_nodes: 3 ranks on 3 nodes" || fail "MPI did not report 3 nodes"
[ "$rc" = 0 ] || fail "test_nodes failed on the three nodes (exit $rc)"
"$cluster" down
check_gone "$name" $pids
# `with`: down when the command fails, and when it is interrupted
unset COLIO_CLUSTER
"$cluster" with 2 -- sh -c 'echo "$COLIO_CLUSTER" > /tmp/colio-lifecycle.$$; exit 3' 2>/dev/null
rc=$?
[ "$rc" = 3 ] || fail "with did not return its command's status (3): $rc"
# an interrupt (SIGINT, as from a terminal: a script's background job would ignore it, so the
# disposition is put back first) and a TERM
for sig in INT TERM; do
  rm -f /tmp/colio-lifecycle-int
  /usr/bin/python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    "$cluster" with 2 -- sh -c 'echo "$COLIO_CLUSTER" > /tmp/colio-lifecycle-int; exec sleep 60' &
  wpid=$!
  for _ in $(seq 100); do [ -s /tmp/colio-lifecycle-int ] && break; sleep 0.1; done
  name3=$(cat /tmp/colio-lifecycle-int 2>/dev/null)
  pids3=$(cat /run/colio-cluster/"$name3"/n*.pid 2>/dev/null)
  start=$SECONDS
  kill -"$sig" "$wpid"
  wait "$wpid"
  [ $((SECONDS - start)) -lt 20 ] || fail "SIG$sig: the cluster took $((SECONDS - start)) s to go"
  [ -n "$name3" ] && check_gone "$name3" $pids3
done
rm -f /tmp/colio-lifecycle-int /tmp/colio-lifecycle.*
echo "lifecycle.sh: ${failures} failures"
[ "$failures" = 0 ]
