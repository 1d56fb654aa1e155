/*
 * Pipelined two-phase rounds (colio_pipeline=2), after TAPIOCA's pipelined
 * aggregation buffers (Tessier et al., Sec. 4.3): an aggregator owns two
 * collective buffers; a round's storage writes run as a job in the I/O
 * helper thread (exec/exec.h) on one buffer while the next round's exchange
 * fills the other, and reads fetch the next round ahead into the spare
 * buffer while the current one is sent out. A buffer is reused only once
 * its job finished, and the rounds end only when every job did, so the
 * FINAL agreement sees every storage error. Steps never block: when a job
 * is not done they return COLIO_STEP_WAIT with op->io_wait set and no MPI
 * request, and the driver calls colio_op_io_wait.
 */
#include <string.h>

#include "engine/file.h"
#include "engine/round_pipe.h"
#include "engine/step.h"

/* A finished job's outcome, as the synchronous calls would have recorded it. */
static void fold_job(colio_op_t *op, colio_round_buf_t *b, int ran_here)
{
    b->busy = 0;
    colio_op_fold_job(op, &b->job, ran_here);
}

/* Whether buffer b is free now (its finished job folded in); else the step waits for it. */
static int buf_ready(colio_op_t *op, colio_round_buf_t *b)
{
    if (!b->busy)
        return 1;
    if (!colio_op_job_done(op, &b->job)) {
        op->io_wait = &b->job;
        return 0;
    }
    fold_job(op, b, 0);
    return 1;
}

/* Reads: the buffer holding round r ahead of time, if any. */
static int ahead_buffer(const colio_round_t *rd, int64_t r)
{
    for (int i = 0; i < 2; i++)
        if (rd->buf[i].ahead && rd->buf[i].round == r)
            return i;
    return -1;
}

int colio_round_pipe_ready(colio_op_t *op, int64_t r, int has_data)
{
    colio_round_t *rd = &op->rnd;
    op->io_wait = NULL;
    if (r == INT64_MAX) /* every write on storage (and its error known) before FINAL */
        return buf_ready(op, &rd->buf[0]) && buf_ready(op, &rd->buf[1]);
    if (!has_data)
        return 1;
    int a = ahead_buffer(rd, r);
    if (a >= 0)
        rd->cur = a;
    return buf_ready(op, &rd->buf[rd->cur]);
}

void colio_round_pipe_submit(colio_op_t *op, colio_round_buf_t *b)
{
    b->busy = 1;
    if (!colio_op_submit_job(op, &b->job, op->rnd.pipelined || op->nonblocking)) /* ran here */
        fold_job(op, b, 1);
}

/*
 * A round's storage read (the round itself, or the holes of a write's
 * read-modify-write) is a job on the current buffer too: the step moves to
 * ROUND_FETCH and waits for it there, so no step reads storage itself.
 */
void colio_round_fetch_add(colio_op_t *op, char *buf, int64_t len, int64_t off)
{
    colio_round_t *rd = &op->rnd;
    colio_round_buf_t *b = &rd->buf[rd->cur];
    if (op->io_failed || len <= 0)
        return;
    if (rd->fetch == NULL) {
        colio_exec_job_reset(&b->job, COLIO_EXEC_READ, op->fh->store, op->fh->st, &rd->chain_failed);
        rd->fetch = b;
    }
    if (colio_exec_job_add(&b->job, buf, len, off) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory listing the reads of round %lld", (long long)rd->r);
        op->io_failed = 1;
    }
}

void colio_round_fetch_submit(colio_op_t *op)
{
    colio_round_buf_t *b = op->rnd.fetch;
    if (b == NULL || b->busy) /* nothing to read, or submitted already (reads before their read-ahead) */
        return;
    if (op->io_failed || b->job.ncalls == 0) {
        op->rnd.fetch = NULL;
        return;
    }
    b->busy = 1;
    if (!colio_op_submit_job(op, &b->job, op->nonblocking)) { /* ran here */
        fold_job(op, b, 1);
        op->rnd.fetch = NULL;
    }
}

/* ROUND_FETCH: wait for the round's read; 1 once it is folded in. */
int colio_round_fetch_done(colio_op_t *op)
{
    colio_round_buf_t *b = op->rnd.fetch;
    if (b == NULL)
        return 1;
    if (!buf_ready(op, b))
        return 0;
    op->rnd.fetch = NULL;
    return 1;
}

int colio_round_job_fill(colio_exec_job_t *job, const colio_coverage_t *c, int whole, char *cbuf, int64_t rs)
{
    if (whole)
        return colio_exec_job_add(job, cbuf + (c->first - rs), c->last - c->first, c->first);
    for (int64_t i = 0; i < c->nruns; i++)
        if (colio_exec_job_add(job, cbuf + (c->runs[i].off - rs), c->runs[i].len, c->runs[i].off) != 0)
            return -1;
    return 0;
}

void colio_round_pipe_free(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    for (int i = 0; i < 2; i++) {
        colio_round_buf_t *b = &rd->buf[i];
        if (!b->busy && b->mem == NULL && b->job.calls == NULL)
            continue; /* never used */
        if (b->busy) /* abandoned with a job in flight: the executor still uses the buffer */
            colio_exec_wait(&b->job);
        colio_exec_job_free(&b->job);
        colio_pool_buf_give(&op->fh->bufs, b->mem, b->cap);
        memset(b, 0, sizeof *b);
    }
    rd->cbuf = NULL;
    rd->cbuf_cap = 0;
    rd->fetch = NULL;
    op->io_wait = NULL;
}
