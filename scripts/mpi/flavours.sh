# Sourced: where each MPI library of versions.sh lives, and its run-time
# settings. colio_mpi_paths NAME sets COLIO_MPICC and COLIO_MPIEXEC;
# colio_mpi_settings MPICC prints the settings file for what that MPI
# library's mpi.h reports (scripts/mpi/FAMILY-MAJOR.env); colio_mpi_env NAME
# exports those settings (for commands run outside ctest, which gets them
# from CMake) and sets COLIO_MPIEXEC_FLAGS (launcher flags every run needs)
# and COLIO_MPIEXEC_BIND (binding ranks to cores).
COLIO_MPI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COLIO_ROOT=$(cd "$COLIO_MPI_DIR/../.." && pwd)
source "$COLIO_MPI_DIR/versions.sh"

# The project-local prefix of a PyPI MPI library.
colio_mpi_prefix() {
  case $1 in
  mpich5 | mpich5-abi) echo "$COLIO_ROOT/.mpi/mpich-$COLIO_MPICH5_VERSION" ;;
  openmpi5) echo "$COLIO_ROOT/.mpi/openmpi-$COLIO_OPENMPI5_VERSION" ;;
  esac
}

colio_mpi_paths() {
  local prefix
  prefix=$(colio_mpi_prefix "$1")
  case $1 in
  mpich | openmpi) COLIO_MPICC=mpicc.$1 COLIO_MPIEXEC=/usr/bin/mpiexec.$1 ;;
  mpich5 | openmpi5) COLIO_MPICC=$prefix/bin/mpicc COLIO_MPIEXEC=$prefix/bin/mpiexec ;;
  mpich5-abi) COLIO_MPICC=$prefix/bin/mpicc_abi COLIO_MPIEXEC=$prefix/bin/mpiexec ;;
  *) echo "unknown MPI library '$1' (known: ${COLIO_MPIS[*]} mpich5-abi)" >&2; return 1 ;;
  esac
}

colio_mpi_settings() {
  local id
  id=$("$COLIO_MPI_DIR/detect.sh" "$1") || return 1
  echo "$COLIO_MPI_DIR/$id.env"
}

colio_mpi_env() {
  colio_mpi_paths "$1" || return 1
  local file line
  file=$(colio_mpi_settings "$COLIO_MPICC") || return 1
  while IFS= read -r line; do
    case $line in '' | '#'* | COLIO_*) continue ;; esac
    export "${line?}"
  done <"$file"
  COLIO_MPIEXEC_FLAGS=$(sed -n 's/^COLIO_MPIEXEC_FLAGS=//p' "$file")
  COLIO_MPIEXEC_BIND=$(sed -n 's/^COLIO_MPIEXEC_BIND=//p' "$file")
}
