#!/usr/bin/env bash
# colio-nbbench's nonblocking experiments (Seo et al.), default hints plus
# colio_progress=thread, under MPICH and Open MPI:
#   - overlap, 2 ranks bound to cores, 8 MiB per rank behind the fault
#     backend's 5 ms sleep per storage call (storage that takes time without
#     the CPU);
#   - overlap, 1 rank not bound (a core free for colio's threads), files in
#     /dev/shm, 64 MiB (4 MiB in 64-byte pieces);
#   - pieces of 64 B, 4 KiB and contiguous, write and read;
#   - outstanding (16 writes, then reads, posted 1 to 16 at a time) on the
#     slow storage.
# With --disk instead: overlap, 2 ranks bound to cores, files on the disk
# (COLIO_BENCH_DISK, default /var/tmp/colio-bench), 32 MiB per rank (4 MiB
# in 64-byte pieces), with direct I/O (direct_write and direct_read true:
# the device moves the bytes) and buffered (false: the rank's core copies
# them through the page cache).
# Prints colio-nbbench's lines, each prefixed with its configuration, and
# writes them to OUT (default docs/results/nbbench.txt, with --disk
# docs/results/nbbench-disk.txt, where bench/report.sh finds them).
# usage: bench/nbbench-suite.sh [--disk] [repeat] [OUT]   (after scripts/build.sh mpich and openmpi)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
on_disk=0 name=nbbench
if [ "${1:-}" = --disk ]; then on_disk=1 name=nbbench-disk; shift; fi
repeat=${1:-5}
out=${2:-docs/results/$name.txt}
mkdir -p "$(dirname "$out")"
: >"$out"
slow="colio_progress=thread;colio_backend=fault;colio_fault=delay:5000"
disk=${COLIO_BENCH_DISK:-/var/tmp/colio-bench}
mkdir -p "$disk"
path=/dev/shm/colio-nbbench.dat
run() { # mpi label np bind args...
  local mpi=$1 label=$2 np=$3 bind=$4; shift 4
  (colio_mpi_env "$mpi"
   [ "$bind" = none ] && bind=${COLIO_MPIEXEC_BIND/core/none} || bind=$COLIO_MPIEXEC_BIND
   "$COLIO_MPIEXEC" $bind -n "$np" "build/$mpi/bench/colio-nbbench" --path "$path" \
     --repeat "$repeat" "$@") | grep -v '^#' | sed "s/^/$mpi $label /" | tee -a "$out"
}
for mpi in mpich openmpi; do
  for piece in contiguous 4096 64; do
    if [ $on_disk = 1 ]; then
      bytes=33554432; [ $piece = 64 ] && bytes=4194304
      p=$piece; [ $piece = contiguous ] && p=$bytes
      path=$disk/colio-nbbench.dat
      run $mpi "np2 disk-direct piece=$piece" 2 core --bytes $bytes --piece $p \
        --hints "colio_progress=thread;direct_write=true;direct_read=true" overlap
      run $mpi "np2 disk-buffered piece=$piece" 2 core --bytes $bytes --piece $p \
        --hints "colio_progress=thread;direct_write=false;direct_read=false" overlap
      continue
    fi
    p=$piece; [ $piece = contiguous ] && p=8388608
    run $mpi "np2 slow piece=$piece" 2 core --bytes 8388608 --piece $p --hints "$slow" overlap
    bytes=67108864; [ $piece = 64 ] && bytes=4194304
    p=$piece; [ $piece = contiguous ] && p=$bytes
    run $mpi "np1 tmpfs piece=$piece" 1 none --bytes $bytes --piece $p --hints "colio_progress=thread" overlap
  done
  [ $on_disk = 1 ] || run $mpi "np2 slow piece=4096" 2 core --bytes 2097152 --hints "$slow" outstanding
done
[ $on_disk = 0 ] || rm -f "$disk/colio-nbbench.dat"
