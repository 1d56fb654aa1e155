/*
 * btio: NAS BTIO (Kang et al. Sec. V-C), an N^3 grid of cells of 5 doubles,
 * Fortran order, on a square number of processes p = q^2 in the diagonal
 * multi-partition: process (i, j) owns the q cell blocks ((i+k) mod q,
 * (j+k) mod q, k), one in every slab of every direction.
 */
#include <math.h>
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int q = (int)(sqrt((double)nprocs) + 0.5);
    if (q * q != nprocs)
        return snprintf(err, errlen, "btio needs a square number of processes, not %d", nprocs), -1;
    int64_t n = pick(p->size, 32, 64, 102), cell = 40;
    int i = rank / q, j = rank % q;
    int64_t pieces = 0;
    for (int k = 0; k < q; k++) {
        int64_t s, c;
        block_range(n, q, k, &s, &c);
        pieces += c * ((n + q - 1) / q);
    }
    if (bench_access_alloc(a, pieces + 1) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int k = 0; k < q; k++) {
        int64_t xs, xc, ys, yc, zs, zc;
        block_range(n, q, (i + k) % q, &xs, &xc);
        block_range(n, q, (j + k) % q, &ys, &yc);
        block_range(n, q, k, &zs, &zc);
        for (int64_t z = zs; z < zs + zc; z++)
            for (int64_t y = ys; y < ys + yc; y++)
                bench_access_push(a, ((z * n + y) * n + xs) * cell, xc * cell);
    }
    snprintf(a->desc, sizeof a->desc, "%lld^3 cells of 5 doubles, diagonal multi-partition on %dx%d", (long long)n, q, q);
    return 0;
}

/* BTIO runs on the largest square number of the ranks. */
static int square_ranks(int nprocs)
{
    int q = (int)sqrt((double)nprocs);
    while ((q + 1) * (q + 1) <= nprocs)
        q++;
    while (q * q > nprocs)
        q--;
    return q * q;
}

const bench_workload_t bench_workload_btio = {
    .name = "btio",
    .help = "NAS BTIO: N^3 cells (32/64/102) of 5 doubles, diagonal multi-partition, on the largest square rank count",
    .generate = generate,
    .ranks = square_ranks,
};
