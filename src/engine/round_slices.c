/*
 * What the rounds of writes and of reads share: which round an aggregator
 * covers next and its coverage, the incoming slices' place, the copies
 * between the collective buffer and user memory, the data sieving choice.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "access/copy.h"
#include "engine/file.h"
#include "engine/round_slices.h"
#include "engine/step.h"

static int64_t round_of(const colio_op_t *op, int64_t off)
{
    int agg;
    int64_t round, run_end;
    op->plan.dom.ops->locate(&op->plan.dom, off, &agg, &round, &run_end);
    return round;
}

/* The next round my aggregator has pieces in (INT64_MAX: none). */
int64_t colio_round_agg_next(const colio_op_t *op)
{
    int64_t best = INT64_MAX;
    for (int s = 0; op->plan.my_agg >= 0 && s < op->fh->nprocs; s++) {
        const colio_src_list_t *l = &op->plan.from_src[s];
        if (l->cur < l->n) {
            int64_t r = round_of(op, colio_meta_off(l->meta, l->words, l->base, l->cur));
            best = r < best ? r : best;
        }
    }
    return best;
}

/* Room for bytes in a buffer from the file's cache, taken anew (nothing kept) when too small; -1: out of memory. */
int colio_round_buf_reserve(colio_pool_t *bufs, char **buf, int64_t *size, int64_t bytes)
{
    if (bytes <= *size)
        return 0;
    size_t cap;
    char *b = colio_pool_buf_take(bufs, (size_t)bytes, &cap);
    if (b == NULL)
        return -1;
    colio_pool_buf_give(bufs, *buf, (size_t)*size);
    *buf = b;
    *size = (int64_t)cap;
    return 0;
}

/* Empty the coverage for the extent [rs, re) of round r; the bitmap comes from the file's buffer cache. */
int colio_round_coverage_begin(colio_op_t *op, int64_t r, int64_t rs, int64_t re)
{
    colio_coverage_t *c = &op->rnd.cov;
    int64_t words = (re - rs + 63) / 64;
    if (c->cap_words < words) {
        size_t cap;
        colio_pool_buf_give(&op->fh->bufs, c->bits, sizeof *c->bits * (size_t)c->cap_words);
        c->bits = colio_pool_buf_take(&op->fh->bufs, sizeof *c->bits * (size_t)words, &cap);
        c->cap_words = c->bits ? (int64_t)(cap / sizeof *c->bits) : 0;
    }
    if (colio_coverage_reset(c, rs, re - rs) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for the coverage of round %lld", (long long)r);
        op->io_failed = 1;
        return -1;
    }
    return 0;
}

int colio_runs_type(const int64_t *meta, int words, int64_t from, int64_t first, int64_t nruns, int64_t base,
                    MPI_Datatype *t)
{
    int n = (int)nruns, *bl = calloc((size_t)n, sizeof(int)), ok = bl != NULL;
    MPI_Aint *disp = calloc((size_t)n, sizeof(MPI_Aint)); /* calloc: no may-be-uninitialized once inlined */
    MPI_Datatype *types = calloc((size_t)n, sizeof(MPI_Datatype));
    ok = ok && disp && types;
    int built = 0;
    for (int i = 0; ok && i < n; i++, built++) {
        colio_run_t r = colio_meta_run(meta, words, from, first + i, 0);
        disp[i] = (MPI_Aint)(r.off - base);
        bl[i] = r.count > 1 ? 1 : (int)r.len;
        types[i] = MPI_BYTE;
        if (r.count > 1) /* a strided run is one vector */
            ok = MPI_Type_create_hvector((int)r.count, (int)r.len, (MPI_Aint)r.stride, MPI_BYTE, &types[i]) == MPI_SUCCESS;
    }
    ok = ok && MPI_Type_create_struct(n, bl, disp, types, t) == MPI_SUCCESS;
    if (ok && MPI_Type_commit(t) != MPI_SUCCESS) {
        MPI_Type_free(t);
        ok = 0;
    }
    for (int i = 0; types && i < built; i++)
        if (types[i] != MPI_BYTE)
            MPI_Type_free(&types[i]);
    free(bl), free(disp), free(types);
    return ok ? 0 : -1;
}

/* Describe a source's pieces in the collective buffer with a derived datatype, if worth it. */
static int type_over_cbuf(colio_op_t *op, colio_slice_t *s)
{
    if (s->n > INT_MAX || s->bytes > ((int64_t)1 << 30) || s->bytes / s->pieces < op->fh->hints.typed_min)
        return 0;
    MPI_Datatype t;
    const colio_src_list_t *l = &op->plan.from_src[s->list];
    if (colio_runs_type(l->meta, l->words, l->base, s->first, s->n, op->rnd.rs, &t) != 0)
        return 0;
    s->type = t;
    s->buf = op->rnd.cbuf;
    return 1;
}

