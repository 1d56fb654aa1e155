/* Building a rank's piece list from a view or an explicit list; user-memory copies. */
#include "access/access.h"

#include <stdlib.h>
#include <string.h>

typedef struct piece_vec {
    colio_piece_t *p;
    int64_t n, cap;
} piece_vec_t;

static int vec_push(piece_vec_t *v, int64_t off, int64_t len, int64_t pos)
{
    if (v->n > 0) {
        colio_piece_t *last = &v->p[v->n - 1];
        if (last->off + last->len == off && last->pos + last->len == pos) {
            last->len += len; /* contiguous in the file and in the stream: one piece */
            return 0;
        }
    }
    return colio_pieces_append(&v->p, &v->n, &v->cap, (colio_piece_t){off, len, pos});
}

int colio_pieces_append(colio_piece_t **arr, int64_t *n, int64_t *cap, colio_piece_t p)
{
    if (*n == *cap) {
        int64_t c = *cap ? 2 * *cap : 64;
        colio_piece_t *a = realloc(*arr, sizeof *a * (size_t)c);
        if (a == NULL)
            return -1;
        *arr = a;
        *cap = c;
    }
    (*arr)[(*n)++] = p;
    return 0;
}

int colio_access_from_view(const colio_view_t *view, int64_t start, int64_t nbytes,
                           colio_access_t *acc, colio_err_t *err)
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
    if (f->extent > 0 && last_tile > (INT64_MAX - view->disp - f->disp[f->n - 1] - f->len[f->n - 1]) / f->extent)
        return colio_err_set(err, COLIO_ERR_ARG, "access ends beyond the largest 64-bit file offset");
    int64_t blk = colio_flat_find(f, within), inblk = within - f->prefix[blk];
    piece_vec_t v = {0};
    if (f->n == 1 && f->len[0] == f->extent) { /* dense filetype: tiles abut, one piece */
        if (vec_push(&v, view->disp + tile * f->extent + f->disp[0] + within, nbytes, 0) != 0)
            return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory listing pieces");
        acc->pieces = v.p;
        acc->n = 1;
        acc->nbytes = nbytes;
        return 0;
    }
    for (int64_t pos = 0; pos < nbytes;) {
        int64_t take = f->len[blk] - inblk;
        if (take > nbytes - pos)
            take = nbytes - pos;
        if (vec_push(&v, view->disp + tile * f->extent + f->disp[blk] + inblk, take, pos) != 0) {
            free(v.p);
            return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory listing %lld pieces", (long long)v.n);
        }
        pos += take;
        inblk = 0;
        if (++blk == f->n)
            blk = 0, tile++;
    }
    acc->pieces = v.p;
    acc->n = v.n;
    acc->nbytes = nbytes;
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
    /* merge file- and stream-adjacent pieces; reject overlap */
    int64_t k = 0;
    for (int64_t i = 0; i < m; i++) {
        if (k > 0 && p[i].off < p[k - 1].off + p[k - 1].len) {
            long long at = (long long)p[i].off;
            free(p);
            return colio_err_set(err, COLIO_ERR_ARG, "list pieces overlap at file offset %lld", at);
        }
        if (k > 0 && p[k - 1].off + p[k - 1].len == p[i].off && p[k - 1].pos + p[k - 1].len == p[i].pos)
            p[k - 1].len += p[i].len;
        else
            p[k++] = p[i];
    }
    acc->pieces = p;
    acc->n = k;
    acc->nbytes = pos;
    acc->stream_order = sorted;
    return 0;
}

void colio_access_clip(colio_access_t *acc, int64_t eof)
{
    int64_t keep = 0, bytes = 0;
    for (; keep < acc->n && acc->pieces[keep].off < eof; keep++) {
        colio_piece_t *p = &acc->pieces[keep];
        if (p->off + p->len > eof)
            p->len = eof - p->off;
        bytes += p->len;
    }
    acc->n = keep;
    acc->nbytes = bytes;
}

void colio_access_free(colio_access_t *acc)
{
    free(acc->pieces);
    memset(acc, 0, sizeof *acc);
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

/* Walk stream bytes [pos, pos+len) as contiguous memory runs. */
static void mem_walk(const colio_memmap_t *m, int64_t pos, int64_t len, char *contig, int to_mem)
{
    if (m->flat == NULL) {
        if (to_mem)
            memcpy(colio_addr(m->base, pos), contig, (size_t)len);
        else
            memcpy(contig, colio_addr(m->base, pos), (size_t)len);
        return;
    }
    const colio_flat_t *f = m->flat;
    int64_t inst = pos / f->size, within = pos % f->size;
    int64_t blk = colio_flat_find(f, within), inblk = within - f->prefix[blk];
    while (len > 0) {
        int64_t take = f->len[blk] - inblk < len ? f->len[blk] - inblk : len;
        char *addr = colio_addr(m->base, inst * f->extent + f->disp[blk] + inblk);
        if (to_mem)
            memcpy(addr, contig, (size_t)take);
        else
            memcpy(contig, addr, (size_t)take);
        contig += take;
        len -= take;
        inblk = 0;
        if (++blk == f->n)
            blk = 0, inst++;
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

char *colio_mem_contig(const colio_memmap_t *m, int64_t pos, int64_t len)
{
    if (m->flat == NULL)
        return colio_addr(m->base, pos);
    const colio_flat_t *f = m->flat;
    int64_t inst = pos / f->size, within = pos % f->size;
    int64_t blk = colio_flat_find(f, within), inblk = within - f->prefix[blk];
    if (f->len[blk] - inblk < len)
        return NULL;
    return colio_addr(m->base, inst * f->extent + f->disp[blk] + inblk);
}
