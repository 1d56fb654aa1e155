/* Building a rank's piece list from a view or an explicit list; user-memory copies. */
#include "access/access.h"

#include "access/copy.h"
#include "base/pool.h"

#include <stdlib.h>
#include <string.h>

/* Free the run list unless it is the access's own single run; let a borrowed flattening go. */
static void release_runs(colio_access_t *acc)
{
    if (acc->borrowed)
        colio_flat_drop(acc->borrowed);
    else if (acc->runs != &acc->one)
        colio_mem_free((void *)acc->runs);
    acc->borrowed = NULL;
    acc->shift = 0;
}

/* Adopt a run vector whose runs are in file order, none overlapping, with its totals (no pass over it). */
static void access_adopt(colio_access_t *acc, colio_runs_t *v, int64_t nbytes, int64_t npieces)
{
    acc->runs = v->r;
    acc->shift = 0;
    acc->borrowed = NULL;
    acc->n = v->n;
    acc->nbytes = nbytes;
    acc->npieces = npieces;
    acc->end = v->n > 0 ? colio_run_end(&v->r[v->n - 1]) : 0;
    acc->overlaps = 0;
}

/* Adopt any run vector as the access: its totals, largest end and overlaps counted in one pass. */
static void access_take(colio_access_t *acc, colio_runs_t *v)
{
    int64_t nbytes = 0, npieces = 0, end = 0;
    int overlaps = 0;
    for (int64_t i = 0; i < v->n; i++) {
        nbytes += colio_run_bytes(&v->r[i]);
        npieces += v->r[i].count;
        overlaps |= i > 0 && v->r[i].off < end;
        end = colio_run_end(&v->r[i]) > end ? colio_run_end(&v->r[i]) : end;
    }
    access_adopt(acc, v, nbytes, npieces);
    acc->end = end;
    acc->overlaps = overlaps;
}

/*
 * Whether an access of nbytes from stream byte `within` of a tile may
 * borrow the view's flattening: exactly one whole tile of a filetype in
 * file order, cached on its datatype (counted, so it can be held past the
 * view). Listing a copy of a climate map's tile (half a million runs) was
 * a tenth of its collective write and a quarter of its read.
 */
static int may_borrow(const colio_view_t *view, int64_t within, int64_t nbytes)
{
    const colio_flat_t *f = view->ftype;
    return within == 0 && nbytes == f->size && f->monotonic && !f->spills && !view->ftype_owned &&
           __atomic_load_n(&f->refs, __ATOMIC_ACQUIRE) > 0;
}

/* The access as the flattening's runs moved by shift (may_borrow), held. */
static void access_borrow(colio_access_t *acc, colio_flat_t *f, int64_t shift)
{
    colio_flat_hold(f);
    acc->borrowed = f;
    acc->runs = f->runs.r;
    acc->shift = shift;
    acc->n = f->runs.n;
    acc->nbytes = f->size;
    acc->npieces = f->npieces;
    acc->end = shift + colio_run_end(&f->runs.r[f->runs.n - 1]);
    acc->overlaps = 0;
}

/* Append the part [from, to) of run r to v; the pieces it adds (a merge with v's last run changes its count). */
static int64_t slice_counted(const colio_run_t *r, int64_t from, int64_t to, colio_runs_t *v, int *rc)
{
    int64_t n0 = v->n, last0 = n0 > 0 ? v->r[n0 - 1].count : 0, added = 0;
    *rc = colio_run_slice_stream(r, from, to, v);
    for (int64_t k = n0 > 0 ? n0 - 1 : 0; k < v->n; k++)
        added += v->r[k].count;
    return added - last0;
}

/* The filetype run i of tile t, in file offsets and in stream positions relative to the access start. */
static colio_run_t tile_run(const colio_view_t *view, int64_t i, int64_t t, int64_t sbyte)
{
    const colio_flat_t *f = view->ftype;
    colio_run_t r = f->runs.r[i];
    r.off += view->disp + t * f->extent;
    r.pos += t * f->size - sbyte;
    return r;
}

