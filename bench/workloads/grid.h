/* Block decomposition of a dimension, shared by the grid workloads. */
#ifndef COLIO_BENCH_GRID_H
#define COLIO_BENCH_GRID_H

#include <stdint.h>

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