/* Room for bytes in the aggregator's packing buffer (grown only for overlapping requests; nothing packed yet). */
static int agg_pack_reserve(colio_op_t *op, int64_t bytes)
{
    colio_round_t *rd = &op->rnd;
    if (colio_round_buf_reserve(&op->fh->bufs, &rd->agg_pack, &rd->agg_pack_size, bytes) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory staging %lld bytes", (long long)bytes);
        op->io_failed = 1;
        return -1;
    }
    return 0;
}

void colio_round_place_agg_slices(colio_op_t *op, int in_place)
{
    colio_round_t *rd = &op->rnd;
    int64_t packed = 0;
    for (int i = 0; i < rd->nagg; i++) {
        colio_slice_t *s = &rd->agg_slices[i];
        if (s->peer == op->fh->rank)
            continue;
        const colio_src_list_t *l = &op->plan.from_src[s->list];
        int64_t off0 = colio_meta_off(l->meta, l->words, l->base, s->first);
        if (in_place && s->contig) {
            s->buf = rd->cbuf + (off0 - rd->rs);
        } else if (!in_place || !type_over_cbuf(op, s)) {
            s->packed = 1;
            s->pack_off = packed;
            packed += s->bytes;
        }
    }
    int ok = agg_pack_reserve(op, packed) == 0;
    for (int i = 0; i < rd->nagg; i++) {
        colio_slice_t *s = &rd->agg_slices[i];
        if (s->packed && ok)
            s->buf = rd->agg_pack + s->pack_off;
        else if (s->packed) /* out of memory: move the bytes through the collective buffer, the error is recorded */
            s->buf = rd->cbuf, s->packed = 0;
    }
}

int64_t colio_round_read_shift(const colio_op_t *op, int64_t rs)
{
    return op->args.kind == COLIO_OP_READ ? rs & (COLIO_READ_ALIGN - 1) : 0;
}

int colio_round_sieve_worth(const colio_op_t *op, colio_toggle_t toggle, int64_t max_avg_hole)
{
    const colio_coverage_t *c = &op->rnd.cov;
    if (toggle != COLIO_AUTOMATIC)
        return toggle == COLIO_ENABLE;
    return c->last - c->first - c->covered <= (c->nruns - 1) * max_avg_hole;
}

int colio_round_cover_next(colio_op_t *op, int64_t *r_p, int64_t *rs_p, int64_t *re_p)
{
    int64_t r = colio_round_agg_next(op), rs, re;
    if (r == INT64_MAX)
        return 0;
    op->plan.dom.ops->round_extent(&op->plan.dom, op->plan.my_agg, r, &rs, &re);
    if (rs >= re || colio_round_coverage_begin(op, r, rs, re) != 0)
        return 0;
    for (int src = 0; src < op->fh->nprocs; src++) {
        const colio_src_list_t *l = &op->plan.from_src[src];
        int64_t k = l->cur, end = 0;
        for (; k < l->n; k++) {
            colio_run_t r = colio_meta_run(l->meta, l->words, l->base, k, 0);
            if (r.off >= re)
                break;
            colio_coverage_mark(&op->rnd.cov, r.off, r.len, r.stride, r.count);
            end = colio_run_end(&r);
        }
        if (k > l->cur) /* in file order: the first offset, the last end */
            colio_coverage_span(&op->rnd.cov, colio_meta_off(l->meta, l->words, l->base, l->cur), end);
    }
    *r_p = r, *rs_p = rs, *re_p = re;
    return 1;
}

void colio_round_cbuf_mem(colio_op_t *op, const colio_run_t *r, int to_cbuf)
{
    char *at = op->rnd.cbuf + (r->off - op->rnd.rs);
    char *m = colio_mem_contig(&op->mem, r->pos, colio_run_bytes(r)); /* the run's stream bytes in one place? */
    if (m && to_cbuf) {
        colio_copy_strided(at, r->stride, m, r->len, r->len, r->count);
        return;
    }
    if (m) {
        colio_copy_strided(m, r->len, at, r->stride, r->len, r->count);
        return;
    }
    for (int64_t k = 0; k < r->count; k++, at += r->stride) {
        if (to_cbuf)
            colio_mem_gather(&op->mem, r->pos + k * r->len, r->len, at);
        else
            colio_mem_scatter(&op->mem, r->pos + k * r->len, r->len, at);
    }
}