/*
 * Runs i .. last of tile t, whole, after another run of that tile (the
 * flattening merged what it could): copied and moved in one tight loop,
 * room reserved by the caller. Their stream bytes; their pieces added to
 * *pieces.
 */
static int64_t rest_of_tile(const colio_view_t *view, int64_t i, int64_t t, int64_t sbyte, colio_runs_t *v,
                            int64_t *pieces)
{
    const colio_flat_t *f = view->ftype;
    const colio_run_t *src = f->runs.r;
    colio_run_t *dst = v->r + v->n;
    int64_t shift = view->disp + t * f->extent, pshift = t * f->size - sbyte, count = 0;
    for (int64_t j = i; j < f->runs.n; j++, dst++) {
        *dst = src[j];
        dst->off += shift;
        dst->pos += pshift;
        count += src[j].count;
    }
    v->n += f->runs.n - i;
    *pieces += count;
    return f->size - src[i].pos;
}

/* The filetype run holding stream byte `within` of a tile. */
static int64_t find_run(const colio_flat_t *f, int64_t within)
{
    int64_t lo = 0, hi = f->runs.n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (f->runs.r[mid].pos <= within)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Bytes of run r (file offsets relative to base) below limit. */
static int64_t run_bytes_below(const colio_run_t *r, int64_t base, int64_t limit)
{
    int64_t off = base + r->off;
    if (limit <= off)
        return 0;
    int64_t started = (limit - off - 1) / r->stride + 1; /* pieces starting below limit */
    if (started > r->count)
        started = r->count;
    int64_t last = off + (started - 1) * r->stride, part = limit - last < r->len ? limit - last : r->len;
    return (started - 1) * r->len + part;
}

int64_t colio_view_bytes_below(const colio_view_t *view, int64_t limit)
{
    const colio_flat_t *f = view->ftype;
    if (f->size == 0 || f->runs.n == 0 || limit <= view->disp)
        return 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN; /* the data's span within one tile */
    for (int64_t i = 0; i < f->runs.n; i++) {
        lo = f->runs.r[i].off < lo ? f->runs.r[i].off : lo;
        hi = colio_run_end(&f->runs.r[i]) > hi ? colio_run_end(&f->runs.r[i]) : hi;
    }
    if (f->extent <= 0) /* every tile at the same place: one tile's worth, or none */
        return limit >= view->disp + hi ? f->size : 0;
    int64_t whole = (limit - view->disp - hi) / f->extent + 1; /* tiles wholly below limit */
    whole = limit - view->disp < hi ? 0 : whole;
    int64_t bytes = whole * f->size;
    for (int64_t t = whole; view->disp + t * f->extent + lo < limit; t++) /* tiles cut by limit (one or two) */
        for (int64_t i = 0; i < f->runs.n; i++)
            bytes += run_bytes_below(&f->runs.r[i], view->disp + t * f->extent, limit);
    return bytes;
}

int colio_access_from_view(const colio_view_t *view, int64_t start, int64_t nbytes, colio_access_t *acc,
                           colio_err_t *err)
{
    const colio_flat_t *f = view->ftype;
    memset(acc, 0, sizeof *acc);
    acc->stream_order = 1;
    if (nbytes == 0)
        return 0;
    if (start < 0)
        return colio_err_set(err, COLIO_ERR_ARG, "negative file offset %lld", (long long)start);
    if (f->size == 0)
        return colio_err_set(err, COLIO_ERR_ARG, "the view's filetype holds no data");
    if (start > INT64_MAX / view->etype_size)
        return colio_err_set(err, COLIO_ERR_ARG, "file offset overflows 64 bits");
    int64_t sbyte = start * view->etype_size;
    if (nbytes > INT64_MAX - sbyte)
        return colio_err_set(err, COLIO_ERR_ARG, "access ends beyond the largest 64-bit file offset");
    int64_t tile = sbyte / f->size, within = sbyte % f->size;
    int64_t last_tile = (sbyte + nbytes - 1) / f->size;
    if (f->spills && last_tile != tile)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED,
                             "the filetype's data reaches beyond its extent, so its tiles %lld and %lld overlap: "
                             "one access must stay within one tile", (long long)tile, (long long)last_tile);
    if (f->extent > 0 && last_tile > (INT64_MAX - view->disp - colio_run_end(&f->runs.r[f->runs.n - 1])) / f->extent)
        return colio_err_set(err, COLIO_ERR_ARG, "access ends beyond the largest 64-bit file offset");
    if (colio_flat_dense(f)) { /* dense filetype: tiles abut, one piece, held in the access itself */
        acc->one = colio_piece(view->disp + tile * f->extent + f->runs.r[0].off + within, nbytes, 0);
        acc->runs = &acc->one;
        acc->n = acc->npieces = 1;
        acc->nbytes = nbytes;
        acc->end = colio_run_end(&acc->one);
        return 0;
    }
    if (may_borrow(view, within, nbytes)) {
        access_borrow(acc, view->ftype, view->disp + tile * f->extent);
        return 0;
    }
    colio_runs_t v = {0};
    int64_t pieces = 0; /* the runs' counts, summed as they are listed */
    int64_t i = find_run(f, within), from = within - f->runs.r[i].pos;
    int rc = colio_runs_reserve(&v, (last_tile - tile + 1) * f->runs.n + 4); /* cut ends add at most 4 */
    for (int64_t done = 0; done < nbytes && rc == 0;) {
        if (from == 0 && i > 0 && v.n > 0 && nbytes - done >= f->size - f->runs.r[i].pos) {
            done += rest_of_tile(view, i, tile, sbyte, &v, &pieces); /* the tile's other runs, whole */
            i = 0, tile++;
            continue;
        }
        colio_run_t r = tile_run(view, i, tile, sbyte);
        int64_t to = colio_run_bytes(&r) - from < nbytes - done ? colio_run_bytes(&r) : from + nbytes - done;
        if (from == 0 && to == colio_run_bytes(&r) && i > 0 && v.n > 0) {
            v.r[v.n++] = r; /* a whole run after another of its tile: the flattening merged what it could */
            pieces += r.count;
        } else {
            pieces += slice_counted(&r, from, to, &v, &rc);
        }
        done += to - from;
        from = 0;
        if (++i == f->runs.n)
            i = 0, tile++;
    }
    if (rc != 0) {
        colio_runs_free(&v);
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory listing the access");
    }
    if (f->monotonic && !f->spills) /* runs in file order, none overlapping: the totals are known */
        access_adopt(acc, &v, nbytes, pieces);
    else
        access_take(acc, &v);
    return 0;
}

