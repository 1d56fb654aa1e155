# Sourced by the docs/data benchmark scripts: Open MPI as root, and launch MPI ARGS... running ARGS on 2
# ranks bound to cores under that MPI (mpich or openmpi, the Debian packages' mpiexec).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch() { # mpi args...
  local mpi=$1; shift
  if [ "$mpi" = mpich ]; then mpiexec.mpich -n 2 -bind-to core "$@"; else mpiexec.openmpi -n 2 --bind-to core "$@"; fi
}
