#!/bin/bash
# The library before and after in turn (LD_LIBRARY_PATH overrides the build's RUNPATH): interleaved blocks of
# 4 KiB-4 MiB, colio's default path and two-phase forced (where every byte is copied through the collective buffer).
# usage: OLD_MPICH=DIR OLD_OPENMPI=DIR bash ab.sh ROUNDS OUTDIR   (DIR holds the old libcolio.so.0)
set -u
rounds=${1:-3}; out=${2:-/tmp/copyalias}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # mpi lib tag
    local mpi=$1 lib=$2 tag=$3 launch
    if [ "$mpi" = mpich ]; then launch="mpiexec.mpich -n 2 -bind-to core${lib:+ -genv LD_LIBRARY_PATH $lib}"
    else launch="mpiexec.openmpi -n 2 --bind-to core${lib:+ -x LD_LIBRARY_PATH=$lib}"; fi
    $launch build/$mpi/bench/colio-bench --workload interleaved --block 4096,65536,1048576,4194304 --size medium \
        --engine colio,colio:romio_cb_read=enable+romio_cb_write=enable --op write,read --repeat 5 --quiet \
        --json "$out/sweep-$mpi-$tag.json" >/dev/null 2>&1
}
for r in $(seq 1 "$rounds"); do
    for mpi in mpich openmpi; do
        old=OLD_MPICH; [ $mpi = openmpi ] && old=OLD_OPENMPI
        if [ $((r % 2)) = 1 ]; then run $mpi "${!old}" old-$r; run $mpi "" new-$r
        else run $mpi "" new-$r; run $mpi "${!old}" old-$r; fi
    done
done
