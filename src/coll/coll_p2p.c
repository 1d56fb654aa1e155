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

#include "coll/coll_p2p.h"

/* The schedule's state in the object (coll_p2p.h). */
#define P(c) _Generic((c), const colio_coll_t *: colio_p2p_state_c, default: colio_p2p_state)(c)

/* Where a schedule is; P_FINISH: the messages in flight are its last. */
enum { P_BEGIN, P_RUN, P_LAST, P_FINISH, P_END };

/* ---- messages and the driver ------------------------------------------------------- */

static int post(colio_coll_t *c, int send, void *buf, int64_t bytes, int peer)
{
    if (bytes > INT_MAX || P(c)->nreq == COLIO_P2P_MAXREQ)
        return MPI_ERR_COUNT;
    MPI_Request *r = &P(c)->reqs[P(c)->nreq++];
    if (send)
        return MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, c->tag, P(c)->comm, r);
    return MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, c->tag, P(c)->comm, r);
}

static void finish(colio_coll_t *c)
{
    if (P(c)->tmp != P(c)->small)
        free(P(c)->tmp);
    free(P(c)->off);
    P(c)->tmp = NULL, P(c)->off = NULL;
    P(c)->active = 0;
    P(c)->phase = P_END;
}

/*
 * An MPI error ends the schedule on this rank; the operation reports it. An
 * allocated scratch is left allocated (a lost allocation on an error path):
 * requests that were posted may still point into it. The object's own
 * scratch (P(c)->small) cannot be kept so: like the caller's in and out
 * buffers, it lives in the operation, which the caller gives up after the
 * error while such a request might still land in it (an MPI library that
 * returns errors from a communication has usually lost the job anyway).
 */
static int fail(colio_coll_t *c, int rc)
{
    P(c)->tmp = NULL, P(c)->off = NULL;
    finish(c);
    return rc;
}

