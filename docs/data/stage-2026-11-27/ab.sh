#!/bin/bash
# Staged small writes against the same build with colio_stage_bytes=0, in turn,
# beside the MPI library's own MPI-IO: call-cost, 2 ranks bound, /dev/shm.
# usage: bash docs/data/stage-2026-11-27/ab.sh ROUNDS BYTES...   (from the repository root)
set -u
rounds=${1:-4}; shift
sizes=${*:-64 1024 4096}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cc() { # mpi bytes env engines
    if [ "$1" = mpich ]; then
        mpiexec.mpich -n 2 -bind-to core ${3:+-genv COLIO_HINTS $3} build/mpich/tools/call-cost /dev/shm/cc.dat "$2" 10000 5 "$4"
    else
        mpiexec.openmpi -n 2 --bind-to core ${3:+-x COLIO_HINTS=$3} build/openmpi/tools/call-cost /dev/shm/cc.dat "$2" 10000 5 "$4"
    fi 2>&1 | awk -v t="$5" '/^(colio|mpiio) / {print t, $3, $5}'
}
for r in $(seq "$rounds"); do
    for mpi in mpich openmpi; do
        for b in $sizes; do
            echo "round $r $mpi $b staged $(cc $mpi $b '' colio x)"
            echo "round $r $mpi $b off $(cc $mpi $b colio_stage_bytes=0 colio x)"
            echo "round $r $mpi $b library $(cc $mpi $b '' mpiio x)"
        done
    done
done
