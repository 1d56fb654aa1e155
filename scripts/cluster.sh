#!/usr/bin/env bash
# A cluster on one machine: emulated nodes with their own hostnames, shared
# memory and a real network between them, for tests and benchmarks (as root).
#
#   scripts/cluster.sh up N [--latency US] [--rate GBIT] [--mtu BYTES] [--cpus]
#       Makes N nodes and prints COLIO_CLUSTER=NAME (export it, or give NAME
#       to the other commands as --cluster NAME). Each node is a network
#       namespace with a veth link (eth0 inside) to one bridge, addresses in
#       198.18.0.0/24 (the benchmarking range, RFC 2544) that exist only
#       inside the cluster: no default route, nothing reachable beyond it;
#       plus UTS, IPC and mount namespaces of its own: its hostname
#       (NAME-n0 ...), /etc/hosts naming the nodes, and a private /dev/shm,
#       so MPI's shared memory cannot cross nodes. The machine's file
#       systems are every node's "parallel file system";
#       /run/colio-cluster/NAME/mem (a directory of the machine's /dev/shm)
#       is the memory-backed one. --rate limits every node's outgoing link
#       (a token bucket, tc tbf); --latency delays it too (tc netem, where
#       the kernel has it): a message between two nodes waits US
#       microseconds once. --cpus gives node k
#       core k (modulo the cores there are): every process started on it
#       runs there, as on a node of its own (timed runs).
#   scripts/cluster.sh exec NODE CMD...      run CMD on node NODE (0, n0 or its hostname)
#   scripts/cluster.sh hosts                 the nodes' hostnames, one a line
#   scripts/cluster.sh mem                   the shared memory-backed directory
#   scripts/cluster.sh bytes                 bytes that crossed the links so far (all nodes' eth0, received)
#   scripts/cluster.sh mpiexec MPI PPN ARGS...
#       run `mpiexec ARGS` of MPI (scripts/mpi/versions.sh: mpich, openmpi, mpich5, openmpi5; or
#       --mpiexec PATH --settings scripts/mpi/FAMILY-MAJOR.env) on node 0, PPN ranks on each
#       node, with that family's cluster settings (COLIO_CLUSTER_* in its settings file); ARGS
#       are the usual ones (-n, the program)
#   scripts/cluster.sh agent [OPTIONS] HOST CMD...
#       the launchers' remote shell (Hydra's -launcher-exec, Open MPI's plm_rsh_agent): ssh's
#       options are skipped, CMD runs on HOST
#   scripts/cluster.sh down [--all]          remove the cluster (every colio cluster with --all)
#   scripts/cluster.sh with N [up options] -- CMD...
#       up, run CMD with COLIO_CLUSTER set, then down whatever happens (an interrupt too);
#       exits with CMD's status
#
# Clusters made at the same time get names of their own and do not meet.
set -euo pipefail
COLIO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=/run/colio-cluster
SUBNET=198.18.0

die() { echo "cluster.sh: $*" >&2; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || die "needs root (network, UTS, IPC and mount namespaces)"; }

# The cluster the command is for: --cluster NAME, $COLIO_CLUSTER, or the only one up.
pick() {
  if [ -n "${COLIO_CLUSTER:-}" ]; then
    echo "$COLIO_CLUSTER"
    return
  fi
  local all=()
  [ -d "$STATE" ] && mapfile -t all < <(ls "$STATE")
  [ "${#all[@]}" -eq 1 ] || die "say which cluster (COLIO_CLUSTER=NAME or --cluster NAME): ${#all[@]} are up"
  echo "${all[0]}"
}

dir_of() { echo "$STATE/$1"; }
nodes_of() { cat "$(dir_of "$1")/nodes"; }

