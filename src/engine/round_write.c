/*
 * Collective write rounds. Requesters send their runs of the round straight
 * from user memory when they form one stretch of it, packed otherwise. The
 * aggregator lands each source's data in the collective buffer: in place
 * when the source's pieces are one file run, through a derived datatype
 * when they are worth it, else via the staging buffer. Then it writes the
 * round: one call when the covered bytes are contiguous or holes are filled
 * by read-modify-write (data sieving), else one call per covered run, so
 * bytes nobody wrote keep their content either way. Those calls go to the
 * I/O executor as one job (round_pipe.c); pipelined (two buffers) the next
 * round goes on in the other buffer, else it waits for the job. The read
 * of the holes is a job too, done (ROUND_FETCH) before any byte of the
 * round lands.
 */
#include <string.h>

#include "engine/file.h"
#include "engine/round_kind.h"
#include "engine/round_pipe.h"
#include "engine/round_slices.h"
#include "engine/step.h"
#include "engine/model.h"

/* colio_storage_model=off: average hole between covered runs up to which read-modify-write pays off. */
#define COLIO_SIEVE_WRITE_HOLE (16 << 10)

/*
 * Read-modify-write needs holes to fill and a readable file; never under
 * colio_lock_writes (enable or automatic, locks taken or not), where a hole
 * may be written by another handle meanwhile. romio_ds_write=automatic
 * weighs reading and rewriting the round's extent against one write per
 * covered run by the storage figures (engine/strategy.h): on tmpfs here a
 * 1 MiB round's read costs as much as some 140 write calls, so a round of
 * a few runs is written around its holes.
 */
static int want_sieve(const colio_op_t *op)
{
    const colio_coverage_t *c = &op->rnd.cov;
    const colio_file *fh = op->fh;
    if (c->covered >= c->last - c->first || !fh->readable || fh->lock_mode != COLIO_DISABLE)
        return 0;
    if (fh->hints.ds_write == COLIO_AUTOMATIC && !fh->figures.fixed)
        return colio_model_sieve_write(&fh->figures, (double)(c->last - c->first), (double)c->covered,
                                          (double)c->nruns);
    return colio_round_sieve_worth(op, fh->hints.ds_write, COLIO_SIEVE_WRITE_HOLE);
}

static void pack_requester_slices(colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nreq; i++) {
        const colio_slice_t *s = &rd->req_slices[i];
        if (!s->packed)
            continue;
        const colio_agg_list_t *l = &op->plan.to_agg[s->list];
        char *at = s->buf;
        colio_list_walk_t w = colio_list_walk_from(l, s->first);
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_run_t r = colio_list_next(l, &w, l->words);
            colio_mem_gather(&op->mem, r.pos, colio_run_bytes(&r), at); /* a run's stream bytes are consecutive */
            at += colio_run_bytes(&r);
        }
    }
}

void colio_round_write_begin(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    pack_requester_slices(op);
    if (op->plan.my_agg < 0 || rd->nagg == 0)
        return;
    if (rd->cov.covered < rd->cov.last - rd->cov.first && colio_coverage_runs(&rd->cov) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory listing covered runs");
        op->io_failed = 1;
    }
    rd->sieve = want_sieve(op);
    if (rd->sieve) /* done before any data lands (ROUND_FETCH; one-sided: before the window is posted): holes
                      keep the file's bytes */
        colio_round_fetch_add(op, rd->cbuf + (rd->cov.first - rd->rs), rd->cov.last - rd->cov.first, rd->cov.first);
    if (op->plan.rma_data)
        return; /* requesters put into the collective buffer in place (overlapping puts: see DESIGN.md) */
    colio_round_place_agg_slices(op, !rd->cov.overlap); /* overlap: never two messages into one place */
}

static void unpack_incoming(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        if (!s->packed)
            continue;
        const colio_src_list_t *l = &op->plan.from_src[s->list];
        const char *at = s->buf;
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_run_t r = colio_meta_run(l->meta, l->words, l->base, k, 0);
            colio_round_cbuf_unpack(op, &r, at);
            at += colio_run_bytes(&r);
        }
    }
}

/* The round's writes as a job on its buffer; the next round takes the other buffer. */
static void submit_writes(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    const colio_coverage_t *c = &rd->cov;
    colio_round_buf_t *b = &rd->buf[rd->cur];
    if (op->io_failed)
        return;
    colio_exec_job_reset(&b->job, COLIO_EXEC_WRITE, op->fh->store, op->fh->st, &rd->chain_failed);
    if (colio_round_job_fill(&b->job, c, rd->sieve || c->covered == c->last - c->first, rd->cbuf, rd->rs) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory listing the writes of round %lld", (long long)rd->r);
        op->io_failed = 1;
        return;
    }
    colio_round_pipe_submit(op, b);
    if (rd->pipelined)
        rd->cur ^= 1;
}

void colio_round_write_end(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    if (op->plan.my_agg < 0 || rd->nagg == 0)
        return;
    unpack_incoming(op);
    submit_writes(op);
}
