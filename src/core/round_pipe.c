/*
 * Pipelined two-phase rounds (colio_pipeline=2), after TAPIOCA's pipelined
 * aggregation buffers (Tessier et al., Sec. 4.3): an aggregator owns two
 * collective buffers; a round's storage writes run as a job in the I/O
 * helper thread (store/aio.h) on one buffer while the next round's exchange
 * fills the other, and reads fetch the next round ahead into the spare
 * buffer while the current one is sent out. A buffer is reused only once
 * its job finished, and the rounds end only when every job did, so the
 * FINAL agreement sees every storage error. Steps never block: when a job
 * is not done they return COLIO_STEP_WAIT with rnd.waiting set and no MPI
 * request, and the driver calls colio_round_io_wait.
 */
#include <string.h>

#include "core/file.h"
#include "core/op.h"

static const colio_aio_ops_t *const aio = &colio_aio_default;

/* A finished job's outcome, as the synchronous calls would have recorded it. */
static void fold_job(colio_op_t *op, colio_round_buf_t *b, int ran_here)
{
    colio_aio_job_t *j = &b->job;
    b->busy = 0;
    op->stats.io_calls += j->calls_made;
    op->stats.io_bytes += j->bytes;
    if (ran_here)
        op->stats.time.io += j->seconds;
    else if (!j->ran_by_caller) /* taken over by colio_round_io_wait: its time is counted there */
        op->stats.time.io_async += j->seconds;
    if (j->rc != 0) {
        const colio_aio_call_t *c = &j->calls[j->failed_call];
        colio_op_io_error(op, j->rc, j->kind == COLIO_AIO_WRITE ? "write" : "read", c->off, c->len);
    }
}

/* Whether buffer b is free now (its finished job folded in); else the step waits for it. */
static int buf_ready(colio_op_t *op, colio_round_buf_t *b)
{
    int done;
    if (!b->busy)
        return 1;
    aio->test(&b->job, &done);
    if (!done) {
        op->rnd.waiting = b;
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
    rd->waiting = NULL;
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
    colio_file *fh = op->fh;
    if (!fh->aio_ref) { /* counted while the file is open (store/aio.h) */
        colio_aio_acquire();
        fh->aio_ref = 1;
    }
    b->busy = 1;
    if (aio->submit(&b->job) != 0) { /* no helper thread: do it now, as colio_pipeline=1 would */
        colio_aio_job_run(&b->job);
        fold_job(op, b, 1);
    }
}

int colio_round_job_fill(colio_aio_job_t *job, const colio_coverage_t *c, int whole, char *cbuf, int64_t rs)
{
    if (whole)
        return colio_aio_job_add(job, cbuf + (c->first - rs), c->last - c->first, c->first);
    for (int64_t i = 0; i < c->nruns; i++)
        if (colio_aio_job_add(job, cbuf + (c->runs[i].off - rs), c->runs[i].len, c->runs[i].off) != 0)
            return -1;
    return 0;
}

int colio_round_io_pending(colio_op_t *op) { return op->phase == COLIO_PH_ROUND && op->rnd.waiting != NULL; }

void colio_round_io_wait(colio_op_t *op)
{
    colio_round_buf_t *b = op->rnd.waiting;
    double t0 = MPI_Wtime();
    aio->wait(&b->job); /* folded by the next step */
    op->stats.time.io += MPI_Wtime() - t0;
    op->rnd.waiting = NULL;
}

void colio_round_pipe_free(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    for (int i = 0; i < 2; i++) {
        colio_round_buf_t *b = &rd->buf[i];
        if (b->busy) /* abandoned with a job in flight: the helper still uses the buffer */
            aio->wait(&b->job);
        colio_aio_job_free(&b->job);
        colio_buf_give(&op->fh->bufs, b->mem, b->cap);
        memset(b, 0, sizeof *b);
    }
    rd->cbuf = NULL;
    rd->cbuf_cap = 0;
    rd->waiting = NULL;
}
