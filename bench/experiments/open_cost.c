/*
 * open-cost: what MPI_File_open and MPI_File_close cost, run bare and with
 * libcolio_mpiio preloaded to see what colio adds. Each rank opens PATH
 * (create, read-write) and closes it, REPEAT times after one untimed round;
 * rank 0 prints the median and the minimum of each call, the slowest rank's
 * time in every round. OPEN_COST_THREADS=multiple initialises MPI with
 * MPI_THREAD_MULTIPLE.
 * usage: mpiexec -n P open-cost PATH [REPEAT]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool_init.h"

static double slowest(double t)
{
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    printf("%-6s median %.3f ms  min %.3f ms  max %.3f ms  (%d opens)\n", what, t[n / 2] * 1e3, t[0] * 1e3,
           t[n - 1] * 1e3, n);
}

int main(int argc, char **argv)
{
    tool_mpi_init(&argc, &argv, "OPEN_COST_THREADS");
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: open-cost PATH [REPEAT]\n");
        MPI_Finalize();
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 20;
    if (repeat < 1)
        repeat = 1;
    double *topen = malloc(sizeof(double) * (size_t)repeat), *tclose = malloc(sizeof(double) * (size_t)repeat);
    for (int i = -1; i < repeat; i++) {
        MPI_File fh;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        double t1 = slowest(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_File_close(&fh);
        double t2 = slowest(MPI_Wtime() - t0);
        if (i >= 0)
            topen[i] = t1, tclose[i] = t2;
    }
    if (rank == 0) {
        printf("open-cost on %d ranks, %s\n", nprocs, argv[1]);
        report("open", topen, repeat);
        report("close", tclose, repeat);
    }
    free(topen), free(tclose);
    MPI_Finalize();
    return 0;
}
