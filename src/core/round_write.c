/*
 * Collective write rounds. Requesters send their pieces of the round straight
 * from user memory when they form one run there, packed otherwise. The
 * aggregator lands each source's data in the collective buffer (directly
 * when the source's pieces are one file run), then writes the round: one
 * call when the covered bytes are contiguous or holes are filled by
 * read-modify-write (data sieving), else one call per covered run, so bytes
 * nobody wrote keep their content either way.
 */
#include <string.h>

#include "core/file.h"
#include "core/op.h"

/* Average hole between covered runs up to which read-modify-write pays off. */
#define COLIO_SIEVE_WRITE_HOLE (16 << 10)

static const colio_slice_t *own_slice(const colio_op_t *op)
{
    for (int i = 0; i < op->rnd.nagg; i++)
        if (op->rnd.agg_slices[i].peer == op->fh->rank)
            return &op->rnd.agg_slices[i];
    return NULL;
}

/* Read-modify-write needs holes to fill and a readable file. */
static int want_sieve(const colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    return rd->covered < rd->last - rd->first && op->fh->readable &&
           colio_round_sieve_worth(op, op->fh->hints.ds_write, COLIO_SIEVE_WRITE_HOLE);
}

static void pack_requester_slices(colio_op_t *op)
{
    const colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nreq; i++) {
        const colio_slice_t *s = &rd->req_slices[i];
        if (!s->staged)
            continue;
        const colio_agg_list_t *l = &op->plan.to_agg[s->list];
        char *at = s->buf;
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_mem_gather(&op->mem, l->pos[k], l->offlen[2 * k + 1], at);
            at += l->offlen[2 * k + 1];
        }
    }
}

static void copy_own_pieces(colio_op_t *op)
{
    const colio_slice_t *s = own_slice(op);
    if (s == NULL)
        return;
    const colio_agg_list_t *l = &op->plan.to_agg[op->plan.my_agg];
    for (int64_t k = s->first; k < s->first + s->n; k++)
        colio_mem_gather(&op->mem, l->pos[k], l->offlen[2 * k + 1], op->rnd.cbuf + (l->offlen[2 * k] - op->rnd.rs));
}

void colio_round_write_begin(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    pack_requester_slices(op);
    if (op->plan.my_agg < 0 || rd->nagg == 0)
        return;
    rd->sieve = want_sieve(op);
    if (rd->sieve) /* before any data lands: holes keep what the file holds */
        colio_op_read(op, rd->cbuf + (rd->first - rd->rs), rd->last - rd->first, rd->first);
    colio_round_place_agg_slices(op, !rd->overlap); /* overlap: never two messages into one place */
    copy_own_pieces(op);
}

static void unpack_incoming(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        if (!s->staged)
            continue;
        const colio_src_list_t *l = &op->plan.from_src[s->list];
        const char *at = s->buf;
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            memcpy(rd->cbuf + (l->offlen[2 * k] - rd->rs), at, (size_t)l->offlen[2 * k + 1]);
            at += l->offlen[2 * k + 1];
        }
    }
}

void colio_round_write_end(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    if (op->plan.my_agg < 0 || rd->nagg == 0)
        return;
    unpack_incoming(op);
    if (rd->sieve || rd->covered == rd->last - rd->first) {
        colio_op_write(op, rd->cbuf + (rd->first - rd->rs), rd->last - rd->first, rd->first);
        return;
    }
    for (int64_t i = 0; i < rd->runs; i++)
        colio_op_write(op, rd->cbuf + (rd->cov[i].off - rd->rs), rd->cov[i].len, rd->cov[i].off);
}
