/* Registry of exchange kernels and the request plumbing they share. */
#include "exchange/xchg.h"

#include <stdlib.h>
#include <string.h>

#include "exchange/kernels.h"

/* The only list of kernels: add one line per new kernel. */
static const colio_xchg_ops_t *const registry[] = {
    &colio_xchg_romio, &colio_xchg_issend, &colio_xchg_spread, &colio_xchg_balanced, &colio_xchg_pairwise,
    &colio_xchg_tam, &colio_xchg_rma,
};

#define N_KERNELS ((int)(sizeof registry / sizeof registry[0]))

const colio_xchg_ops_t *colio_xchg_find(const char *name)
{
    for (int i = 0; i < N_KERNELS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *colio_xchg_name(int i) { return i >= 0 && i < N_KERNELS ? registry[i]->name : NULL; }

int64_t colio_xchg_extra_requests(const colio_xchg_ops_t *k, const colio_xchg_ctx_t *c, int rank)
{
    return k && k->extra_requests ? k->extra_requests(c, rank) : 0;
}

size_t colio_xchg_scratch_bytes(const colio_xchg_ops_t *k, const colio_xchg_ctx_t *c, int rank)
{
    return k && k->scratch_bytes ? k->scratch_bytes(c, rank) : 0;
}

int colio_xchg_every_round(const colio_xchg_ops_t *k, const colio_xchg_ctx_t *c, int rank)
{
    return k && k->every_round ? k->every_round(c, rank) : 0;
}

#define CHUNK ((int64_t)1 << 30) /* MPI counts are int: large messages go in pieces */

int colio_xchg_chunks(int64_t len) { return (int)((len + CHUNK - 1) / CHUNK); }

int colio_xchg_reserve(colio_xchg_t *x, int n)
{
    if (x->nreqs + n <= x->cap)
        return 0;
    int cap = x->cap ? x->cap : 16;
    while (cap < x->nreqs + n)
        cap *= 2;
    MPI_Request *r = realloc(x->reqs, sizeof *r * (size_t)cap);
    if (r == NULL)
        return COLIO_ERR_NOMEM;
    x->reqs = r;
    int64_t *o = realloc(x->order, sizeof *o * (size_t)cap);
    if (o == NULL)
        return COLIO_ERR_NOMEM;
    x->order = o;
    int *d = realloc(x->done_idx, sizeof *d * (size_t)cap);
    if (d == NULL)
        return COLIO_ERR_NOMEM;
    x->done_idx = d;
    x->cap = cap;
    return 0;
}

int colio_xchg_reserve_scratch(colio_xchg_t *x, size_t bytes)
{
    if (bytes <= x->scratch_cap)
        return 0;
    void *s = realloc(x->scratch, bytes);
    if (s == NULL)
        return COLIO_ERR_NOMEM;
    x->scratch = s;
    x->scratch_cap = bytes;
    return 0;
}

int colio_xchg_waitsome(colio_xchg_t *x)
{
    int outcount;
    if (x->nreqs == 0)
        return 0;
    return MPI_Waitsome(x->nreqs, x->reqs, &outcount, x->done_idx, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? 0 : COLIO_ERR_MPI;
}

static int post_one(colio_xchg_t *x, void *p, int count, MPI_Datatype type, int peer, int kind, int tag,
                    MPI_Request *r)
{
    if (kind == COLIO_XCHG_RECV)
        return MPI_Irecv(p, count, type, peer, tag, x->comm, r);
    if (kind == COLIO_XCHG_SSEND)
        return MPI_Issend(p, count, type, peer, tag, x->comm, r);
    return MPI_Isend(p, count, type, peer, tag, x->comm, r);
}

int colio_xchg_post_tag(colio_xchg_t *x, const colio_xchg_msg_t *m, int kind, int tagoff)
{
    int tag = x->tag + tagoff;
    x->nmsgs++;
    if (m->type != MPI_BYTE) { /* a derived datatype: one message */
        if (colio_xchg_reserve(x, 1) != 0)
            return COLIO_ERR_NOMEM;
        if (post_one(x, m->buf, 1, m->type, m->peer, kind, tag, &x->reqs[x->nreqs]) != MPI_SUCCESS)
            return COLIO_ERR_MPI;
        x->nreqs++;
        return 0;
    }
    int n = colio_xchg_chunks(m->len);
    if (colio_xchg_reserve(x, n) != 0)
        return COLIO_ERR_NOMEM;
    for (int c = 0; c < n; c++) {
        char *p = m->buf + (int64_t)c * CHUNK;
        int len = (int)(m->len - (int64_t)c * CHUNK < CHUNK ? m->len - (int64_t)c * CHUNK : CHUNK);
        if (post_one(x, p, len, MPI_BYTE, m->peer, kind, tag, &x->reqs[x->nreqs]) != MPI_SUCCESS)
            return COLIO_ERR_MPI;
        x->nreqs++;
    }
    return 0;
}

int colio_xchg_post_all(colio_xchg_t *x, int send_kind)
{
    if (colio_xchg_reserve(x, x->nrecvs + x->nsends) != 0)
        return COLIO_ERR_NOMEM;
    for (int i = 0; i < x->nrecvs; i++)
        if (colio_xchg_post(x, &x->recvs[i], COLIO_XCHG_RECV) != 0)
            return COLIO_ERR_MPI;
    for (int i = 0; i < x->nsends; i++)
        if (colio_xchg_post(x, &x->sends[i], send_kind) != 0)
            return COLIO_ERR_MPI;
    colio_xchg_note_inflight(x);
    return 0;
}

void colio_xchg_reset(colio_xchg_t *x)
{
    x->nreqs = 0;
    x->norder = x->next = 0;
}

void colio_xchg_note_inflight(colio_xchg_t *x)
{
    if (x->nreqs > x->max_reqs)
        x->max_reqs = x->nreqs;
}

int colio_xchg_testall(colio_xchg_t *x, int *done_p)
{
    int flag = 1;
    if (x->nreqs > 0 && MPI_Testall(x->nreqs, x->reqs, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return COLIO_ERR_MPI;
    if (flag)
        x->nreqs = 0;
    *done_p = flag;
    return 0;
}

void colio_xchg_free_reqs(colio_xchg_t *x)
{
    free(x->reqs);
    free(x->order);
    free(x->done_idx);
    free(x->scratch);
    x->reqs = NULL;
    x->order = NULL;
    x->done_idx = NULL;
    x->scratch = NULL;
    x->scratch_cap = 0;
    x->nreqs = x->cap = 0;
}
