/*
 * MPI point-to-point time against where the buffers sit modulo 4 KiB, 2 ranks of one node:
 * rank 0 sends n bytes, rank 1 receives them (then a 1-byte reply), best of 5 loops.
 * usage: msg_shift recv|send|both   (which side's buffer is `shift` bytes past a page; the other at a page)
 * build: mpicc -O2 -o msg_shift msg_shift.c
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "recv";
    int shifted = strcmp(mode, "both") == 0 || (strcmp(mode, "recv") == 0) == (rank == 1);
    const size_t sizes[] = {2048, 4096, 8192, 12288, 16384, 65536, 262144, 1048576};
    const int shifts[] = {0, 8, 16, 32, 48, 1040};
    char *base = aligned_alloc(4096, (2 << 20) + 8192);
    memset(base, rank, (2 << 20) + 8192);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        if (rank == 0)
            printf("%s shifted, %8zu B:", mode, n);
        for (size_t hi = 0; hi < sizeof shifts / sizeof *shifts; hi++) {
            char *buf = base + (shifted ? shifts[hi] : 0);
            int reps = (int)(10000000 / n);
            reps = reps > 2000 ? 2000 : reps < 20 ? 20 : reps;
            double best = 1e9;
            for (int l = 0; l < 5; l++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t = MPI_Wtime();
                for (int r = 0; r < reps; r++) {
                    if (rank == 0) {
                        MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                        MPI_Recv(buf, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(buf, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                    }
                }
                t = (MPI_Wtime() - t) / reps;
                best = t < best ? t : best;
            }
            if (rank == 0)
                printf("  %d: %7.2f us", shifts[hi], best * 1e6);
        }
        if (rank == 0)
            printf("\n");
    }
    free(base);
    MPI_Finalize();
    return 0;
}
