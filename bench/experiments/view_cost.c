/*
 * view-cost: what the MPI library's own MPI_File_set_view costs for a large
 * filetype, the price libcolio_mpiio pays on the program's (real) handle.
 * Each rank builds a hindexed filetype of N pieces of 8, 16 or 24 bytes
 * interleaved with the other ranks', then opens, sets the view and closes PATH REPEAT times;
 * rank 0 prints each phase's time (slowest rank).
 * usage: mpiexec -n P view-cost PATH [N] [REPEAT]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double slowest(double t)
{
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: view-cost PATH [PIECES] [REPEAT]\n");
        MPI_Finalize();
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 661062, repeat = argc > 3 ? atoi(argv[3]) : 5;
    int *len = malloc(sizeof *len * (size_t)n);
    MPI_Aint *disp = malloc(sizeof *disp * (size_t)n);
    for (int i = 0; i < n; i++) {
        len[i] = 8 + 8 * (i % 3);
        disp[i] = ((MPI_Aint)i * nprocs + rank) * 32; /* 32-byte slots dealt round-robin */
    }
    MPI_Datatype ftype;
    MPI_Type_create_hindexed(n, len, disp, MPI_BYTE, &ftype);
    MPI_Type_commit(&ftype);
    if (rank == 0)
        printf("view-cost: %d ranks, %d pieces per rank\n%8s %10s %10s %10s\n", nprocs, n, "run", "open_s", "set_view_s",
               "close_s");
    for (int k = 0; k < repeat; k++) {
        MPI_File fh;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
        double t1 = MPI_Wtime();
        MPI_File_set_view(fh, 0, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
        double t2 = MPI_Wtime();
        MPI_File_close(&fh);
        double t3 = MPI_Wtime();
        double o = slowest(t1 - t0), v = slowest(t2 - t1), c = slowest(t3 - t2);
        if (rank == 0)
            printf("%8d %10.4f %10.4f %10.4f\n", k, o, v, c);
    }
    MPI_Type_free(&ftype);
    free(len), free(disp);
    MPI_Finalize();
    return 0;
}
