/*
 * Agreements as colio's own schedules of point-to-point messages
 * (colio_agreements=p2p; coll.h). Each schedule is a step function: it
 * consumes what the last step's messages brought, then posts the next
 * step's sends and receives (or finishes). colio_coll_test steps as far as
 * the messages have arrived and returns; wait blocks step by step. Every
 * schedule takes ceil(log2 p) steps of one message each way (the binomial
 * bcast sends up to log2 p at once); messages carry the object's tag on the
 * caller's communicator and match in posting order between each pair of
 * ranks, so consecutive collectives with one tag never mix.
 *
 * Algorithms as in Thakur, Rabenseifner and Gropp, "Optimization of
 * Collective Communication Operations in MPICH" (IJHPCA 2005): recursive
 * doubling with the non-power-of-two fold, binomial tree, and Bruck's
 * allgather and alltoall.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

/* Where a schedule is; P_FINISH: the messages in flight are its last. */
enum { P_BEGIN, P_RUN, P_LAST, P_FINISH, P_END };

/* ---- messages and the driver ------------------------------------------------------- */

static int post(colio_coll_t *c, int send, void *buf, int64_t bytes, int peer)
{
    if (bytes > INT_MAX || c->nreq == COLIO_COLL_MAXREQ)
        return MPI_ERR_COUNT;
    MPI_Request *r = &c->reqs[c->nreq++];
    if (send)
        return MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, c->tag, c->comm, r);
    return MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, c->tag, c->comm, r);
}

static void finish(colio_coll_t *c)
{
    if (c->tmp != c->small)
        free(c->tmp);
    free(c->off);
    c->tmp = NULL, c->off = NULL;
    c->active = 0;
    c->phase = P_END;
}

/*
 * An MPI error ends the schedule on this rank; the operation reports it. An
 * allocated scratch is left allocated (a lost allocation on an error path):
 * requests that were posted may still point into it. The object's own
 * scratch (c->small) cannot be kept so: like the caller's in and out
 * buffers, it lives in the operation, which the caller gives up after the
 * error while such a request might still land in it (an MPI library that
 * returns errors from a communication has usually lost the job anyway).
 */
static int fail(colio_coll_t *c, int rc)
{
    c->tmp = NULL, c->off = NULL;
    finish(c);
    return rc;
}

/* Move through the steps: blocking waits for each step's messages, else returns when one has not arrived. */
static int drive(colio_coll_t *c, int blocking, int *done_p)
{
    while (c->active) {
        if (c->nreq > 0) {
            int flag = 1;
            int rc = blocking ? MPI_Waitall(c->nreq, c->reqs, MPI_STATUSES_IGNORE)
                              : MPI_Testall(c->nreq, c->reqs, &flag, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS)
                return fail(c, rc);
            if (!flag) {
                *done_p = 0;
                return MPI_SUCCESS;
            }
            c->nreq = 0;
        }
        int rc = c->step(c);
        if (rc != MPI_SUCCESS)
            return fail(c, rc);
    }
    *done_p = 1;
    return MPI_SUCCESS;
}

static int p2p_test(colio_coll_t *c, int *done_p) { return drive(c, 0, done_p); }

static int p2p_wait(colio_coll_t *c)
{
    int done;
    return drive(c, 1, &done);
}

/* Common start: the arguments, the element size, the first step run at once (its messages posted,
   not tested: the caller's test or wait comes next). */
