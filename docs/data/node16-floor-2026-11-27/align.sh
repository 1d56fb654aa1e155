#!/bin/bash
# Aligned reads on the 16-core machine: the kernel copy's speed by destination and file offset modulo 64
# (bw5: a pread loop, tools-free C in docs/data/align-2026-11-27/bw5.c), then direct reads at 16 ranks.
out=${1:?}; run=${2:-bash .device16/run.sh}; mkdir -p "$out"
grep -m1 "model name" /proc/cpuinfo; grep -o -w "erms\|fsrm" /proc/cpuinfo | sort | uniq -c; uname -r
for c in 4096 65536 1048576; do for fo in 0 16; do for d in 0 16 32; do taskset -c 3 .device16/bw5 $c $fo $d; done; done; done
for i in 1 2 3; do .device16/pipe; done # the same copy through a pipe (docs/data/align-2026-11-27/pipe.c)
timeout 60 $run mpich 16 colio-bench --workload interleaved --block 4096,65536,1048576 --size medium --steps 8 \
    --engine colio,posix,mpiio --op read --repeat 9 --quiet --json $out/rd-${TAG:-aligned}.json 2>&1 | grep "^interleaved/"
