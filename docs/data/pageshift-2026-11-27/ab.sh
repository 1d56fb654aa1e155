#!/bin/bash
# Old and new library in turn, reads only (docs/data/ab-inturn.sh).
# usage: OLD_MPICH=DIR OLD_OPENMPI=DIR bash ab.sh ROUNDS OUTDIR   (DIR holds the old libcolio.so.0)
set -u
rounds=${1:-3}; out=${2:-/tmp/pageshift}; mkdir -p "$out"
source "$(dirname "$0")/../ab-inturn.sh"
bench() { # mpi tag launch...
    local mpi=$1 tag=$2; shift 2
    "$@" build/$mpi/bench/colio-bench --workload random,cube,collperf,flash,btio,hacc,lattice --size medium \
        --engine colio,mpiio --op read --steps 4 --repeat 7 --quiet --json "$out/medium-$mpi-$tag.json" >/dev/null 2>&1
    "$@" build/$mpi/bench/colio-bench --workload interleaved --block 1024,4096,65536,1048576,4194304 --size medium \
        --engine colio,mpiio --op read --repeat 5 --quiet --json "$out/sweep-$mpi-$tag.json" >/dev/null 2>&1
}
ab_inturn "$rounds"
