#!/bin/bash
# The fixed cost of a small collective call at 4-16 real ranks, beside its floors (call-cost's posix and
# agreed rows), and direct reads beside one pread per piece with open and close amortised over 8 steps.
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
t() { local lim=$1; shift; echo "### $(date +%T) $*"; timeout "$lim" "$@" 2>&1 | grep -v '^#' ; echo "### rc=${PIPESTATUS[0]}"; }
for mpi in mpich openmpi; do
  for n in 4 8 16; do
    for b in 64 4096; do
      t 40 $run $mpi $n call-cost /dev/shm/cc.dat $b 5000 3
    done
  done
done
t 60 $run mpich 16 colio-bench --workload interleaved --block 4096,65536,1048576 --size medium --steps 8 \
    --engine colio,colio:romio_ds_read=disable,posix --op read --repeat 9 --quiet --json $out/rd.json
echo "### done $(date +%T)"
