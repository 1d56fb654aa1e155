/*
 * One-sided exchange (TAPIOCA, Tessier et al., Sec. 4.3: aggregators expose
 * their buffers as MPI windows and the other ranks MPI_Put into them). The
 * file has one dynamic window (fh->cfg.win, created while the hints select
 * this kernel); the engine attaches the memory of an operation and gives the
 * origin side of each message its target displacement and datatype.
 *
 * Who is origin: for data writes the requesters put into the aggregators'
 * collective buffers (x->sends are puts, x->recvs are the aggregator's
 * exposed peers); for data reads the requesters get from them and for the
 * metadata the aggregators get the run lists from the requesters
 * (x->rma_get: x->recvs are gets, x->sends are exposed).
 *
 * Synchronization is general active target (PSCW), one epoch pair per
 * exchange: the target posts to the group of its origins, the origin starts
 * an access epoch to the group of its targets, puts or gets, and completes;
 * the target learns with MPI_Win_test in progress() that every origin has
 * completed (it never blocks there). MPI_Win_complete blocks until the
 * transfers are done at the origin and may wait for the targets' posts.
 *
 * Deadlock freedom: every rank posts its exposure epoch before it starts
 * its access epoch of the same exchange, so an origin blocked in
 * MPI_Win_complete waits only for targets that reach the same exchange.
 * Exchanges are matched in order: the metadata exchange once, then rounds in
 * ascending round number, each pair of ranks taking part in exactly the same
 * rounds on both sides (both compute them from the same run lists), so the
 * k-th post of a target that names an origin matches that origin's k-th
 * start naming the target. Take the lowest exchange any rank is blocked in:
 * every rank behind it only waits for ranks in earlier exchanges, which are
 * not blocked, so it gets there and posts, which releases the blocked rank.
 */
#include <stdlib.h>

#include "exchange/kernels.h"

#define CHUNK ((int64_t)1 << 30) /* MPI counts are int: long contiguous transfers go in pieces */

/* A group of the peers of msgs[0..n) (distinct, sorted by peer) in x->comm. */
static int peer_group(const colio_xchg_t *x, const colio_xchg_msg_t *msgs, int n, MPI_Group *g)
{
    int *ranks = malloc(sizeof(int) * (size_t)n);
    MPI_Group all;
    if (ranks == NULL)
        return COLIO_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        ranks[i] = msgs[i].peer;
    int rc = MPI_Comm_group(x->comm, &all);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_incl(all, n, ranks, g);
        MPI_Group_free(&all);
    }
    free(ranks);
    return rc == MPI_SUCCESS ? 0 : COLIO_ERR_MPI;
}

static int transfer(colio_xchg_t *x, void *buf, int count, MPI_Datatype type, const colio_xchg_msg_t *m,
                    MPI_Aint tdisp, int tcount, MPI_Datatype ttype)
{
    if (x->rma_get)
        return MPI_Get(buf, count, type, m->peer, tdisp, tcount, ttype, x->win);
    return MPI_Put(buf, count, type, m->peer, tdisp, tcount, ttype, x->win);
}

/* One message from the origin side: a derived type on either side goes as one call. */
static int move_one(colio_xchg_t *x, const colio_xchg_msg_t *m)
{
    x->nmsgs++;
    if (m->type != MPI_BYTE || m->ttype != MPI_BYTE) {
        if (m->len > CHUNK)
            return COLIO_ERR_UNSUPPORTED;
        int count = m->type == MPI_BYTE ? (int)m->len : 1, tcount = m->ttype == MPI_BYTE ? (int)m->len : 1;
        return transfer(x, m->buf, count, m->type, m, m->tdisp, tcount, m->ttype) == MPI_SUCCESS ? 0 : COLIO_ERR_MPI;
    }
    for (int64_t at = 0; at < m->len; at += CHUNK) {
        int len = (int)(m->len - at < CHUNK ? m->len - at : CHUNK);
        if (transfer(x, m->buf + at, len, MPI_BYTE, m, m->tdisp + (MPI_Aint)at, len, MPI_BYTE) != MPI_SUCCESS)
            return COLIO_ERR_MPI;
    }
    return 0;
}

static int rma_start(colio_xchg_t *x)
{
    const colio_xchg_msg_t *exposed = x->rma_get ? x->sends : x->recvs;
    const colio_xchg_msg_t *origin = x->rma_get ? x->recvs : x->sends;
    int nexposed = x->rma_get ? x->nsends : x->nrecvs, norigin = x->rma_get ? x->nrecvs : x->nsends;
    MPI_Group g;
    int rc;
    if (nexposed > 0) { /* post first: see the deadlock argument above */
        if ((rc = peer_group(x, exposed, nexposed, &g)) != 0)
            return rc;
        rc = MPI_Win_post(g, 0, x->win);
        MPI_Group_free(&g);
        if (rc != MPI_SUCCESS)
            return COLIO_ERR_MPI;
        x->rma_exposed = 1;
    }
    if (norigin == 0)
        return 0;
    if ((rc = peer_group(x, origin, norigin, &g)) != 0)
        return rc;
    rc = MPI_Win_start(g, 0, x->win);
    MPI_Group_free(&g);
    if (rc != MPI_SUCCESS)
        return COLIO_ERR_MPI;
    x->rma_access = 1;
    for (int i = 0; i < norigin; i++)
        if ((rc = move_one(x, &origin[i])) != 0)
            return rc;
    if (norigin > x->max_reqs)
        x->max_reqs = norigin; /* transfers in flight at once */
    return 0;
}

static int rma_progress(colio_xchg_t *x, int *done_p)
{
    *done_p = 0;
    if (x->rma_access) { /* blocking: our transfers are done at the origin, the targets have posted */
        x->rma_access = 0;
        if (MPI_Win_complete(x->win) != MPI_SUCCESS)
            return COLIO_ERR_MPI;
    }
    if (x->rma_exposed) {
        int flag = 0;
        if (MPI_Win_test(x->win, &flag) != MPI_SUCCESS)
            return COLIO_ERR_MPI;
        if (!flag)
            return 0;
        x->rma_exposed = 0;
    }
    *done_p = 1;
    return 0;
}

/* An exchange abandoned with epochs open closes them (peers finish theirs: they cannot fail half-way). */
static void rma_cleanup(colio_xchg_t *x)
{
    if (x->rma_access)
        MPI_Win_complete(x->win);
    if (x->rma_exposed)
        MPI_Win_wait(x->win);
    x->rma_access = x->rma_exposed = 0;
    colio_xchg_reset(x);
}

const colio_xchg_ops_t colio_xchg_rma = {
    .name = "rma",
    .caps = COLIO_XCHG_ONESIDED,
    .start = rma_start,
    .progress = rma_progress,
    .cleanup = rma_cleanup,
};
