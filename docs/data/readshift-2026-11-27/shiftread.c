/*
 * One rank reads BYTES from offset 0 of a tmpfs file with colio_read_at_all
 * into memory SHIFT bytes past a page (0, 16, 48: the destination's shift
 * against the file offset modulo 64), best of 9, and checks the bytes.
 * Build: mpicc -O2 -Iinclude shiftread.c -Lbuild/X -lcolio -o shiftread
 * usage: shiftread PATH [BYTES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colio.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *path = argc > 1 ? argv[1] : "/dev/shm/shiftread.dat";
    int bytes = argc > 2 ? atoi(argv[2]) : 10 << 20;
    char *src = malloc((size_t)bytes), *mem;
    if (posix_memalign((void **)&mem, 4096, (size_t)bytes + 4096) != 0)
        return 1;
    for (int i = 0; i < bytes; i++)
        src[i] = (char)(i * 13 + (i >> 9));
    colio_file *f;
    if (colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f) != 0)
        return 1;
    colio_write_at_all(f, 0, src, bytes, MPI_BYTE, MPI_STATUS_IGNORE);
    const int shifts[] = {0, 16, 48};
    for (int s = 0; s < 3; s++) {
        double best = 1e30;
        for (int r = 0; r < 9; r++) {
            memset(mem, 0, (size_t)bytes + 4096);
            double t = MPI_Wtime();
            colio_read_at_all(f, 0, mem + shifts[s], bytes, MPI_BYTE, MPI_STATUS_IGNORE);
            t = MPI_Wtime() - t;
            best = t < best ? t : best;
            if (memcmp(mem + shifts[s], src, (size_t)bytes) != 0) {
                fprintf(stderr, "shiftread: wrong bytes at shift %d\n", shifts[s]);
                return 2;
            }
        }
        printf("shift %2d: %8.3f ms  %6.2f GB/s\n", shifts[s], best * 1e3, bytes / best / 1e9);
    }
    colio_close(&f);
    MPI_Finalize();
    return 0;
}