# NODE as an index: 3, n3, or NAME-n3.
node_index() { # CLUSTER NODE
  local n=$2
  n=${n#"$1"-}
  n=${n#n}
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -lt "$(nodes_of "$1")" ] || die "no node '$2' in cluster $1"
  echo "$n"
}

holder_pid() { cat "$(dir_of "$1")/n$2.pid"; }

# Run CMD in every namespace of node k (the holder process keeps them).
node_exec() { # CLUSTER K CMD...
  local c=$1 k=$2
  shift 2
  local cpus=() d
  d=$(dir_of "$c")
  [ -s "$d/n$k.cpus" ] && cpus=(taskset -c "$(cat "$d/n$k.cpus")")
  exec "${cpus[@]}" nsenter -t "$(holder_pid "$c" "$k")" --net --uts --ipc --mount --wd="$PWD" -- "$@"
}

# Shape node ns's outgoing link: latency (and rate) with netem, a rate alone with a token bucket (tbf).
shape_link() { # NS LATENCY_US RATE_GBIT
  local ns=$1 latency=$2 rate=$3
  if [ "$latency" != 0 ]; then
    local shape=(delay "${latency}us")
    [ "$rate" != 0 ] && shape+=(rate "${rate}gbit")
    ip netns exec "$ns" tc qdisc add dev eth0 root netem "${shape[@]}" limit 100000 2>/dev/null && return 0
    echo "cluster.sh: --latency needs the kernel's netem queueing discipline (CONFIG_NET_SCH_NETEM), which" \
         "this kernel lacks; --rate alone works (a token bucket)" >&2
    return 1
  fi
  [ "$rate" = 0 ] && return 0
  # a burst of two timer ticks' worth of bytes (HZ 250 at most), so the bucket never starves the link
  local burst
  burst=$(awk -v r="$rate" 'BEGIN { printf "%d", r * 1e9 / 8 / 250 * 2 }')
  ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "${rate}gbit" burst "$burst" latency 50ms
}

cmd_up() {
  need_root
  local n=${1:?usage: cluster.sh up N [--latency US] [--rate GBIT] [--mtu BYTES] [--cpus]} latency=0 rate=0 mtu=1500
  local cpus=0
  shift
  while [ $# -gt 0 ]; do
    case $1 in
    --latency) latency=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --mtu) mtu=$2; shift 2 ;;
    --cpus) cpus=1; shift ;;
    *) die "unknown option $1" ;;
    esac
  done
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "N must be 1-200"
  local name
  while :; do # a name of its own (mkdir is atomic); the parent again each time: a down may just remove it
    name=c$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
    mkdir -p "$STATE"
    mkdir "$STATE/$name" 2>/dev/null && break
  done
  local d=$STATE/$name
  echo "$n" >"$d/nodes"
  echo "$latency $rate $mtu" >"$d/shape"
  mkdir -p "$d/mem" "/dev/shm/colio-cluster-$name"
  chmod 1777 "/dev/shm/colio-cluster-$name"
  mount --bind "/dev/shm/colio-cluster-$name" "$d/mem" # the machine's /dev/shm: its storage figures are known
  { echo "127.0.0.1 localhost"; for ((k = 0; k < n; k++)); do echo "$SUBNET.$((k + 1)) $name-n$k"; done; } >"$d/hosts"
  ip link add "br-$name" type bridge
  ip link set "br-$name" up
  for ((k = 0; k < n; k++)); do
    local ns=colio-$name-n$k veth=v${name}n$k
    [ "$cpus" = 1 ] && echo $((k % $(nproc))) >"$d/n$k.cpus"
    ip netns add "$ns"
    ip link add "$veth" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$ns"
    ip link set "$veth" master "br-$name" up
    ip -n "$ns" addr add "$SUBNET.$((k + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    shape_link "$ns" "$latency" "$rate" || { cmd_down_one "$name"; exit 1; }
    # the node's own hostname, /etc/hosts, IPC and /dev/shm, kept by a holder process
    ip netns exec "$ns" unshare --uts --ipc --mount --propagation private --fork sh -c '
      hostname "$1" && mount -t tmpfs -o mode=1777 "$1-shm" /dev/shm && mount --bind "$2" /etc/hosts &&
      echo $$ > "$3" && exec sleep infinity' sh "$name-n$k" "$d/hosts" "$d/n$k.pid" </dev/null >/dev/null 2>&1 &
  done
  for ((k = 0; k < n; k++)); do # the holders are in place
    local tries=0
    until [ -s "$d/n$k.pid" ]; do
      tries=$((tries + 1))
      [ $tries -lt 200 ] || { cmd_down_one "$name"; die "node $k did not start"; }
      sleep 0.02
    done
  done
  echo "COLIO_CLUSTER=$name"
}

# Every process whose network namespace is one of the cluster's.
cluster_pids() {
  local c=$1 n k
  n=$(nodes_of "$c" 2>/dev/null || echo 0)
  for ((k = 0; k < n; k++)); do
    ip netns pids "colio-$c-n$k" 2>/dev/null || true
  done
}

cmd_down_one() {
  local c=$1 d
  d=$(dir_of "$c")
  [ -d "$d" ] || return 0
  local pids
  pids=$(cluster_pids "$c")
  [ -n "$pids" ] && kill -TERM $pids 2>/dev/null || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    pids=$(cluster_pids "$c")
    [ -z "$pids" ] && break
    sleep 0.1
  done
  pids=$(cluster_pids "$c")
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
  local n k
  n=$(nodes_of "$c" 2>/dev/null || echo 0)
  for ((k = 0; k < n; k++)); do
    ip link del "v${c}n$k" 2>/dev/null || true # both ends at once, whoever still holds the namespace
    ip netns del "colio-$c-n$k" 2>/dev/null || true
  done
  ip link del "br-$c" 2>/dev/null || true
  umount "$d/mem" 2>/dev/null || true
  rm -rf "$d" "/dev/shm/colio-cluster-$c"
  rmdir "$STATE" 2>/dev/null || true
}

cmd_down() {
  need_root
  if [ "${1:-}" = "--all" ]; then
    [ -d "$STATE" ] || return 0
    local c
    for c in $(ls "$STATE"); do cmd_down_one "$c"; done
    return 0
  fi
  cmd_down_one "$(pick)"
}

