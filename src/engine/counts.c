/*
 * The counts step of two-phase I/O, sparse: every
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
 * source is safe on a communicator shared by files (api/comm_cache.h):
 * a rank sends the counts of its next operation with the same tag only
 * after this one's closing agreement completed, which needs every
 * aggregator past its counts step. One-sided kernels keep the dense step:
 * their aggregators' buffer addresses go to every source with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/arrays.h"
#include "engine/counts.h"
#include "engine/file.h"
#include "engine/step.h"

int colio_counts_sparse(const colio_op_t *op)
{
    const colio_plan_t *p = &op->plan;
    if (!colio_counts_may_be_sparse(op->fh) || p->rma_meta || p->rma_data)
        return 0;
    return op->fh->hints.counts[0] == 's' || 4 * (int64_t)p->naggs <= op->fh->nprocs;
}

void colio_counts_start(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    colio_counts_state_t *c = &op->counts;
    int n = p->naggs, me = op->fh->rank;
    for (int i = 0; i < n; i++) /* decided once: the sends below follow these words, not a second look */
        c->senders[i] = op->err.code == 0 && p->aggs[i] != me && p->to_agg[i].n > 0;
    int rc = colio_coll_allreduce(&op->coll, c->senders, c->senders + n, n, MPI_INT64_T, MPI_SUM, op->comm);
    colio_op_posted(op, rc, "counts senders agreement", COLIO_PH_COUNTS_SENDERS);
}

/*
 * Post as many receives as I have senders and my counts to each aggregator
 * I said I send to. Every message posted is received in this step (the
 * safety of receiving from any source rests on it), so a failed post
 * stops the program rather than leave a message for a later operation.
 */
static void post_messages(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    colio_counts_state_t *c = &op->counts;
    int n = p->naggs, me = op->fh->rank, tag = op->tag_counts;
    c->nrecv = p->my_agg >= 0 ? (int)c->senders[n + p->my_agg] : 0;
    c->nreq = 0;
    int rc = MPI_SUCCESS;
    for (int j = 0; j < c->nrecv && rc == MPI_SUCCESS; j++)
        rc = MPI_Irecv(c->msg + COLIO_COUNTS_MSG_WORDS * j, COLIO_COUNTS_MSG_WORDS, MPI_INT64_T, MPI_ANY_SOURCE, tag,
                       op->comm, &c->reqs[c->nreq++]);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (!c->senders[i])
            continue;
        int64_t *m = c->msg + COLIO_COUNTS_MSG_WORDS * c->nreq;
        memcpy(m, p->send_counts + COLIO_COUNT_WORDS * p->aggs[i], sizeof *m * COLIO_COUNT_WORDS);
        m[COLIO_COUNT_WORDS] = me;
        rc = MPI_Isend(m, COLIO_COUNTS_MSG_WORDS, MPI_INT64_T, p->aggs[i], tag, op->comm, &c->reqs[c->nreq++]);
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "colio: %s on %s: the counts step could not post its messages; aborting (the other "
                "ranks would wait forever)\n", op->args.api, op->fh->path);
        MPI_Abort(op->fh->comm, COLIO_ERR_MPI);
    }
    op->stats.meta_messages += c->nreq;
}

int colio_step_counts_senders(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    if (op->phase == COLIO_PH_DONE) /* the agreement failed (MPI's error, recorded): nothing to post */
        return COLIO_STEP_NEXT;
    post_messages(op); /* a rank that failed sends nothing, and still receives its senders' counts */
    op->phase = COLIO_PH_COUNTS_MSGS;
    return COLIO_STEP_NEXT;
}

void colio_counts_free(colio_op_t *op)
{
    colio_counts_state_t *c = &op->counts;
    colio_op_give_array(op, COLIO_ARR_CNT_SENDERS, c->senders);
    colio_op_give_array(op, COLIO_ARR_CNT_MSG, c->msg);
    colio_op_give_array(op, COLIO_ARR_CNT_REQS, c->reqs);
    memset(c, 0, sizeof *c);
}

int colio_step_counts_msgs(colio_op_t *op)
{
    colio_counts_state_t *c = &op->counts;
    colio_plan_t *p = &op->plan;
    int flag = 1;
    if (c->nreq > 0 && MPI_Testall(c->nreq, c->reqs, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
        colio_err_from_mpi(&op->err, MPI_ERR_OTHER, "counts: MPI_Testall");
        MPI_Waitall(c->nreq, c->reqs, MPI_STATUSES_IGNORE); /* nothing may still write into msg */
        flag = 1;
    }
    if (!flag)
        return COLIO_STEP_WAIT;
    for (int j = 0; j < c->nrecv; j++) {
        const int64_t *m = c->msg + COLIO_COUNTS_MSG_WORDS * j;
        int64_t src = m[COLIO_COUNT_WORDS];
        if (src >= 0 && src < op->fh->nprocs)
            memcpy(p->recv_counts + COLIO_COUNT_WORDS * src, m, sizeof *m * COLIO_COUNT_WORDS);
    }
    if (p->my_agg >= 0) { /* my own row, as the alltoall would have copied it */
        int64_t *mine = p->recv_counts + COLIO_COUNT_WORDS * op->fh->rank;
        memcpy(mine, p->send_counts + COLIO_COUNT_WORDS * op->fh->rank, sizeof *mine * COLIO_COUNT_WORDS);
    }
    c->nreq = c->nrecv = 0;
    op->phase = COLIO_PH_COUNTS; /* op->coll is idle: COUNTS goes on to the buffers */
    return COLIO_STEP_NEXT;
}
