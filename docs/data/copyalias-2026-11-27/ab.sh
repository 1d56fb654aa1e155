#!/bin/bash
# Old and new library in turn (docs/data/ab-inturn.sh): interleaved blocks of 4 KiB-4 MiB, colio's default path and
# two-phase forced (where every byte is copied through the collective buffer).
# usage: OLD_MPICH=DIR OLD_OPENMPI=DIR bash ab.sh ROUNDS OUTDIR   (DIR holds the old libcolio.so.0)
set -u
rounds=${1:-3}; out=${2:-/tmp/copyalias}; mkdir -p "$out"
source "$(dirname "$0")/../ab-inturn.sh"
bench() { # mpi tag launch...
    local mpi=$1 tag=$2; shift 2
    "$@" build/$mpi/bench/colio-bench --workload interleaved --block 4096,65536,1048576,4194304 --size medium \
        --engine colio,colio:romio_cb_read=enable+romio_cb_write=enable --op write,read --repeat 5 --quiet \
        --json "$out/sweep-$mpi-$tag.json" >/dev/null 2>&1
}
ab_inturn "$rounds"
