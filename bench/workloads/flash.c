/*
 * flash: the FLASH-IO checkpoint (Kang et al. Sec. V-B): 24 variables, each
 * an array of blocks of nxb^3 doubles; each process owns the same number of
 * consecutive blocks (weak scaling), so it writes one run per variable.
 */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    const int nvars = 24;
    int64_t nxb = pick(p->size, 8, 8, 16), blocks = pick(p->size, 20, 80, 80);
    int64_t bsize = nxb * nxb * nxb * 8, total_blocks = blocks * nprocs;
    if (bench_access_alloc(a, nvars) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int v = 0; v < nvars; v++)
        bench_access_push(a, (v * total_blocks + rank * blocks) * bsize, blocks * bsize);
    snprintf(a->desc, sizeof a->desc, "24 variables, %lld blocks of %lld^3 doubles per rank", (long long)blocks,
             (long long)nxb);
    return 0;
}

const bench_workload_t bench_workload_flash = {
    .name = "flash",
    .help = "FLASH-IO checkpoint: 24 variables of 8^3-double blocks, 20/80 blocks per rank (large: 16^3)",
    .generate = generate,
};
