/*
 * Balanced spread-out (Kang et al. SC20, Algorithm 2). Receiver j of the
 * |R| receivers starts at position r_index(j) of the rank list: the first
 * q = p mod |R| receivers are ceil(p/|R|) positions apart, the rest
 * floor(p/|R|), so the receivers begin with different senders spread over
 * the whole list instead of all senders above the last receiver hitting it
 * first (the straggler effect of Sec. III). At step i receiver j receives
 * from rank_list[(r_index(j) + i) mod p]; the sender s therefore reaches
 * receiver j at step (pos(s) - r_index(j)) mod p.
 */
#include "base/hints.h"
#include "exchange/kernels.h"

int64_t colio_balanced_r_index(int64_t p, int64_t nr, int64_t j)
{
    int64_t q = p % nr, hi = (p + nr - 1) / nr, lo = p / nr;
    return j < q ? hi * j : hi * q + (j - q) * lo;
}

int64_t colio_balanced_step(const colio_xchg_t *x, int src, int dst)
{
    int j, nr;
    colio_sched_receiver(x, dst, &j, &nr);
    int64_t p = x->nprocs, pos = x->ctx && x->ctx->list_pos ? x->ctx->list_pos[src] : src;
    return (pos - colio_balanced_r_index(p, nr, j) % p + p) % p;
}

static int balanced_start(colio_xchg_t *x)
{
    return colio_sched_start(x, colio_balanced_step, colio_sched_throttle_window(x), COLIO_XCHG_SSEND);
}

static int rank_list_valid(const char *name) { return colio_rank_list_valid(name) == 0; }

static const colio_hint_def_t balanced_hints[] = {
    {"colio_rank_list", COLIO_HINT_NAME, COLIO_HINT_FIELD(rank_list), 0, 0, rank_list_valid, "linear",
     "balanced: order of the senders, linear (0..p-1) or node (round-robin over nodes)"},
    {0},
};

const colio_xchg_ops_t colio_xchg_balanced = {
    .name = "balanced",
    .hints = balanced_hints,
    .start = balanced_start,
    .progress = colio_sched_progress,
    .cleanup = colio_xchg_reset,
};
