/* cube: TATP's benchmark, an N^3 array of doubles, one sub-cube per process, row-major file (Liu et al. Sec. 5). */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int n = (int)pick(p->size, 64, 128, 256), dims[3] = {0, 0, 0}, coords[3], sub[3], start[3];
    MPI_Dims_create(nprocs, 3, dims);
    coords[0] = rank / (dims[1] * dims[2]);
    coords[1] = rank / dims[2] % dims[1];
    coords[2] = rank % dims[2];
    int64_t s[3], c[3];
    for (int d = 0; d < 3; d++) {
        block_range(n, dims[d], coords[d], &s[d], &c[d]);
        start[d] = (int)s[d], sub[d] = (int)c[d];
    }
    if (bench_access_alloc(a, c[0] * c[1] + 1) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int64_t x = s[0]; x < s[0] + c[0]; x++)
        for (int64_t y = s[1]; y < s[1] + c[1]; y++)
            bench_access_push(a, ((x * n + y) * n + s[2]) * 8, c[2] * 8);
    int sizes[3] = {n, n, n};
    if (c[0] * c[1] * c[2] > 0) {
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &a->filetype);
        MPI_Type_commit(&a->filetype);
    }
    snprintf(a->desc, sizeof a->desc, "%d^3 doubles, %dx%dx%d process grid", n, dims[0], dims[1], dims[2]);
    return 0;
}

const bench_workload_t bench_workload_cube = {
    .name = "cube",
    .help = "TATP cube: N^3 doubles (64/128/256), one sub-cube per process, row-major file",
    .generate = generate,
};
