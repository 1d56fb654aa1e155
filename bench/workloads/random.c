/* random: TAPIOCA's micro-benchmark, each rank one contiguous chunk of a random size (Tessier et al. Sec. 5). */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

/* Rank r's chunk size: a hash of the seed and r, so any rank can compute any other's. */
static int64_t chunk_bytes(uint64_t seed, int r, int64_t max)
{
    uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(r + 1) * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (int64_t)(x % (uint64_t)(max + 1));
}

/* Chunks lie in rank order; the offset is summed locally, so colio-place (every rank in one process) gets the
 * same layout as a parallel run, and the simulator no message per pair of ranks. */
static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    (void)nprocs;
    int64_t max = pick(p->size, 256 << 10, 2 << 20, 16 << 20), bytes = chunk_bytes(p->seed, rank, max), off = 0;
    for (int r = 0; r < rank; r++)
        off += chunk_bytes(p->seed, r, max);
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
