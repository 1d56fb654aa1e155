# Sourced by the docs/data benchmark scripts: Open MPI as root, and launch MPI ARGS... running ARGS on 2
# ranks bound to cores under that MPI (mpich or openmpi, the Debian packages' mpiexec).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch() { # mpi args...
  local mpi=$1; shift
  if [ "$mpi" = mpich ]; then mpiexec.mpich -n 2 -bind-to core "$@"; else mpiexec.openmpi -n 2 --bind-to core "$@"; fi
}
# call_cost MPI BYTES PRELOAD ENGINES [HINTS]: tools/call-cost (20,000 calls, best of 5 loops) on 2 bound ranks, files
# in /dev/shm; PRELOAD=1 runs it under that MPI's libcolio_mpiio.so, HINTS go to COLIO_HINTS.
call_cost() {
  local mpi=$1 bytes=$2 pre=$3 engines=$4 env=(env)
  [ -n "${5:-}" ] && env+=(COLIO_HINTS="$5")
  [ "$pre" = 1 ] && env+=(LD_PRELOAD=$PWD/build/$mpi/libcolio_mpiio.so)
  launch "$mpi" "${env[@]}" build/$mpi/tools/call-cost /dev/shm/cc.dat "$bytes" 20000 5 "$engines"
}
