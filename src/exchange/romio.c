/*
 * ROMIO's kernel: post every Irecv, then every Isend, in ascending rank
 * order, and wait for all of them at once (Kang et al. SC20, Sec. V, "ROMIO
 * default"). No throttling: every message is in flight at the same time.
 */
#include "exchange/kernels.h"

static int romio_start(colio_xchg_t *x)
{
    if (colio_xchg_reserve(x, x->nrecvs + x->nsends) != 0)
        return COLIO_ERR_NOMEM;
    for (int i = 0; i < x->nrecvs; i++)
        if (colio_xchg_post(x, &x->recvs[i], COLIO_XCHG_RECV) != 0)
            return COLIO_ERR_MPI;
    for (int i = 0; i < x->nsends; i++)
        if (colio_xchg_post(x, &x->sends[i], COLIO_XCHG_SEND) != 0)
            return COLIO_ERR_MPI;
    return 0;
}

static int romio_progress(colio_xchg_t *x, int *done_p) { return colio_xchg_testall(x, done_p); }

static void romio_cleanup(colio_xchg_t *x) { x->nreqs = 0; }

const colio_xchg_ops_t colio_xchg_romio = {
    .name = "romio",
    .start = romio_start,
    .progress = romio_progress,
    .cleanup = romio_cleanup,
};
