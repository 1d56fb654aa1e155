/* Open, 16 reads of 1 MiB at IOR's segmented offsets, close, 50 times after one write of the file: each part's
 * time on the slowest rank (mean and best over the 50). Through MPI-IO (run it bare, or with LD_PRELOAD=libcolio_mpiio.so), or with
 * -DUSE_COLIO through colio's API:
 *   mpicc.openmpi -O2 open-read-close.c -o orc
 *   mpicc.openmpi -O2 -DUSE_COLIO -I include open-read-close.c -o orc-colio -L build/openmpi -lcolio -Wl,-rpath,$PWD/build/openmpi
 *   mpiexec.openmpi -n 2 --bind-to core ./orc /dev/shm/orc.dat */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef USE_COLIO
#include "colio.h"
#define FILE_T colio_file *
#define OPEN(path, mode, fh) colio_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, fh)
#define WRITE(fh, off, buf, n) colio_write_at_all(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
#define READ(fh, off, buf, n) colio_read_at_all(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
#define CLOSE(fh) colio_close(fh)
#else
#define FILE_T MPI_File
#define OPEN(path, mode, fh) MPI_File_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, fh)
#define WRITE(fh, off, buf, n) MPI_File_write_at_all(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
#define READ(fh, off, buf, n) MPI_File_read_at_all(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
#define CLOSE(fh) MPI_File_close(fh)
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p, calls = 16, reps = 50, n = 1 << 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char *buf = calloc((size_t)calls, (size_t)n);
    FILE_T fh;
    OPEN(argv[1], MPI_MODE_WRONLY | MPI_MODE_CREATE, &fh);
    for (int i = 0; i < calls; i++)
        WRITE(fh, ((MPI_Offset)i * p + r) * n, buf + (size_t)i * n, n);
    CLOSE(&fh);
    double sum[3] = {0}, best[3] = {1e9, 1e9, 1e9};
    for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t[4];
        t[0] = MPI_Wtime();
        OPEN(argv[1], MPI_MODE_RDONLY, &fh);
        t[1] = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            READ(fh, ((MPI_Offset)i * p + r) * n, buf + (size_t)i * n, n);
        t[2] = MPI_Wtime();
        CLOSE(&fh);
        t[3] = MPI_Wtime();
        double mine[3] = {t[1] - t[0], t[2] - t[1], t[3] - t[2]}, d[3];
        MPI_Allreduce(mine, d, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* each part's slowest rank */
        for (int j = 0; j < 3; j++) {
            sum[j] += d[j];
            best[j] = d[j] < best[j] ? d[j] : best[j];
        }
    }
    if (r == 0)
        printf("open mean %.1f best %.1f us, reads mean %.1f best %.1f us, close mean %.1f best %.1f us\n",
               sum[0] / reps * 1e6, best[0] * 1e6, sum[1] / reps * 1e6, best[1] * 1e6, sum[2] / reps * 1e6, best[2] * 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
