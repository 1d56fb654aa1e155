/* Block decomposition of a dimension, shared by the grid workloads. */
#ifndef COLIO_BENCH_GRID_H
#define COLIO_BENCH_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "../bench.h"

/* Rank r's blocks of `block` bytes at (r + k p) * block, k = 0.. while under total bytes (interleaved.c). */
int bench_interleave(int64_t block, int64_t total, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen);

/* Part i of n parts of [0, len): first n % parts get one more. */
static inline void block_range(int64_t len, int parts, int i, int64_t *start, int64_t *count)
{
    int64_t base = len / parts, extra = len % parts;
    *start = i * base + (i < extra ? i : extra);
    *count = base + (i < extra);
}

static inline int64_t pick(int size, int64_t small, int64_t medium, int64_t large)
{
    return size == 0 ? small : (size == 1 ? medium : large);
}

#endif
