/* random: TAPIOCA's micro-benchmark, each rank one contiguous chunk of a random size (Tessier et al. Sec. 5). */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    (void)nprocs;
    int64_t max = pick(p->size, 256 << 10, 2 << 20, 16 << 20);
    uint64_t x = (p->seed + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(rank + 1) * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    int64_t bytes = (int64_t)(x % (uint64_t)(max + 1)), off = 0;
    MPI_Exscan(&bytes, &off, 1, MPI_INT64_T, MPI_SUM, p->comm);
    if (rank == 0)
        off = 0;
    if (bench_access_alloc(a, 1) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    bench_access_push(a, off, bytes);
    MPI_Type_contiguous((int)bytes, MPI_BYTE, &a->filetype);
    MPI_Type_commit(&a->filetype);
    a->disp = off;
    snprintf(a->desc, sizeof a->desc, "one contiguous chunk per rank, 0..%lld KiB", (long long)(max >> 10));
    return 0;
}

const bench_workload_t bench_workload_random = {
    .name = "random",
    .help = "TAPIOCA micro-benchmark: each rank one contiguous chunk of random size, up to 256 KiB/2 MiB/16 MiB",
    .generate = generate,
};