/* Move through the steps: blocking waits for each step's messages, else returns when one has not arrived. */
static int drive(colio_coll_t *c, int blocking, int *done_p)
{
    while (P(c)->active) {
        if (P(c)->nreq > 0) {
            int flag = 1;
            int rc = blocking ? MPI_Waitall(P(c)->nreq, P(c)->reqs, MPI_STATUSES_IGNORE)
                              : MPI_Testall(P(c)->nreq, P(c)->reqs, &flag, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS)
                return fail(c, rc);
            if (!flag) {
                *done_p = 0;
                return MPI_SUCCESS;
            }
            P(c)->nreq = 0;
        }
        int rc = P(c)->step(c);
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
    int rc = MPI_Comm_rank(comm, &P(c)->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &P(c)->size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_size(t, &P(c)->esize);
    if (rc != MPI_SUCCESS)
        return rc;
    P(c)->comm = comm, P(c)->type = t;
    P(c)->step = step, P(c)->phase = P_BEGIN, P(c)->active = 1, P(c)->nreq = 0;
    P(c)->tmp = NULL, P(c)->off = NULL;
    rc = P(c)->step(c);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : fail(c, rc);
}

/* Scratch of bytes (at least one, so empty buffers are still valid pointers): the object's own when it fits. */
static char *scratch(colio_coll_t *c, int64_t bytes)
{
    return bytes < COLIO_P2P_SMALL ? P(c)->small : malloc((size_t)bytes + 1);
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
static int fold_real(const colio_coll_t *c, int nr) { return nr < P(c)->rem ? 2 * nr + 1 : nr + P(c)->rem; }

/* out = lower rank's data op higher rank's data, whichever of the two this rank holds (ops may not commute). */
static int reduce_in(colio_coll_t *c)
{
    int64_t bytes = (int64_t)P(c)->count * P(c)->esize;
    int rc;
    if (P(c)->reduce_from < P(c)->rank)
        return colio_coll_reduce_local(P(c)->tmp, P(c)->out, P(c)->count, P(c)->type, P(c)->op);
    rc = colio_coll_reduce_local(P(c)->out, P(c)->tmp, P(c)->count, P(c)->type, P(c)->op);
    memcpy(P(c)->out, P(c)->tmp, (size_t)bytes);
    return rc;
}

static int allreduce_step(colio_coll_t *c)
{
    int64_t bytes = (int64_t)P(c)->count * P(c)->esize;
    int rc = MPI_SUCCESS;
    if (P(c)->reduce_from >= 0) {
        rc = reduce_in(c);
        P(c)->reduce_from = -1;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    switch (P(c)->phase) {
    case P_BEGIN:
        if ((P(c)->tmp = scratch(c, bytes)) == NULL)
            return MPI_ERR_NO_MEM;
        memcpy(P(c)->out, P(c)->in, (size_t)bytes);
        P(c)->pof2 = largest_pof2_upto(P(c)->size);
        P(c)->rem = P(c)->size - P(c)->pof2;
        P(c)->dist = 1;
        P(c)->phase = P_RUN;
        if (P(c)->rank < 2 * P(c)->rem && P(c)->rank % 2 == 0) { /* hand my data to rank + 1, get the result at the end */
            P(c)->newrank = -1;
            P(c)->phase = P_LAST;
            return post(c, 1, P(c)->out, bytes, P(c)->rank + 1);
        }
        P(c)->newrank = P(c)->rank < 2 * P(c)->rem ? P(c)->rank / 2 : P(c)->rank - P(c)->rem;
        if (P(c)->rank < 2 * P(c)->rem) {
            P(c)->reduce_from = P(c)->rank - 1;
            return post(c, 0, P(c)->tmp, bytes, P(c)->rank - 1);
        }
        return MPI_SUCCESS;
    case P_RUN:
        if (P(c)->dist < P(c)->pof2) {
            int peer = fold_real(c, P(c)->newrank ^ P(c)->dist);
            P(c)->dist *= 2;
            P(c)->reduce_from = peer;
            if ((rc = post(c, 1, P(c)->out, bytes, peer)) != MPI_SUCCESS)
                return rc;
            return post(c, 0, P(c)->tmp, bytes, peer);
        }
        P(c)->phase = P_FINISH; /* finish after this last message */
        if (P(c)->rank < 2 * P(c)->rem)
            return post(c, 1, P(c)->out, bytes, P(c)->rank - 1);
        return MPI_SUCCESS;
    case P_LAST:
        P(c)->phase = P_FINISH;
        return post(c, 0, P(c)->out, bytes, P(c)->rank + 1);
    default:
        finish(c);
        return MPI_SUCCESS;
    }
}

static int p2p_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    P(c)->in = in, P(c)->out = out, P(c)->count = n, P(c)->op = op, P(c)->reduce_from = -1;
    return start(c, allreduce_step, t, comm);
}

/* ---- bcast: binomial tree rooted at root ------------------------------------------- */

static int bcast_step(colio_coll_t *c)
{
    int64_t bytes = (int64_t)P(c)->count * P(c)->esize;
    int vr = (P(c)->rank - P(c)->root + P(c)->size) % P(c)->size; /* rank relative to the root */
    if (P(c)->phase == P_BEGIN) {
        P(c)->phase = P_RUN;
        if (vr == 0) {
            P(c)->dist = largest_pof2_upto(P(c)->size) * 2;
            return MPI_SUCCESS;
        }
        P(c)->dist = vr & -vr; /* my parent is vr - (lowest set bit) */
        return post(c, 0, P(c)->out, bytes, (vr - P(c)->dist + P(c)->root) % P(c)->size);
    }
    if (P(c)->phase == P_RUN) {
        P(c)->phase = P_FINISH;
        for (int m = P(c)->dist / 2; m > 0; m /= 2)
            if (vr + m < P(c)->size) {
                int rc = post(c, 1, P(c)->out, bytes, (vr + m + P(c)->root) % P(c)->size);
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
    P(c)->out = buf, P(c)->count = n, P(c)->root = root;
    return start(c, bcast_step, t, comm);
}

/* ---- allgatherv: Bruck; block i of the scratch holds rank (rank + i) mod p ---------- */

static int64_t block_count(const colio_coll_t *c, int j) { return P(c)->counts ? P(c)->counts[j] : P(c)->count; }

static int64_t block_displ(const colio_coll_t *c, int j) { return P(c)->counts ? P(c)->displs[j] : (int64_t)j * P(c)->count; }

static int allgather_begin(colio_coll_t *c)
{
    int p = P(c)->size;
    if ((P(c)->off = malloc(sizeof *P(c)->off * (size_t)(p + 1))) == NULL)
        return MPI_ERR_NO_MEM;
    P(c)->off[0] = 0;
    for (int i = 0; i < p; i++)
        P(c)->off[i + 1] = P(c)->off[i] + block_count(c, (P(c)->rank + i) % p) * P(c)->esize;
    if ((P(c)->tmp = scratch(c, P(c)->off[p])) == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(P(c)->tmp, P(c)->in, (size_t)P(c)->off[1]);
    P(c)->dist = 1;
    P(c)->phase = P_RUN;
    return MPI_SUCCESS;
}

static int allgather_step(colio_coll_t *c)
{
    int p = P(c)->size, rc;
    if (P(c)->phase == P_BEGIN && (rc = allgather_begin(c)) != MPI_SUCCESS)
        return rc;
    if (P(c)->dist < p) { /* send my first n blocks to rank - dist, get rank + dist's first n as mine from dist on */
        int d = P(c)->dist, n = d < p - d ? d : p - d;
        P(c)->dist *= 2;
        if ((rc = post(c, 1, P(c)->tmp, P(c)->off[n], (P(c)->rank - d + p) % p)) != MPI_SUCCESS)
            return rc;
        return post(c, 0, P(c)->tmp + P(c)->off[d], P(c)->off[d + n] - P(c)->off[d], (P(c)->rank + d) % p);
    }
    for (int i = 0; i < p; i++) {
        int j = (P(c)->rank + i) % p;
        memcpy((char *)P(c)->out + block_displ(c, j) * P(c)->esize, P(c)->tmp + P(c)->off[i], (size_t)(P(c)->off[i + 1] - P(c)->off[i]));
    }
    finish(c);
    return MPI_SUCCESS;
}

static int p2p_allgatherv(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                          const int *displs, MPI_Comm comm)
{
    P(c)->in = in, P(c)->out = out, P(c)->count = n, P(c)->counts = counts, P(c)->displs = displs;
    return start(c, allgather_step, t, comm);
}

/* ---- alltoall: Bruck; block i of the scratch goes to (comes from) rank +- i --------- */

/* Copy the blocks whose index has bit dist set between the scratch and a packed buffer. */
static void pack_blocks(colio_coll_t *c, char *packed, int to_packed)
{
    int64_t b = (int64_t)P(c)->count * P(c)->esize;
    char *blocks = P(c)->tmp, *q = packed;
    for (int i = 0; i < P(c)->size; i++)
        if (i & P(c)->dist) {
            if (to_packed)
                memcpy(q, blocks + i * b, (size_t)b);
            else
                memcpy(blocks + i * b, q, (size_t)b);
            q += b;
        }
}

static int alltoall_step(colio_coll_t *c)
{
    int p = P(c)->size, rc;
    int64_t b = (int64_t)P(c)->count * P(c)->esize;
    if (P(c)->phase == P_BEGIN) {
        if ((P(c)->tmp = scratch(c, 3 * p * b)) == NULL)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < p; i++)
            memcpy(P(c)->tmp + i * b, (const char *)P(c)->in + (int64_t)((P(c)->rank + i) % p) * b, (size_t)b);
        P(c)->dist = 1;
        P(c)->phase = P_RUN;
    } else {
        pack_blocks(c, P(c)->tmp + 2 * p * b, 0); /* what the last step received */
        P(c)->dist *= 2;
    }
    char *blocks = P(c)->tmp, *sendp = blocks + p * b, *recvp = sendp + p * b;
    if (P(c)->dist < p) {
        int64_t n = 0;
        for (int i = 0; i < p; i++)
            n += (i & P(c)->dist) != 0;
        pack_blocks(c, sendp, 1);
        if ((rc = post(c, 1, sendp, n * b, (P(c)->rank + P(c)->dist) % p)) != MPI_SUCCESS)
            return rc;
        return post(c, 0, recvp, n * b, (P(c)->rank - P(c)->dist + p) % p);
    }
    for (int i = 0; i < p; i++)
        memcpy((char *)P(c)->out + (int64_t)((P(c)->rank - i + p) % p) * b, blocks + i * b, (size_t)b);
    finish(c);
    return MPI_SUCCESS;
}

static int p2p_alltoall(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm)
{
    P(c)->in = in, P(c)->out = out, P(c)->count = n;
    return start(c, alltoall_step, t, comm);
}

/* Only what is read before a schedule starts (each start sets the rest): a small call does this once per call. */
void colio_p2p_init(colio_coll_t *c)
{
    P(c)->active = P(c)->phase = P(c)->nreq = 0;
    P(c)->tmp = NULL, P(c)->off = NULL;
}

int colio_p2p_pending(const colio_coll_t *c) { return P(c)->active; }

const colio_coll_ops_t colio_coll_p2p = {
    .name = "p2p",
    .caps = COLIO_COLL_CAP_BRUCK,
    .init = colio_p2p_init,
    .pending = colio_p2p_pending,
    .allreduce = p2p_allreduce,
    .bcast = p2p_bcast,
    .allgatherv = p2p_allgatherv,
    .alltoall = p2p_alltoall,
    .test = p2p_test,
    .wait = p2p_wait,
};
