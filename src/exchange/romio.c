/*
 * ROMIO's kernel: post every Irecv, then every Isend, in ascending rank
 * order, and wait for all of them at once (Kang et al. SC20, Sec. V, "ROMIO
 * default"). No throttling: every message is in flight at the same time.
 */
#include "exchange/kernels.h"

static int romio_start(colio_xchg_t *x) { return colio_xchg_post_all(x, COLIO_XCHG_SEND); }

const colio_xchg_ops_t colio_xchg_romio = {
    .name = "romio",
    .start = romio_start,
    .progress = colio_xchg_testall,
    .cleanup = colio_xchg_reset,
};