static int list_check(int64_t n, const MPI_Offset *offsets, const MPI_Offset *lengths, colio_err_t *err)
{
    if (n < 0)
        return colio_err_set(err, COLIO_ERR_ARG, "negative piece count %lld", (long long)n);
    if (n > 0 && (offsets == NULL || lengths == NULL))
        return colio_err_set(err, COLIO_ERR_ARG, "NULL offsets or lengths with %lld pieces", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        if (offsets[i] < 0 || lengths[i] < 0)
            return colio_err_set(err, COLIO_ERR_ARG, "piece %lld: negative offset or length", (long long)i);
        if (lengths[i] > INT64_MAX - offsets[i])
            return colio_err_set(err, COLIO_ERR_ARG, "piece %lld: end overflows 64 bits", (long long)i);
    }
    return 0;
}

int colio_access_from_list(int64_t n, const MPI_Offset *offsets, const MPI_Offset *lengths,
                           colio_access_t *acc, colio_err_t *err)
{
    memset(acc, 0, sizeof *acc);
    acc->stream_order = 1;
    int rc = list_check(n, offsets, lengths, err);
    if (rc != 0 || n == 0)
        return rc;
    colio_piece_t *p = malloc(sizeof *p * (size_t)n);
    if (p == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for %lld pieces", (long long)n);
    int64_t m = 0, pos = 0, sorted = 1;
    for (int64_t i = 0; i < n; i++) {
        if (lengths[i] == 0)
            continue;
        if (lengths[i] > INT64_MAX - pos) {
            free(p);
            return colio_err_set(err, COLIO_ERR_ARG, "total length of the list overflows 64 bits");
        }
        p[m] = (colio_piece_t){offsets[i], lengths[i], pos};
        if (m > 0 && p[m].off < p[m - 1].off)
            sorted = 0;
        pos += lengths[i];
        m++;
    }
    if (!sorted) {
        colio_piece_t *tmp = malloc(sizeof *tmp * (size_t)m);
        if (tmp == NULL) {
            free(p);
            return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory sorting %lld pieces", (long long)m);
        }
        colio_pieces_sort(p, m, tmp);
        free(tmp);
    }
    /* reject overlap; adjacent and regularly spaced pieces become runs */
    colio_runs_t v = {0};
    if (colio_runs_reserve(&v, m) != 0) {
        free(p);
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for %lld pieces", (long long)m);
    }
    for (int64_t i = 0; i < m; i++) {
        if (i > 0 && p[i].off < p[i - 1].off + p[i - 1].len) {
            long long at = (long long)p[i].off;
            free(p);
            colio_runs_free(&v);
            return colio_err_set(err, COLIO_ERR_ARG, "list pieces overlap at file offset %lld", at);
        }
        if (colio_runs_append(&v, colio_piece(p[i].off, p[i].len, p[i].pos)) != 0) {
            free(p);
            colio_runs_free(&v);
            return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for %lld pieces", (long long)m);
        }
    }
    free(p);
    access_take(acc, &v);
    acc->stream_order = sorted;
    return 0;
}

int colio_access_clip(colio_access_t *acc, int64_t eof)
{
    if (acc->n == 0 || acc->end <= eof)
        return 0; /* all before the end of file: the common case */
    colio_runs_t v = {0};
    int rc = colio_runs_reserve(&v, acc->n + 2);
    for (int64_t i = 0; i < acc->n && rc == 0; i++) { /* runs may overlap (read-only views): each on its own */
        colio_run_t r = colio_access_run(acc, i);
        if (colio_run_end(&r) <= eof)
            rc = colio_runs_append(&v, r);
        else if (r.off < eof) /* a run across the end of file: its part before */
            rc = colio_run_slice_file(&r, r.off, eof, &v);
    }
    if (rc != 0) {
        colio_runs_free(&v);
        return rc;
    }
    release_runs(acc);
    access_take(acc, &v);
    return 0;
}

void colio_access_free(colio_access_t *acc)
{
    release_runs(acc);
    memset(acc, 0, sizeof *acc);
}

void colio_access_drop_runs(colio_access_t *acc)
{
    release_runs(acc);
    acc->runs = NULL;
    acc->n = 0;
}

int colio_access_give_key(colio_access_t *acc, colio_access_key_t *key)
{
    int rc = 0;
    *key = (colio_access_key_t){acc->runs, acc->n, acc->shift, acc->borrowed};
    if (acc->runs == &acc->one) {
        colio_run_t *r = colio_mem_alloc(sizeof *r);
        if (r)
            *r = acc->one;
        else
            *key = (colio_access_key_t){0}, rc = -1;
        key->runs = r;
    }
    acc->borrowed = NULL; /* the key holds it now */
    acc->runs = NULL;
    acc->n = 0;
    acc->shift = 0;
    return rc;
}

int colio_access_copy_key(const colio_access_t *acc, colio_access_key_t *key)
{
    *key = (colio_access_key_t){acc->runs, acc->n, acc->shift, acc->borrowed};
    if (acc->borrowed) {
        colio_flat_hold(acc->borrowed);
        return 0;
    }
    colio_run_t *r = acc->n > 0 ? colio_mem_alloc(sizeof *r * (size_t)acc->n) : NULL;
    if (acc->n > 0 && r == NULL) {
        *key = (colio_access_key_t){0};
        return -1;
    }
    if (r)
        memcpy(r, acc->runs, sizeof *r * (size_t)acc->n);
    key->runs = r;
    return 0;
}

void colio_access_key_free(colio_access_key_t *key)
{
    if (key->flat)
        colio_flat_drop(key->flat);
    else
        colio_mem_free((void *)key->runs);
    *key = (colio_access_key_t){0};
}

void colio_pieces_sort(colio_piece_t *p, int64_t n, colio_piece_t *tmp)
{
    if (n < 2)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)p[i].off;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    uint64_t span = hi - lo;
    colio_piece_t *src = p, *dst = tmp;
    /* 11-bit digits of (off - lo): only as many passes as the span needs */
    for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 11) {
        int64_t count[2049] = {0};
        for (int64_t i = 0; i < n; i++)
            count[(((uint64_t)src[i].off - lo) >> shift & 2047) + 1]++;
        for (int d = 0; d < 2048; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++)
            dst[count[((uint64_t)src[i].off - lo) >> shift & 2047]++] = src[i];
        colio_piece_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != p)
        memcpy(p, src, sizeof *p * (size_t)n);
}

