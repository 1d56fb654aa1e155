/* 2+ ranks write interleaved blocks of B bytes with G-byte holes between blocks (file opened read-write,
   holes keep the old content); times colio_write_all, best and median of R. usage: holes PATH B G TOTAL R */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "colio.h"
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &p);
    long B = atol(argv[2]), G = atol(argv[3]), total = atol(argv[4]); int R = atoi(argv[5]);
    long n = total / B / p;
    MPI_Datatype v, ft;
    MPI_Type_vector((int)n, (int)B, (int)(p * (B + G)), MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, n * p * (B + G), &ft); MPI_Type_commit(&ft);
    char *buf = malloc(n * B); memset(buf, 'a' + r, n * B);
    colio_file *f;
    if (r == 0) { FILE *x = fopen(argv[1], "w"); fclose(x); }
    MPI_Barrier(MPI_COMM_WORLD);
    colio_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR, MPI_INFO_NULL, &f);
    colio_set_view(f, r * (B + G), MPI_BYTE, ft, MPI_INFO_NULL);
    double *t = malloc(sizeof(double) * R);
    for (int i = 0; i < R; i++) {
        MPI_Barrier(MPI_COMM_WORLD); double t0 = MPI_Wtime();
        int rc = colio_write_all(f, buf, (int)(n * B), MPI_BYTE, MPI_STATUS_IGNORE);
        double d = MPI_Wtime() - t0; MPI_Allreduce(&d, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rc) { printf("rc %d\n", rc); MPI_Abort(MPI_COMM_WORLD, 1); }
        colio_seek(f, 0, MPI_SEEK_SET);
    }
    qsort(t, R, sizeof *t, cmp);
    if (r == 0) printf("B %ld G %ld: best %.4f median %.4f s\n", B, G, t[0], t[R / 2]);
    colio_close(&f); MPI_Finalize(); return 0;
}
