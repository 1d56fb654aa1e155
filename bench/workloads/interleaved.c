/* interleaved: rank i writes block i of every p blocks (the worst case for small pieces). */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

int bench_interleave(int64_t block, int64_t total, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int64_t nblocks = total / block, mine = nblocks > rank ? (nblocks - rank + nprocs - 1) / nprocs : 0;
    if (bench_access_alloc(a, mine) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int64_t k = 0; k < mine; k++)
        bench_access_push(a, (rank + k * nprocs) * block, block);
    MPI_Datatype v;
    MPI_Type_vector((int)mine, (int)block, (int)(nprocs * block), MPI_BYTE, &v);
    MPI_Type_commit(&v);
    a->filetype = v;
    a->disp = rank * block;
    return 0;
}

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int64_t block = p->block > 0 ? p->block : 64;
    int64_t total = pick(p->size, 8 << 20, 64 << 20, (int64_t)512 << 20);
    if (bench_interleave(block, total, rank, nprocs, a, err, errlen) != 0)
        return -1;
    snprintf(a->desc, sizeof a->desc, "%lld-byte blocks dealt round-robin, %lld MiB", (long long)block,
             (long long)(total >> 20));
    return 0;
}

const bench_workload_t bench_workload_interleaved = {
    .name = "interleaved",
    .help = "rank i writes block i of every p blocks (--block, default 64 B); 8/64/512 MiB",
    .generate = generate,
    .uses_block = 1,
};