/* ---- user memory -------------------------------------------------------------- */

/* Where stream byte pos of a noncontiguous memtype lives: instance, run, piece, offset in the piece. */
typedef struct mem_cursor {
    int64_t inst, run, piece, in;
} mem_cursor_t;

static mem_cursor_t mem_locate(const colio_flat_t *f, int64_t pos)
{
    int64_t within = pos % f->size, run = colio_flat_find(f, within);
    int64_t rel = within - f->runs.r[run].pos;
    return (mem_cursor_t){pos / f->size, run, rel / f->runs.r[run].len, rel % f->runs.r[run].len};
}

static char *mem_addr(const colio_memmap_t *m, const mem_cursor_t *c)
{
    const colio_run_t *r = &m->flat->runs.r[c->run];
    return colio_addr(m->base, c->inst * m->flat->extent + r->off + c->piece * r->stride + c->in);
}

/* Walk stream bytes [pos, pos+len) as contiguous memory pieces. */
static void mem_walk(const colio_memmap_t *m, int64_t pos, int64_t len, char *contig, int to_mem)
{
    if (m->flat == NULL) {
        if (to_mem)
            colio_copy_bytes(colio_addr(m->base, pos), contig, (size_t)len);
        else
            colio_copy_bytes(contig, colio_addr(m->base, pos), (size_t)len);
        return;
    }
    const colio_flat_t *f = m->flat;
    mem_cursor_t c = mem_locate(f, pos);
    while (len > 0) {
        const colio_run_t *r = &f->runs.r[c.run];
        int64_t take = r->len - c.in < len ? r->len - c.in : len;
        char *addr = mem_addr(m, &c);
        if (to_mem)
            colio_copy_bytes(addr, contig, (size_t)take);
        else
            colio_copy_bytes(contig, addr, (size_t)take);
        contig += take;
        len -= take;
        c.in = 0;
        if (++c.piece == r->count) {
            c.piece = 0;
            if (++c.run == f->runs.n)
                c.run = 0, c.inst++;
        }
    }
}

void colio_mem_gather(const colio_memmap_t *m, int64_t pos, int64_t len, void *dst)
{
    mem_walk(m, pos, len, dst, 0);
}

void colio_mem_scatter(const colio_memmap_t *m, int64_t pos, int64_t len, const void *src)
{
    mem_walk(m, pos, len, (char *)src, 1);
}

void colio_mem_scatter_strided(const colio_memmap_t *m, int64_t pos, const char *src, int64_t src_stride,
                               int64_t len, int64_t count)
{
    for (int64_t k = 0; k < count; k++, src += src_stride, pos += len)
        mem_walk(m, pos, len, (char *)src, 1);
}

char *colio_mem_contig(const colio_memmap_t *m, int64_t pos, int64_t len)
{
    if (m->flat == NULL)
        return colio_addr(m->base, pos);
    mem_cursor_t c = mem_locate(m->flat, pos);
    if (m->flat->runs.r[c.run].len - c.in < len)
        return NULL;
    return mem_addr(m, &c);
}
