/*
 * ROMIO's post-everything kernel with synchronous sends (Kang et al. SC20,
 * Sec. IV-A): an Issend completes only once the receiver has matched it, so
 * a sender cannot run rounds ahead of its aggregators and pile up buffered
 * small messages (request contention at senders), without a barrier.
 */
#include "exchange/kernels.h"

static int issend_start(colio_xchg_t *x) { return colio_xchg_post_all(x, COLIO_XCHG_SSEND); }

const colio_xchg_ops_t colio_xchg_issend = {
    .name = "issend",
    .start = issend_start,
    .progress = colio_xchg_testall,
    .cleanup = colio_xchg_reset,
};
