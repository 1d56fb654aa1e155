# Sourced by the sessions' ab.sh scripts: the old and new library in turn, each MPI, alternating which goes first.
# The script defines bench MPI TAG LAUNCH... (its colio-bench commands) and calls ab_inturn ROUNDS.
# Old libraries: OLD_MPICH / OLD_OPENMPI name a folder holding libcolio.so.0 (LD_LIBRARY_PATH overrides RUNPATH).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

ab_run() { # mpi lib tag
    local mpi=$1 lib=$2 tag=$3 launch
    if [ "$mpi" = mpich ]; then launch="mpiexec.mpich -n 2 -bind-to core${lib:+ -genv LD_LIBRARY_PATH $lib}"
    else launch="mpiexec.openmpi -n 2 --bind-to core${lib:+ -x LD_LIBRARY_PATH=$lib}"; fi
    bench "$mpi" "$tag" $launch
}

ab_inturn() { # rounds
    for r in $(seq 1 "$1"); do
        for mpi in mpich openmpi; do
            local old=OLD_MPICH; [ $mpi = openmpi ] && old=OLD_OPENMPI
            if [ $((r % 2)) = 1 ]; then ab_run $mpi "${!old}" old-$r; ab_run $mpi "" new-$r
            else ab_run $mpi "" new-$r; ab_run $mpi "${!old}" old-$r; fi
        done
    done
}
