/*
 * Pairwise exchange (Kang et al. SC20, Fig. 3c): one partner at a time, the
 * next step only when this one is complete, as a loop of MPI_Sendrecv would
 * do. Each step is an Irecv and an Isend completed together (the same
 * blocking semantics, but driven by progress calls so nonblocking operations
 * keep working). With p a power of two the partner at step i is rank XOR i
 * (one exchange partner per step, as MPICH's pairwise Alltoall); otherwise
 * rank + i sends to rank and rank sends to rank - i. Steps in which a rank
 * has nothing to move are skipped locally.
 */
#include "exchange/kernels.h"

int64_t colio_pairwise_step(const colio_xchg_t *x, int src, int dst)
{
    int p = x->nprocs;
    if ((p & (p - 1)) == 0)
        return src ^ dst;
    return ((int64_t)src - dst + p) % p;
}

static int pairwise_start(colio_xchg_t *x) { return colio_sched_start(x, colio_pairwise_step, 1, COLIO_XCHG_SEND); }

const colio_xchg_ops_t colio_xchg_pairwise = {
    .name = "pairwise",
    .start = pairwise_start,
    .progress = colio_sched_progress,
    .cleanup = colio_xchg_reset,
};
