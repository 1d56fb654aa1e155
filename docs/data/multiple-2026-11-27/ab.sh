#!/bin/bash
# Small calls of a program initialised with MPI_THREAD_MULTIPLE (colio's progress
# thread running), a build of the session's start (BASE: a build tree of 894b5b5,
# whose libcolio.so.0 the same call-cost binary loads through LD_LIBRARY_PATH)
# against this one, in turn, beside the MPI library's own MPI-IO; and the open's
# cost through the interposer. 2 ranks bound, /dev/shm.
# usage: BASE_MPICH=DIR BASE_OPENMPI=DIR bash docs/data/multiple-2026-11-27/ab.sh ROUNDS
set -u
rounds=${1:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # mpi libdir program args...
    local mpi=$1 lib=$2; shift 2
    if [ "$mpi" = mpich ]; then
        mpiexec.mpich -n 2 -bind-to core -genv CALL_COST_THREADS multiple -genv OPEN_COST_THREADS multiple \
            -genv LD_LIBRARY_PATH "$lib" ${PRELOAD:+-genv LD_PRELOAD $PRELOAD} "$@"
    else
        mpiexec.openmpi -n 2 --bind-to core -x CALL_COST_THREADS=multiple -x OPEN_COST_THREADS=multiple \
            -x LD_LIBRARY_PATH="$lib" ${PRELOAD:+-x LD_PRELOAD=$PRELOAD} "$@"
    fi 2>&1
}
for r in $(seq "$rounds"); do
    for mpi in mpich openmpi; do
        base=BASE_${mpi^^}
        for v in before after; do
            lib=$PWD/build/$mpi; [ $v = before ] && lib=${!base}
            run $mpi "$lib" build/$mpi/tools/call-cost /dev/shm/cc.dat 64 20000 5 colio |
                awk -v h="round $r $mpi $v" '/^colio / {print h, "call write", $3, "read", $5}'
            PRELOAD=$PWD/build/$mpi/libcolio_mpiio.so run $mpi "$lib" build/$mpi/tools/open-cost /dev/shm/oc.dat 50 |
                awk -v h="round $r $mpi $v" '/^(open|close) / {print h, $1, "median_ms", $3}'
        done
        run $mpi "" build/$mpi/tools/call-cost /dev/shm/cc.dat 64 20000 5 mpiio,agreed |
            awk -v h="round $r $mpi" '/^(mpiio|agreed) / {print h, $1, "call write", $3, "read", $5}'
        run $mpi "" build/$mpi/tools/open-cost /dev/shm/oc.dat 50 |
            awk -v h="round $r $mpi library" '/^(open|close) / {print h, $1, "median_ms", $3}'
    done
done
