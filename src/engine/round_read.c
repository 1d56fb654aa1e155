/*
 * Collective read rounds. The aggregator reads the bytes its sources asked
 * for in this round (the whole covered extent in one call when holes are
 * small: data sieving, else one call per covered run), then sends each
 * source its pieces: straight from the collective buffer when they are one
 * file run or worth a derived datatype, packed otherwise. Requesters receive
 * straight into user memory when their runs are one stretch of it, and
 * unpack packed messages otherwise. Pipelined (two buffers, round_pipe.c),
 * the aggregator reads its next round ahead into the spare buffer, in the
 * I/O helper, while this round's exchange runs.
 */
#include <string.h>

#include "engine/file.h"
#include "engine/round_kind.h"
#include "engine/round_pipe.h"
#include "engine/round_slices.h"
#include "engine/step.h"

/* Average hole between covered runs up to which reading the holes pays off. */
#define COLIO_SIEVE_READ_HOLE (64 << 10)

static int want_sieve(const colio_op_t *op)
{
    const colio_coverage_t *c = &op->rnd.cov;
    return c->covered == c->last - c->first || colio_round_sieve_worth(op, op->fh->hints.ds_read, COLIO_SIEVE_READ_HOLE);
}

/* The covered runs, when there are holes; 0 or -1 (out of memory, recorded). */
static int list_runs(colio_op_t *op)
{
    colio_coverage_t *c = &op->rnd.cov;
    if (c->covered < c->last - c->first && colio_coverage_runs(c) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory listing covered runs");
        op->io_failed = 1;
        return -1;
    }
    return 0;
}

static void read_round(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    const colio_coverage_t *c = &rd->cov;
    list_runs(op);
    rd->sieve = want_sieve(op);
    if (rd->sieve) {
        colio_round_fetch_add(op, rd->cbuf + (c->first - rd->rs), c->last - c->first, c->first);
        return;
    }
    for (int64_t i = 0; i < c->nruns; i++)
        colio_round_fetch_add(op, rd->cbuf + (c->runs[i].off - rd->rs), c->runs[i].len, c->runs[i].off);
}

/* Aggregator: pack the sources whose pieces could not leave from the collective buffer. */
static void pack_outgoing(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        if (!s->packed)
            continue;
        const colio_src_list_t *l = &op->plan.from_src[s->list];
        char *at = s->buf;
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_run_t r = colio_meta_run(l->meta, l->words, l->base, k, 0);
            colio_round_cbuf_pack(op, &r, at);
            at += colio_run_bytes(&r);
        }
    }
}

/*
 * The next round of my aggregator, read ahead into the spare buffer (its
 * previous round's exchange is over). rnd.cov is this round's no longer:
 * it becomes the next round's. Not after a storage error.
 */
static void read_ahead(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    colio_round_buf_t *b = &rd->buf[rd->cur ^ 1];
    int64_t r, rs, re;
    if (op->io_failed || b->busy || !colio_round_cover_next(op, &r, &rs, &re) || list_runs(op) != 0)
        return;
    const colio_coverage_t *c = &rd->cov;
    colio_exec_job_reset(&b->job, COLIO_EXEC_READ, op->fh->store, op->fh->st, &rd->chain_failed);
    if (colio_round_job_fill(&b->job, c, want_sieve(op), b->mem + colio_round_read_shift(op, rs), rs) != 0)
        return; /* out of memory for the list: that round reads in turn */
    b->ahead = 1;
    b->round = r;
    colio_round_pipe_submit(op, b);
}

void colio_round_read_begin(colio_op_t *op)
{
    colio_round_buf_t *b = &op->rnd.buf[op->rnd.cur];
    if (op->plan.my_agg < 0 || op->rnd.nagg == 0)
        return;
    if (op->rnd.pipelined && b->ahead && b->round == op->rnd.r)
        b->ahead = 0; /* read ahead, and folded in before this round began */
    else
        read_round(op); /* a job (ROUND_FETCH), done before the window is posted (one-sided) */
    if (op->rnd.pipelined) {
        colio_round_fetch_submit(op); /* the round's read before the next one's */
        read_ahead(op);
    }
    if (op->plan.rma_data)
        return;
    colio_round_place_agg_slices(op, 1);
}

void colio_round_read_fetched(colio_op_t *op)
{
    if (op->plan.my_agg < 0 || op->rnd.nagg == 0 || op->plan.rma_data)
        return;
    pack_outgoing(op);
}

void colio_round_read_end(colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nreq; i++) {
        const colio_slice_t *s = &rd->req_slices[i];
        if (!s->packed)
            continue;
        const colio_agg_list_t *l = &op->plan.to_agg[s->list];
        const char *at = s->buf;
        colio_list_walk_t w = colio_list_walk_from(l, s->first);
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_run_t r = colio_list_next(l, &w, l->words);
            colio_mem_scatter(&op->mem, r.pos, colio_run_bytes(&r), at);
            at += colio_run_bytes(&r);
        }
    }
}
