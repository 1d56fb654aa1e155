/* collperf: ROMIO's coll_perf test, a 3-D block-distributed darray of ints. */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int n = (int)pick(p->size, 64, 128, 256), dims[3] = {0, 0, 0};
    MPI_Dims_create(nprocs, 3, dims);
    int coords[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
    /* MPI_DISTRIBUTE_BLOCK with the default block: ceil(n / p) per process */
    int64_t s[3], c[3];
    for (int d = 0; d < 3; d++) {
        int64_t b = (n + dims[d] - 1) / dims[d];
        s[d] = coords[d] * b;
        c[d] = s[d] >= n ? 0 : (s[d] + b > n ? n - s[d] : b);
    }
    if (bench_access_alloc(a, c[0] * c[1] + 1) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int64_t x = s[0]; x < s[0] + c[0]; x++)
        for (int64_t y = s[1]; y < s[1] + c[1]; y++)
            bench_access_push(a, ((x * n + y) * n + s[2]) * 4, c[2] * 4);
    int g[3] = {n, n, n}, dist[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int darg[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(nprocs, rank, 3, g, dist, darg, dims, MPI_ORDER_C, MPI_INT, &a->filetype);
    MPI_Type_commit(&a->filetype);
    snprintf(a->desc, sizeof a->desc, "%d^3 ints, darray block^3 on %dx%dx%d", n, dims[0], dims[1], dims[2]);
    return 0;
}

const bench_workload_t bench_workload_collperf = {
    .name = "collperf",
    .help = "ROMIO coll_perf: 3-D block darray of ints, 64^3/128^3/256^3",
    .generate = generate,
};
