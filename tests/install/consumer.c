/* Built against an installed colio: each rank writes its rank number at its own offset, then checks. */
#include <colio.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    if (rc == COLIO_SUCCESS)
        rc = colio_write_at_all(fh, 4 * rank, &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    int back = -1;
    if (rc == COLIO_SUCCESS)
        rc = colio_read_at_all(fh, 4 * rank, &back, 1, MPI_INT, MPI_STATUS_IGNORE);
    ok = rc == COLIO_SUCCESS && back == rank;
    if (fh)
        colio_close(&fh);
    if (!ok)
        fprintf(stderr, "consumer: rank %d: %s\n", rank, colio_strerror(rc));
    MPI_Finalize();
    return ok ? 0 : 1;
}
