#!/usr/bin/env bash
# The slow sweep's OMPIO cells below 4 KiB (docs/data/slow-2026-11-28/sweep.sh leaves them out): behind the same
# 1 ms storage calls, Open MPI, 2 ranks bound, default hints. Reads at medium size, five repeats, engines
# interleaved; writes at small size, one run without warm-up (OMPIO writes these blocks one storage call per
# piece: about 70 s for 64 B blocks). JSON and text into OUT.
# usage: slow-ompio-small.sh OUT   (from the repository root)
set -u
here=$(dirname "$0")
source "$here/../launch.sh"
out=${1:?a folder}; mkdir -p "$out" /dev/shm/slow
lib=build/openmpi/tools/libcolio_slowfs.so
slow() {
  launch openmpi -x LD_PRELOAD=$lib -x COLIO_SLOWFS_PREFIX=/dev/shm/slow/ -x COLIO_STORAGE_CACHE=none \
    build/openmpi/bench/colio-bench --workload interleaved --block 64,256,1024 --engine colio,mpiio --interleave \
    --dir /dev/shm/slow "$@"
}
slow --size medium --op read --repeat 5 --json "$out/reads.json" > "$out/reads.txt"
slow --size small --op write --repeat 1 --warmup 0 --json "$out/writes.json" > "$out/writes.txt"
