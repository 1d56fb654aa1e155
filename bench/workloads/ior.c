/*
 * ior: IOR's segmented pattern, `ior -a MPIIO -c -t B -b B -s S`:
 * segment k holds every rank's block of B bytes, rank r's at (k p + r) B,
 * and each block is one collective call at its offset (no file view), as
 * IOR makes them: the per-call cost of small calls, where `interleaved`
 * moves the same bytes in one call. B from --block (default 64 B);
 * S = 1, 16 or 256 MiB per rank / B.
 */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int64_t block = p->block > 0 ? p->block : 64;
    int64_t per_rank = pick(p->size, 1 << 20, 16 << 20, (int64_t)256 << 20);
    int64_t segments = per_rank / block > 0 ? per_rank / block : 1;
    if (bench_interleave(block, segments * block * nprocs, rank, nprocs, a, err, errlen) != 0)
        return -1;
    a->call_per_piece = 1;
    snprintf(a->desc, sizeof a->desc, "IOR segments: %lld collective calls of %lld bytes per rank", (long long)segments,
             (long long)block);
    return 0;
}

const bench_workload_t bench_workload_ior = {
    .name = "ior",
    .help = "IOR's segmented pattern, one collective call per block (--block, default 64 B); 1/16/256 MiB per rank",
    .generate = generate,
    .uses_block = 1,
};