cmd_exec() {
  local c k
  c=$(pick)
  k=$(node_index "$c" "${1:?usage: cluster.sh exec NODE CMD...}")
  shift
  node_exec "$c" "$k" "$@"
}

cmd_hosts() {
  local c n k
  c=$(pick)
  n=$(nodes_of "$c")
  for ((k = 0; k < n; k++)); do echo "$c-n$k"; done
}

cmd_bytes() {
  local c n k sum=0 b
  c=$(pick)
  n=$(nodes_of "$c")
  for ((k = 0; k < n; k++)); do
    b=$(cat "/sys/class/net/v${c}n$k/statistics/tx_bytes") # the host end's tx: what node k received
    sum=$((sum + b))
  done
  echo "$sum"
}

# Hydra calls the agent as ssh (options, host, command); Open MPI as its rsh agent (host, command).
cmd_agent() {
  while [ $# -gt 0 ] && [[ $1 == -* ]]; do
    case $1 in -l | -p | -o | -i | -F) shift 2 ;; *) shift ;; esac
  done
  local host=${1:?agent: no host}
  shift
  local c=${host%-n*}
  COLIO_CLUSTER=$c
  node_exec "$c" "$(node_index "$c" "$host")" sh -c "$*"
}

# mpiexec of one MPI library across the nodes, from node 0, with its family's cluster settings:
# MPI is a name of scripts/mpi/versions.sh, or --mpiexec PATH --settings FILE (what a build found).
cmd_mpiexec() {
  local mpiexec="" settings="" flags=""
  if [ "${1:-}" = "--mpiexec" ]; then
    mpiexec=${2:?--mpiexec PATH} settings=${4:?--settings FILE}
    [ "${3:-}" = "--settings" ] || die "usage: cluster.sh mpiexec --mpiexec PATH --settings FILE PPN ARGS..."
    shift 4
    local line
    while IFS= read -r line; do
      case $line in '' | '#'* | COLIO_*) continue ;; esac
      export "${line?}"
    done <"$settings"
    flags=$(sed -n 's/^COLIO_MPIEXEC_FLAGS=//p' "$settings")
  else
    local mpi=${1:?usage: cluster.sh mpiexec MPI PPN ARGS...}
    shift
    source "$COLIO_ROOT/scripts/env.sh"
    colio_mpi_env "$mpi"
    mpiexec=$COLIO_MPIEXEC flags=$COLIO_MPIEXEC_FLAGS settings=$(colio_mpi_settings "$COLIO_MPICC")
  fi
  local ppn=${1:?usage: cluster.sh mpiexec MPI PPN ARGS...}
  shift
  local c n k hosts="" slots="" launch env
  c=$(pick)
  n=$(nodes_of "$c")
  for ((k = 0; k < n; k++)); do
    hosts+="${hosts:+,}$c-n$k"
    slots+="${slots:+,}$c-n$k:$ppn"
  done
  launch=$(sed -n 's/^COLIO_CLUSTER_LAUNCH=//p' "$settings")
  env=$(sed -n 's/^COLIO_CLUSTER_ENV=//p' "$settings")
  [ -n "$launch" ] || die "$settings has no COLIO_CLUSTER_LAUNCH"
  launch=${launch//@AGENT@/$COLIO_ROOT/scripts/cluster-agent}
  launch=${launch//@HOSTS@/$hosts}
  launch=${launch//@SLOTS@/$slots}
  launch=${launch//@PPN@/$ppn}
  export COLIO_CLUSTER=$c
  # shellcheck disable=SC2086 # the settings are words
  node_exec "$c" 0 env $env "$mpiexec" $flags $launch "$@"
}

cmd_with() {
  local up=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do up+=("$1"); shift; done
  [ "${1:-}" = "--" ] || die "usage: cluster.sh with N [up options] -- CMD..."
  shift
  local line
  line=$(cmd_up "${up[@]}")
  export COLIO_CLUSTER=${line#COLIO_CLUSTER=}
  trap 'cmd_down_one "$COLIO_CLUSTER"' EXIT
  # the command runs beside this shell, whose wait a signal interrupts: the cluster goes at once
  "$@" <&0 &
  local child=$! rc=0
  trap 'kill -TERM $child 2>/dev/null; exit 130' INT TERM HUP
  wait "$child" || rc=$?
  exit $rc
}

if [ "${1:-}" = "--cluster" ]; then
  export COLIO_CLUSTER=${2:?--cluster NAME}
  shift 2
fi
verb=${1:-}
[ $# -gt 0 ] && shift
case $verb in
up) cmd_up "$@" ;;
down) cmd_down "$@" ;;
exec) cmd_exec "$@" ;;
hosts) cmd_hosts ;;
mem) echo "$(dir_of "$(pick)")/mem" ;;
bytes) cmd_bytes ;;
agent) cmd_agent "$@" ;;
mpiexec) cmd_mpiexec "$@" ;;
with) cmd_with "$@" ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
