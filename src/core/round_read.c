/*
 * Collective read rounds. The aggregator reads the bytes its sources asked
 * for in this round (the whole covered extent in one call when holes are
 * small: data sieving, else one call per covered run), then sends each
 * source its pieces, straight from the collective buffer when they are one
 * file run. Requesters receive straight into user memory when their pieces
 * are one run there, and unpack staged messages otherwise.
 */
#include <string.h>

#include "core/file.h"
#include "core/op.h"

/* Average hole between covered runs up to which reading the holes pays off. */
#define COLIO_SIEVE_READ_HOLE (64 << 10)

static int want_sieve(const colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    return rd->covered == rd->last - rd->first || colio_round_sieve_worth(op, op->fh->hints.ds_read, COLIO_SIEVE_READ_HOLE);
}

static void read_round(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    rd->sieve = want_sieve(op);
    if (rd->sieve) {
        colio_op_read(op, rd->cbuf + (rd->first - rd->rs), rd->last - rd->first, rd->first);
        return;
    }
    for (int64_t i = 0; i < rd->runs; i++)
        colio_op_read(op, rd->cbuf + (rd->cov[i].off - rd->rs), rd->cov[i].len, rd->cov[i].off);
}

/* Aggregator: pack the sources whose pieces could not leave from the collective buffer. */
static void pack_outgoing(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        if (!s->staged)
            continue;
        const colio_src_list_t *l = &op->plan.from_src[s->list];
        char *at = s->buf;
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            memcpy(at, rd->cbuf + (l->offlen[2 * k] - rd->rs), (size_t)l->offlen[2 * k + 1]);
            at += l->offlen[2 * k + 1];
        }
    }
}

static void deliver_own_pieces(colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        if (s->peer != op->fh->rank)
            continue;
        const colio_agg_list_t *l = &op->plan.to_agg[op->plan.my_agg];
        for (int64_t k = s->first; k < s->first + s->n; k++)
            colio_mem_scatter(&op->mem, l->pos[k], l->offlen[2 * k + 1], rd->cbuf + (l->offlen[2 * k] - rd->rs));
    }
}

void colio_round_read_begin(colio_op_t *op)
{
    if (op->plan.my_agg < 0 || op->rnd.nagg == 0)
        return;
    read_round(op);
    colio_round_place_agg_slices(op, 1);
    pack_outgoing(op);
    deliver_own_pieces(op);
}

void colio_round_read_end(colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nreq; i++) {
        const colio_slice_t *s = &rd->req_slices[i];
        if (!s->staged)
            continue;
        const colio_agg_list_t *l = &op->plan.to_agg[s->list];
        const char *at = s->buf;
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_mem_scatter(&op->mem, l->pos[k], l->offlen[2 * k + 1], at);
            at += l->offlen[2 * k + 1];
        }
    }
}