static int start(colio_coll_t *c, int (*step)(colio_coll_t *), MPI_Datatype t, MPI_Comm comm)
{
    int rc = MPI_Comm_rank(comm, &c->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &c->size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_size(t, &c->esize);
    if (rc != MPI_SUCCESS)
        return rc;
    c->comm = comm, c->type = t;
    c->step = step, c->phase = P_BEGIN, c->active = 1, c->nreq = 0;
    c->tmp = NULL, c->off = NULL;
    rc = c->step(c);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : fail(c, rc);
}

/* Scratch of bytes (at least one, so empty buffers are still valid pointers): the object's own when it fits. */
static char *scratch(colio_coll_t *c, int64_t bytes)
{
    return bytes < COLIO_COLL_SMALL ? c->small : malloc((size_t)bytes + 1);
}

static int largest_pof2_upto(int n)
{
    int p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

/* ---- allreduce: recursive doubling; the first 2*rem ranks fold in pairs first ------- */

/* The real rank of a rank of the power-of-two group. */
static int fold_real(const colio_coll_t *c, int nr) { return nr < c->rem ? 2 * nr + 1 : nr + c->rem; }

/* out = lower rank's data op higher rank's data, whichever of the two this rank holds (ops may not commute). */
static int reduce_in(colio_coll_t *c)
{
    int64_t bytes = (int64_t)c->count * c->esize;
    int rc;
    if (c->reduce_from < c->rank)
        return colio_coll_reduce_local(c->tmp, c->out, c->count, c->type, c->op);
    rc = colio_coll_reduce_local(c->out, c->tmp, c->count, c->type, c->op);
    memcpy(c->out, c->tmp, (size_t)bytes);
    return rc;
}

static int allreduce_step(colio_coll_t *c)
{
    int64_t bytes = (int64_t)c->count * c->esize;
    int rc = MPI_SUCCESS;
    if (c->reduce_from >= 0) {
        rc = reduce_in(c);
        c->reduce_from = -1;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    switch (c->phase) {
    case P_BEGIN:
        if ((c->tmp = scratch(c, bytes)) == NULL)
            return MPI_ERR_NO_MEM;
        memcpy(c->out, c->in, (size_t)bytes);
        c->pof2 = largest_pof2_upto(c->size);
        c->rem = c->size - c->pof2;
        c->dist = 1;
        c->phase = P_RUN;
        if (c->rank < 2 * c->rem && c->rank % 2 == 0) { /* hand my data to rank + 1, get the result at the end */
            c->newrank = -1;
            c->phase = P_LAST;
            return post(c, 1, c->out, bytes, c->rank + 1);
        }
        c->newrank = c->rank < 2 * c->rem ? c->rank / 2 : c->rank - c->rem;
        if (c->rank < 2 * c->rem) {
            c->reduce_from = c->rank - 1;
            return post(c, 0, c->tmp, bytes, c->rank - 1);
        }
        return MPI_SUCCESS;
    case P_RUN:
        if (c->dist < c->pof2) {
            int peer = fold_real(c, c->newrank ^ c->dist);
            c->dist *= 2;
            c->reduce_from = peer;
            if ((rc = post(c, 1, c->out, bytes, peer)) != MPI_SUCCESS)
                return rc;
            return post(c, 0, c->tmp, bytes, peer);
        }
        c->phase = P_FINISH; /* finish after this last message */
        if (c->rank < 2 * c->rem)
            return post(c, 1, c->out, bytes, c->rank - 1);
        return MPI_SUCCESS;
    case P_LAST:
        c->phase = P_FINISH;
        return post(c, 0, c->out, bytes, c->rank + 1);
    default:
        finish(c);
        return MPI_SUCCESS;
    }
}

static int p2p_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    c->in = in, c->out = out, c->count = n, c->op = op, c->reduce_from = -1;
    return start(c, allreduce_step, t, comm);
}

/* ---- bcast: binomial tree rooted at root ------------------------------------------- */

static int bcast_step(colio_coll_t *c)
{
    int64_t bytes = (int64_t)c->count * c->esize;
    int vr = (c->rank - c->root + c->size) % c->size; /* rank relative to the root */
    if (c->phase == P_BEGIN) {
        c->phase = P_RUN;
        if (vr == 0) {
            c->dist = largest_pof2_upto(c->size) * 2;
            return MPI_SUCCESS;
        }
        c->dist = vr & -vr; /* my parent is vr - (lowest set bit) */
        return post(c, 0, c->out, bytes, (vr - c->dist + c->root) % c->size);
    }
    if (c->phase == P_RUN) {
        c->phase = P_FINISH;
        for (int m = c->dist / 2; m > 0; m /= 2)
            if (vr + m < c->size) {
                int rc = post(c, 1, c->out, bytes, (vr + m + c->root) % c->size);
                if (rc != MPI_SUCCESS)
                    return rc;
            }
        return MPI_SUCCESS;
    }
    finish(c);
    return MPI_SUCCESS;
}

static int p2p_bcast(colio_coll_t *c, void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    c->out = buf, c->count = n, c->root = root;
    return start(c, bcast_step, t, comm);
}

/* ---- allgatherv: Bruck; block i of the scratch holds rank (rank + i) mod p ---------- */

static int64_t block_count(const colio_coll_t *c, int j) { return c->counts ? c->counts[j] : c->count; }

static int64_t block_displ(const colio_coll_t *c, int j) { return c->counts ? c->displs[j] : (int64_t)j * c->count; }

static int allgather_begin(colio_coll_t *c)
{
    int p = c->size;
    if ((c->off = malloc(sizeof *c->off * (size_t)(p + 1))) == NULL)
        return MPI_ERR_NO_MEM;
    c->off[0] = 0;
    for (int i = 0; i < p; i++)
        c->off[i + 1] = c->off[i] + block_count(c, (c->rank + i) % p) * c->esize;
    if ((c->tmp = scratch(c, c->off[p])) == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(c->tmp, c->in, (size_t)c->off[1]);
    c->dist = 1;
    c->phase = P_RUN;
    return MPI_SUCCESS;
}

static int allgather_step(colio_coll_t *c)
{
    int p = c->size, rc;
    if (c->phase == P_BEGIN && (rc = allgather_begin(c)) != MPI_SUCCESS)
        return rc;
    if (c->dist < p) { /* send my first n blocks to rank - dist, get rank + dist's first n as mine from dist on */
        int d = c->dist, n = d < p - d ? d : p - d;
        c->dist *= 2;
        if ((rc = post(c, 1, c->tmp, c->off[n], (c->rank - d + p) % p)) != MPI_SUCCESS)
            return rc;
        return post(c, 0, c->tmp + c->off[d], c->off[d + n] - c->off[d], (c->rank + d) % p);
    }
    for (int i = 0; i < p; i++) {
        int j = (c->rank + i) % p;
        memcpy((char *)c->out + block_displ(c, j) * c->esize, c->tmp + c->off[i], (size_t)(c->off[i + 1] - c->off[i]));
    }
    finish(c);
    return MPI_SUCCESS;
}

static int p2p_allgatherv(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                          const int *displs, MPI_Comm comm)
{
    c->in = in, c->out = out, c->count = n, c->counts = counts, c->displs = displs;
    return start(c, allgather_step, t, comm);
}

/* ---- alltoall: Bruck; block i of the scratch goes to (comes from) rank +- i --------- */

/* Copy the blocks whose index has bit dist set between the scratch and a packed buffer. */
static void pack_blocks(colio_coll_t *c, char *packed, int to_packed)
{
    int64_t b = (int64_t)c->count * c->esize;
    char *blocks = c->tmp, *q = packed;
    for (int i = 0; i < c->size; i++)
        if (i & c->dist) {
            if (to_packed)
                memcpy(q, blocks + i * b, (size_t)b);
            else
                memcpy(blocks + i * b, q, (size_t)b);
            q += b;
        }
}

static int alltoall_step(colio_coll_t *c)
{
    int p = c->size, rc;
    int64_t b = (int64_t)c->count * c->esize;
    if (c->phase == P_BEGIN) {
        if ((c->tmp = scratch(c, 3 * p * b)) == NULL)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < p; i++)
            memcpy(c->tmp + i * b, (const char *)c->in + (int64_t)((c->rank + i) % p) * b, (size_t)b);
        c->dist = 1;
        c->phase = P_RUN;
    } else {
        pack_blocks(c, c->tmp + 2 * p * b, 0); /* what the last step received */
        c->dist *= 2;
    }
    char *blocks = c->tmp, *sendp = blocks + p * b, *recvp = sendp + p * b;
    if (c->dist < p) {
        int64_t n = 0;
        for (int i = 0; i < p; i++)
            n += (i & c->dist) != 0;
        pack_blocks(c, sendp, 1);
        if ((rc = post(c, 1, sendp, n * b, (c->rank + c->dist) % p)) != MPI_SUCCESS)
            return rc;
        return post(c, 0, recvp, n * b, (c->rank - c->dist + p) % p);
    }
    for (int i = 0; i < p; i++)
        memcpy((char *)c->out + (int64_t)((c->rank - i + p) % p) * b, blocks + i * b, (size_t)b);
    finish(c);
    return MPI_SUCCESS;
}

static int p2p_alltoall(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm)
{
    c->in = in, c->out = out, c->count = n;
    return start(c, alltoall_step, t, comm);
}

const colio_coll_ops_t colio_coll_p2p = {
    .name = "p2p",
    .caps = COLIO_COLL_CAP_BRUCK,
    .allreduce = p2p_allreduce,
    .bcast = p2p_bcast,
    .allgatherv = p2p_allgatherv,
    .alltoall = p2p_alltoall,
    .test = p2p_test,
    .wait = p2p_wait,
};
