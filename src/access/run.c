/* Strided runs: appending with extension, and cutting runs by stream or file range. */
#include "access/run.h"

#include "base/pool.h"

#include <stdlib.h>

static int grow(colio_runs_t *v)
{
    int64_t cap = v->cap ? 2 * v->cap : 16;
    colio_run_t *r = colio_mem_realloc(v->r, sizeof *r * (size_t)cap);
    if (r == NULL)
        return -1;
    v->r = r;
    v->cap = cap;
    return 0;
}

int colio_run_extend(colio_run_t *a, const colio_run_t *b)
{
    if (a->count == 1 && b->count == 1 && a->off + a->len == b->off && a->pos + a->len == b->pos) {
        a->len += b->len; /* one longer piece */
        a->stride = a->len;
        return 1;
    }
    if (b->len != a->len || b->pos != a->pos + a->count * a->len)
        return 0;
    int64_t stride = a->count > 1 ? a->stride : b->off - a->off;
    if (stride <= a->len || b->off != a->off + a->count * stride || (b->count > 1 && b->stride != stride))
        return 0;
    a->stride = stride;
    a->count += b->count;
    return 1;
}

int colio_runs_append(colio_runs_t *v, colio_run_t b)
{
    if (b.len <= 0 || b.count <= 0)
        return 0;
    if (b.count == 1)
        b.stride = b.len;
    if (v->n > 0 && colio_run_extend(&v->r[v->n - 1], &b))
        return 0;
    if (v->n == v->cap && grow(v) != 0)
        return -1;
    v->r[v->n++] = b;
    return 0;
}

int colio_runs_reserve(colio_runs_t *v, int64_t n)
{
    if (n <= v->cap)
        return 0;
    colio_run_t *r = colio_mem_realloc(v->r, sizeof *r * (size_t)n);
    if (r == NULL)
        return -1;
    v->r = r;
    v->cap = n;
    return 0;
}

void colio_runs_free(colio_runs_t *v)
{
    colio_mem_free(v->r);
    v->r = NULL;
    v->n = v->cap = 0;
}

int colio_run_slice_stream(const colio_run_t *r, int64_t from, int64_t to, colio_runs_t *out)
{
    if (from == 0 && to == colio_run_bytes(r))
        return colio_runs_append(out, *r); /* the whole run */
    int rc = 0;
    while (from < to && rc == 0) {
        int64_t k = from / r->len, in = from % r->len;
        int64_t piece_off = r->off + k * r->stride, piece_pos = r->pos + k * r->len;
        if (in > 0 || to - from < r->len) { /* a partial piece */
            int64_t take = (r->len - in < to - from) ? r->len - in : to - from;
            rc = colio_runs_append(out, colio_piece(piece_off + in, take, piece_pos + in));
            from += take;
            continue;
        }
        int64_t whole = (to - from) / r->len; /* whole pieces from k on */
        colio_run_t w = {piece_off, r->len, r->stride, whole, piece_pos};
        rc = colio_runs_append(out, w);
        from += whole * r->len;
    }
    return rc;
}

int colio_run_slice_file(const colio_run_t *r, int64_t lo, int64_t hi, colio_runs_t *out)
{
    /* pieces k whose bytes fall in [lo, hi): from the first piece ending after lo to the last starting before hi */
    int64_t first = 0;
    if (lo > r->off) {
        int64_t k0 = (lo - r->off) / r->stride; /* the last piece starting at or before lo */
        first = r->off + k0 * r->stride + r->len > lo ? k0 : k0 + 1;
    }
    int64_t last = hi <= r->off ? -1 : (hi - 1 - r->off) / r->stride;
    if (last >= r->count)
        last = r->count - 1;
    int rc = 0;
    for (int64_t k = first; k <= last && rc == 0;) {
        int64_t poff = r->off + k * r->stride, ppos = r->pos + k * r->len;
        int64_t s = poff < lo ? lo : poff, e = poff + r->len > hi ? hi : poff + r->len;
        if (s >= e) {
            k++;
            continue;
        }
        if (s > poff || e < poff + r->len) { /* a piece cut by lo or hi */
            rc = colio_runs_append(out, colio_piece(s, e - s, ppos + (s - poff)));
            k++;
            continue;
        }
        /* whole pieces k .. m, m the last one ending by hi */
        int64_t m = (hi - r->len - r->off) / r->stride;
        if (m > last)
            m = last;
        colio_run_t w = {poff, r->len, r->stride, m - k + 1, ppos};
        rc = colio_runs_append(out, w);
        k = m + 1;
    }
    return rc;
}
