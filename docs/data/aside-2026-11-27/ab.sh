#!/bin/bash
# Old and new library in turn (docs/data/ab-inturn.sh): two-phase reads whose messages MPI copies into the
# program's malloc'd buffer (16 bytes past a page) from a collective buffer at the file offset's alignment.
# Interleaved blocks of 16 KiB-4 MiB: colio's default path, default hints behind slow storage (every storage
# call 1 ms later: two-phase is chosen), two-phase forced. Then writes from memory 16 bytes before a page.
# usage: OLD_MPICH=DIR OLD_OPENMPI=DIR bash ab.sh ROUNDS OUTDIR   (DIR holds the old libcolio.so.0)
# then:  python3 docs/data/ab-summary.py OUTDIR
set -u
rounds=${1:-3}; out=${2:-/tmp/aside}; mkdir -p "$out"
source "$(dirname "$0")/../ab-inturn.sh"
bench() { # mpi tag launch...
    local mpi=$1 tag=$2; shift 2
    "$@" build/$mpi/bench/colio-bench --workload interleaved --block 16384,65536,1048576,4194304 --size medium \
        --engine colio,colio:colio_backend=fault+colio_fault=delay:1000,colio:romio_cb_read=enable --op read \
        --repeat 5 --quiet --json "$out/sweep-$mpi-$tag.json" >/dev/null 2>&1
    # writes meet it where memory sits 1-31 bytes short of the file offset's alignment (pwrite's copy too): 16 bytes before a page
    "$@" build/$mpi/bench/colio-bench --workload interleaved --block 65536,1048576,4194304 --size medium \
        --engine colio,colio:romio_cb_write=enable,posix,mpiio --op write --buffer-offset 4080 \
        --repeat 5 --quiet --json "$out/write4080-$mpi-$tag.json" >/dev/null 2>&1
}
ab_inturn "$rounds"
