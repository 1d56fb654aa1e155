#!/usr/bin/env bash
# colio against the MPI library's own MPI-IO across emulated nodes (scripts/cluster.sh, as root):
# 2 nodes x 1 rank, node k on core k, on the unshaped network and on shaped ones, with the files
# in the cluster's memory-backed directory and on the disk; every byte verified. Engines, in an
# order shuffled each repeat (--interleave): colio (its own choice per call), colio with two-phase
# forced (romio_cb_write/read=enable), colio with the direct path forced (=disable), mpiio.
#   bench/cross-node.sh [--out DIR] [--repeat N] [--mpis "mpich openmpi"] [--nets "plain 10 1"]
#                       [--dirs "mem disk"] [--size medium] [--workloads "interleaved e3sm_f e3sm_g ior lattice"]
#                       [--print]
# A net is plain (no shaping), GBIT (every node's link limited to that rate) or GBIT:US (and delayed by
# US microseconds: needs the kernel's netem, scripts/cluster.sh). Writes DIR/NET.MPI.DIR.WORKLOAD.json
# (colio-bench's JSON; NET: plain, GBITgbit or GBITgbit-USus) and a .log beside each. bench/report.sh
# finds them in docs/results/cross-node (so --out docs/results/cross-node; the default is results/cross-node)
# and puts their tables in docs/PERFORMANCE.md; python3 bench/report/families/cross_node.py DIR prints the
# tables of any DIR. --print shows each workload's command instead of running anything.
# Builds are scripts/build.sh's (build/MPI). The machine should be otherwise idle.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/results/cross-node repeat=5 size=medium
mpis="mpich openmpi" nets="plain 10 1" dirs="mem disk" workloads="interleaved e3sm_f e3sm_g ior lattice" print=0
while [ $# -gt 0 ]; do
  case $1 in
  --print) print=1; shift; continue ;;
  --out) out=$2 ;;
  --repeat) repeat=$2 ;;
  --mpis) mpis=$2 ;;
  --nets) nets=$2 ;;
  --dirs) dirs=$2 ;;
  --size) size=$2 ;;
  --workloads) workloads=$2 ;;
  *) echo "cross-node.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
disk=${COLIO_BENCH_DISK:-/var/tmp/colio-cross-node}
engines=colio,colio:romio_cb_write=enable+romio_cb_read=enable,colio:romio_cb_write=disable+romio_cb_read=disable,mpiio
data=$root/bench/data/e3sm

# colio-bench's arguments for one workload, one a line
workload_args() { # WORKLOAD
  case $1 in
  interleaved) printf '%s\n' --workload interleaved --block 64,4096,65536,1048576 --size "$size" ;;
  e3sm_f) printf '%s\n' --workload e3sm --decomp "$data/map_f_case_16p.nc" --header "$data/f_case_h0.txt" ;;
  e3sm_g) printf '%s\n' --workload e3sm --decomp "$data/map_g_case_16p.nc" --header "$data/g_case_hist.txt" ;;
  ior) printf '%s\n' --workload ior --block 64,4096,1048576 ;;
  lattice) printf '%s\n' --workload lattice --size "$size" ;;
  *) echo "cross-node.sh: unknown workload $1" >&2; return 2 ;;
  esac
}

if [ $print = 1 ]; then
  data=bench/data/e3sm
  for w in $workloads; do
    args=$(workload_args "$w" | tr '\n' ' ')
    echo "scripts/cluster.sh mpiexec MPI 1 -n 2 build/MPI/bench/colio-bench ${args}--engine $engines" \
      "--repeat $repeat --interleave --dir DIR --json OUT/NET.MPI.WHERE.$w.json --quiet"
  done
  echo "# NET: plain, or scripts/cluster.sh with --rate GBIT; DIR: the cluster's memory-backed directory (WHERE mem)" \
    "or \$COLIO_BENCH_DISK, default /var/tmp/colio-cross-node (WHERE disk)"
  exit 0
fi
mkdir -p "$out"

# One configuration: on the cluster COLIO_CLUSTER names, every workload of one MPI library in one directory.
run_config() { # NET MPI DIR
  local net=$1 mpi=$2 where=$3 dir
  dir=$("$root/scripts/cluster.sh" mem)
  if [ "$where" = disk ]; then
    dir=$disk
    mkdir -p "$dir"
  fi
  local bench=$root/build/$mpi/bench/colio-bench w args
  for w in $workloads; do
    mapfile -t args < <(workload_args "$w") && [ ${#args[@]} -gt 0 ] || return 2
    local json=$out/$net.$mpi.$where.$w.json
    echo "cross-node.sh: $net $mpi $where $w" >&2
    "$root/scripts/cluster.sh" mpiexec "$mpi" 1 -n 2 "$bench" "${args[@]}" --engine "$engines" --repeat "$repeat" \
      --interleave --dir "$dir" --json "$json" --quiet >"$out/$net.$mpi.$where.$w.log" 2>&1 ||
      echo "cross-node.sh: $net $mpi $where $w failed (see its .log)" >&2
  done
  [ "$where" = disk ] && rm -rf "$disk"
  return 0
}

for net in $nets; do
  shape=()
  if [ "$net" != plain ]; then
    shape=(--rate "${net%%:*}")
    label="${net%%:*}gbit"
    if [[ $net == *:* ]]; then
      shape+=(--latency "${net##*:}")
      label+="-${net##*:}us"
    fi
    net=$label
  fi
  for mpi in $mpis; do
    for where in $dirs; do
      "$root/scripts/cluster.sh" with 2 --cpus "${shape[@]}" -- bash -c "$(declare -f workload_args run_config); \
        root=$root out=$out disk=$disk engines=$engines data=$data size=$size repeat=$repeat \
        workloads='$workloads' run_config $net $mpi $where"
    done
  done
done
