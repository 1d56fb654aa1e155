/*
 * The counts step of two-phase I/O, sparse (issue 23, item 1): every
 * aggregator learns how many runs and bytes each rank with pieces in its
 * file domain sends it. The dense step (plan.c) is one alltoall of
 * COLIO_COUNT_WORDS per rank, p^2 words in all, although only the
 * aggregators need counts, and only from their own senders. Here:
 *   COUNTS_SENDERS  one allreduce (SUM) of one word per aggregator: how
 *                   many ranks send to it (log2 p steps of naggs words);
 *   COUNTS_MSGS     each rank sends its counts to the aggregators it has
 *                   pieces for, each aggregator receives as many messages
 *                   from any source with the operation's counts tag (the
 *                   sender's rank travels in the message).
 * So a rank sends O(aggregators) words, not O(p). A receive from any
 * source is safe on a communicator shared by files (core/comm_cache.h):
 * a rank sends the counts of its next operation with the same tag only
 * after this one's closing agreement completed, which needs every
 * aggregator past its counts step. One-sided kernels keep the dense step:
 * their aggregators' buffer addresses go to every source with it.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/file.h"
#include "engine/op.h"

/* Ranks from which auto goes sparse, when the aggregators are at most a quarter of them. */
#define COLIO_COUNTS_SPARSE_MIN 32

int colio_counts_sparse(const colio_op_t *op)
{
    const colio_plan_t *p = &op->plan;
    const char *mode = op->fh->hints.counts;
    if (p->rma_meta || p->rma_data || strcmp(mode, "dense") == 0)
        return 0;
    if (strcmp(mode, "sparse") == 0)
        return 1;
    return op->fh->nprocs >= COLIO_COUNTS_SPARSE_MIN && 4 * (int64_t)p->naggs <= op->fh->nprocs;
}

/* A message of the step: the sender's counts for one aggregator, its rank last. */
#define COUNTS_MSG_WORDS (COLIO_COUNT_WORDS + 1)

static int sends_to(const colio_op_t *op, int i)
{
    return op->err.code == 0 && op->plan.aggs[i] != op->fh->rank && op->plan.to_agg[i].n > 0;
}

void colio_counts_start(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    colio_counts_state_t *c = &op->counts;
    int n = p->naggs;
    c->senders = calloc((size_t)(2 * n), sizeof *c->senders);
    if (c->senders == NULL) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for the counts step");
        op->phase = COLIO_PH_DONE; /* as a failed collective: nothing was posted */
        return;
    }
    for (int i = 0; i < n; i++)
        c->senders[i] = sends_to(op, i);
    int rc = colio_coll_allreduce(&op->coll, c->senders, c->senders + n, n, MPI_INT64_T, MPI_SUM, op->comm);
    colio_op_posted(op, rc, "counts senders agreement", COLIO_PH_COUNTS_SENDERS);
}

/* Post my counts to each aggregator I send to, and as many receives as I have senders. */
static int post_messages(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    colio_counts_state_t *c = &op->counts;
    int n = p->naggs, me = op->fh->rank, tag = op->tag_counts;
    int nrecv = p->my_agg >= 0 ? (int)c->senders[n + p->my_agg] : 0, nsend = 0;
    for (int i = 0; i < n; i++)
        nsend += sends_to(op, i);
    c->msg = malloc(sizeof *c->msg * (size_t)COUNTS_MSG_WORDS * (size_t)(nsend + nrecv + 1));
    c->reqs = malloc(sizeof *c->reqs * (size_t)(nsend + nrecv + 1));
    if (c->msg == NULL || c->reqs == NULL)
        return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for the counts messages");
    c->nrecv = nrecv;
    for (int j = 0; j < nrecv; j++)
        if (MPI_Irecv(c->msg + COUNTS_MSG_WORDS * j, COUNTS_MSG_WORDS, MPI_INT64_T, MPI_ANY_SOURCE, tag, op->comm,
                      &c->reqs[c->nreq++]) != MPI_SUCCESS)
            return colio_op_fail(op, COLIO_ERR_MPI, "counts: MPI_Irecv failed");
    for (int i = 0, k = nrecv; i < n; i++) {
        if (!sends_to(op, i))
            continue;
        int64_t *m = c->msg + COUNTS_MSG_WORDS * k++;
        memcpy(m, p->send_counts + COLIO_COUNT_WORDS * p->aggs[i], sizeof *m * COLIO_COUNT_WORDS);
        m[COLIO_COUNT_WORDS] = me;
        if (MPI_Isend(m, COUNTS_MSG_WORDS, MPI_INT64_T, p->aggs[i], tag, op->comm, &c->reqs[c->nreq++]) !=
            MPI_SUCCESS)
            return colio_op_fail(op, COLIO_ERR_MPI, "counts: MPI_Isend failed");
    }
    op->stats.meta_messages += c->nreq;
    return 0;
}

int colio_step_counts_senders(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    post_messages(op); /* a rank that failed sends nothing, and still receives its senders' counts */
    op->phase = COLIO_PH_COUNTS_MSGS;
    return COLIO_STEP_NEXT;
}

void colio_counts_free(colio_op_t *op)
{
    colio_counts_state_t *c = &op->counts;
    free(c->senders), free(c->msg), free(c->reqs);
    memset(c, 0, sizeof *c);
}

int colio_step_counts_msgs(colio_op_t *op)
{
    colio_counts_state_t *c = &op->counts;
    colio_plan_t *p = &op->plan;
    int flag = 1;
    if (c->nreq > 0 && MPI_Testall(c->nreq, c->reqs, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
        colio_err_from_mpi(&op->err, MPI_ERR_OTHER, "counts: MPI_Testall");
        flag = 1;
    }
    if (!flag)
        return COLIO_STEP_WAIT;
    for (int j = 0; j < c->nrecv && op->err.code == 0; j++) {
        const int64_t *m = c->msg + COUNTS_MSG_WORDS * j;
        int64_t src = m[COLIO_COUNT_WORDS];
        if (src >= 0 && src < op->fh->nprocs)
            memcpy(p->recv_counts + COLIO_COUNT_WORDS * src, m, sizeof *m * COLIO_COUNT_WORDS);
    }
    if (p->my_agg >= 0) { /* my own row, as the alltoall would have copied it */
        int64_t *mine = p->recv_counts + COLIO_COUNT_WORDS * op->fh->rank;
        memcpy(mine, p->send_counts + COLIO_COUNT_WORDS * op->fh->rank, sizeof *mine * COLIO_COUNT_WORDS);
    }
    colio_counts_free(op);
    op->phase = COLIO_PH_COUNTS; /* op->coll is idle: COUNTS goes on to the buffers */
    return COLIO_STEP_NEXT;
}
