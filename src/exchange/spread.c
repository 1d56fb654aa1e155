/*
 * Spread-out (Kang et al. SC20, Algorithm 1, as in MPICH's Alltoallv):
 * receiver r receives from (r + i) mod p at step i, so the sender s reaches
 * receiver d at step (s - d) mod p. Throttled windows and Issend (Sec. IV).
 */
#include "exchange/kernels.h"

int64_t colio_spread_step(const colio_xchg_t *x, int src, int dst)
{
    return ((int64_t)src - dst + x->nprocs) % x->nprocs;
}

static int spread_start(colio_xchg_t *x)
{
    return colio_sched_start(x, colio_spread_step, colio_sched_throttle_window(x), COLIO_XCHG_SSEND);
}

const colio_xchg_ops_t colio_xchg_spread = {
    .name = "spread",
    .start = spread_start,
    .progress = colio_sched_progress,
    .cleanup = colio_xchg_reset,
};
