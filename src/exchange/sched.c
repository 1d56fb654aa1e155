/*
 * The scheduler shared by the stepped kernels (spread-out, balanced
 * spread-out, pairwise): every message gets a step from the kernel's step
 * function, identical on both sides, and messages are posted one window of
 * steps at a time, receives before sends, with a wait for the whole window
 * in between. A window of T steps holds at most T receives and T sends:
 * that is the throttle of Kang et al. SC20, Sec. IV-B (MPICH's Alltoallv
 * posts its Irecvs in groups the same way).
 */
#include <stdlib.h>

#include "exchange/xchg.h"

/* order[] entries: step in the high 32 bits, then send (1) / receive (0), then the message index. */
#define ENTRY(step, send, idx) (((int64_t)(step) << 32) | ((int64_t)(send) << 31) | (int64_t)(idx))
#define ENTRY_STEP(e) ((e) >> 32)
#define ENTRY_SEND(e) ((int)(((e) >> 31) & 1))
#define ENTRY_IDX(e) ((int)((e) & 0x7fffffff))

static int by_entry(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t colio_sched_throttle_window(const colio_xchg_t *x)
{
    int t = x->ctx ? x->ctx->throttle : 0;
    return t > 0 ? t : x->nprocs;
}

void colio_sched_receiver(const colio_xchg_t *x, int dst, int *j, int *nr)
{
    if (x->to_aggs && x->ctx && x->ctx->agg_index) {
        *j = x->ctx->agg_index[dst];
        *nr = x->ctx->naggs;
    } else {
        *j = dst;
        *nr = x->nprocs;
    }
}

/* Post every message of the window holding order[x->next]. */
static int post_window(colio_xchg_t *x)
{
    int64_t w = ENTRY_STEP(x->order[x->next]) / x->window;
    for (; x->next < x->norder && ENTRY_STEP(x->order[x->next]) / x->window == w; x->next++) {
        int64_t e = x->order[x->next];
        int send = ENTRY_SEND(e);
        const colio_xchg_msg_t *m = send ? &x->sends[ENTRY_IDX(e)] : &x->recvs[ENTRY_IDX(e)];
        if (colio_xchg_post(x, m, send ? x->send_kind : COLIO_XCHG_RECV) != 0)
            return COLIO_ERR_MPI;
    }
    colio_xchg_note_inflight(x);
    return 0;
}

int colio_sched_start(colio_xchg_t *x, colio_step_fn step, int64_t window, int send_kind)
{
    /* the engine reserved room for every message's requests, so order[] holds them all */
    if (colio_xchg_reserve(x, x->nrecvs + x->nsends) != 0)
        return COLIO_ERR_NOMEM;
    x->norder = x->next = 0;
    x->window = window > 0 ? window : 1;
    x->send_kind = send_kind;
    for (int i = 0; i < x->nrecvs; i++)
        x->order[x->norder++] = ENTRY(step(x, x->recvs[i].peer, x->rank), 0, i);
    for (int i = 0; i < x->nsends; i++)
        x->order[x->norder++] = ENTRY(step(x, x->rank, x->sends[i].peer), 1, i);
    if (x->norder > 1) /* order is NULL while nothing was ever reserved */
        qsort(x->order, (size_t)x->norder, sizeof *x->order, by_entry);
    return x->norder > 0 ? post_window(x) : 0;
}

int colio_sched_progress(colio_xchg_t *x, int *done_p)
{
    int rc = colio_xchg_testall(x, done_p);
    if (rc != 0 || !*done_p)
        return rc;
    if (x->next < x->norder) { /* the window is complete: the next one */
        *done_p = 0;
        return post_window(x);
    }
    return 0;
}
