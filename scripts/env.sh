# Sourced by the scripts: the MPI libraries colio is tested against
# (scripts/mpi/versions.sh) and their run-time settings, one file per
# family and version (scripts/mpi/FAMILY-MAJOR.env). Before running NAME's
# mpiexec, a script calls colio_mpi_env NAME (it sets COLIO_MPICC,
# COLIO_MPIEXEC and COLIO_MPIEXEC_FLAGS and exports NAME's settings), in a
# subshell when it goes on to another MPI library.
source "$(dirname "${BASH_SOURCE[0]}")/mpi/flavours.sh"
