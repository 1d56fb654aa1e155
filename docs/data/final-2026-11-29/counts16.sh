#!/usr/bin/env bash
# Messages of the metadata phase per rank (meta_messages) at 16 ranks, oversubscribed (counting, not timing):
# 4 KiB interleaved blocks, two-phase forced so every call has the phase, default colio_counts (auto) with the
# default aggregators and cb_nodes=1/4/8, then colio_counts=dense. One line per hint set.
# usage: counts16.sh [mpich|openmpi]   (from the repository root)
set -u
mpi=${1:-openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
st=$(mktemp)
for h in "" "cb_nodes=1" "cb_nodes=4" "cb_nodes=8" "colio_counts=dense" "colio_counts=dense;cb_nodes=1"; do
  rm -f "$st"
  if [ "$mpi" = mpich ]; then L=(mpiexec.mpich -n 16); else L=(mpiexec.openmpi -n 16 --oversubscribe); fi
  "${L[@]}" build/$mpi/bench/colio-bench --workload interleaved --block 4096 --size small --engine colio --op write \
    --repeat 1 --warmup 0 --quiet --hints "romio_cb_write=enable;colio_stats=$st${h:+;$h}" > /dev/null
  python3 - "$h" "$st" <<'P'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[2])]
calls = [c for c in calls if 'write' in c['op'] and c['strategy'] == 'two-phase']
if not calls:
    sys.exit(f"hints '{sys.argv[1]}': no two-phase write in the statistics")
non = sorted({c['meta_messages'] for c in calls if not c['is_aggregator']})
agg = sorted({c['meta_messages'] for c in calls if c['is_aggregator']})
print(f"hints '{sys.argv[1]}': {calls[0]['aggregators']} aggregators, non-aggregator {non}, aggregator {agg}")
P
done
rm -f "$st"
