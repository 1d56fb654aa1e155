/*
 * The subfiling store: a logical file over several subfiles of one base
 * backend (posix, fault or null), by the layout of subfile/layout.h. Each
 * access is cut at stripe boundaries and each piece goes to its subfile at
 * its physical offset; the engine's file domains (place/domain_subfile.c)
 * keep a round inside one stripe, so a collective round is one call.
 * Subfiles are opened when first touched (an aggregator touches only its
 * own group's), except those named at open; a short read inside a subfile
 * is a hole (zeros) since the engine clips reads at the logical size.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hints.h"
#include "store/backends.h"
#include "store/cost.h"
#include "store/iov.h"
#include "store/store.h"
#include "subfile/layout.h"

struct colio_store {
    colio_subfile_layout_t lay;    /* a copy; names shared with the caller's layout */
    const colio_store_ops_t *base;
    colio_hints_t hints;
    int flags, rank;
    colio_store_t **sub;           /* nsub handles, NULL until opened */
    pthread_mutex_t lock;          /* lazy opens: the I/O helper thread accesses too */
    int direct_set;                /* set_direct was called: subfiles opened later take its bytes */
    int64_t direct_write, direct_read;
};

/* The handle of subfile k, opened now if it was not. */
static int sub_handle(colio_store_t *st, int k, colio_store_t **h_p)
{
    int rc = 0, readable = 0;
    pthread_mutex_lock(&st->lock);
    if (st->sub[k] == NULL) {
        rc = st->base->open(st->lay.names[k], st->flags & ~(COLIO_STORE_CREATE | COLIO_STORE_EXCL), &st->hints,
                            st->rank, &st->sub[k], &readable);
        if (rc == 0 && st->direct_set)
            st->base->set_direct(st->sub[k], st->direct_write, st->direct_read);
    }
    *h_p = st->sub[k];
    pthread_mutex_unlock(&st->lock);
    return rc;
}

int colio_store_subfile_open(const colio_subfile_layout_t *lay, const colio_store_ops_t *base, int flags,
                             const colio_hints_t *hints, int rank, const int *eager, int neager,
                             colio_store_t **st_p, int *readable_p)
{
    colio_store_t *st = calloc(1, sizeof *st);
    if (st == NULL || (st->sub = calloc((size_t)lay->nsub, sizeof *st->sub)) == NULL) {
        free(st);
        return -ENOMEM;
    }
    st->lay = *lay;
    st->base = base;
    st->hints = *hints;
    st->flags = flags;
    st->rank = rank;
    pthread_mutex_init(&st->lock, NULL);
    *readable_p = 1;
    for (int i = 0; i < neager; i++) {
        int readable = 0, k = eager[i];
        int rc = st->sub[k] ? 0 : base->open(lay->names[k], flags, hints, rank, &st->sub[k], &readable);
        if (rc != 0) {
            st->sub[k] = NULL;
            colio_store_subfile.close(st);
            return rc;
        }
        *readable_p = *readable_p && readable;
    }
    *st_p = st;
    return 0;
}

static int subfile_open(const char *path, int flags, const struct colio_hints *hints, int rank,
                        colio_store_t **st_p, int *readable_p)
{
    (void)path, (void)flags, (void)hints, (void)rank, (void)st_p, (void)readable_p;
    return -ENOTSUP; /* needs a layout: colio_store_subfile_open */
}

static int subfile_close(colio_store_t *st)
{
    int rc = 0;
    for (int k = 0; k < st->lay.nsub; k++)
        if (st->sub[k]) {
            int r = st->base->close(st->sub[k]);
            rc = rc ? rc : r;
        }
    pthread_mutex_destroy(&st->lock);
    free(st->sub);
    free(st);
    return rc;
}

typedef int (*piece_fn_t)(colio_store_t *st, colio_store_t *h, const struct iovec *iov, int n, int64_t phys,
                          int64_t len);

/* Cut [off, off + total) at stripe boundaries; do(piece) for each. */
static int each_piece(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off, piece_fn_t fn)
{
    int64_t total = colio_iov_bytes(iov, iovcnt), done = 0;
    struct iovec one, *part = iovcnt > 1 ? malloc(sizeof *part * (size_t)iovcnt) : &one;
    if (part == NULL)
        return -ENOMEM;
    int rc = 0;
    while (rc == 0 && done < total) {
        int k;
        int64_t phys, stripe_end;
        colio_subfile_locate(&st->lay, off + done, &k, &phys, &stripe_end);
        int64_t len = stripe_end - (off + done) < total - done ? stripe_end - (off + done) : total - done;
        colio_store_t *h = NULL;
        rc = sub_handle(st, k, &h);
        if (rc == 0)
            rc = fn(st, h, part, colio_iov_slice(iov, iovcnt, done, len, part), phys, len);
        done += len;
    }
    if (part != &one)
        free(part);
    return rc;
}

static int write_piece(colio_store_t *st, colio_store_t *h, const struct iovec *iov, int n, int64_t phys,
                       int64_t len)
{
    (void)len;
    return st->base->pwritev(h, iov, n, phys);
}

/* A subfile that ends inside the piece has a hole there: zeros (the engine stops at the logical size). */
static int read_piece(colio_store_t *st, colio_store_t *h, const struct iovec *iov, int n, int64_t phys,
                      int64_t len)
{
    int64_t got = 0;
    int rc = st->base->preadv(h, iov, n, phys, &got);
    for (int i = 0; rc == 0 && i < n && got < len; i++) {
        int64_t l = (int64_t)iov[i].iov_len;
        if (got < l)
            memset((char *)iov[i].iov_base + got, 0, (size_t)(l - got));
        got = got > l ? got - l : 0;
        len -= l;
    }
    return rc;
}

static int subfile_pwritev(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off)
{
    return each_piece(st, iov, iovcnt, off, write_piece);
}

static int subfile_preadv(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off, int64_t *got_p)
{
    int rc = each_piece(st, iov, iovcnt, off, read_piece);
    *got_p = rc == 0 ? colio_iov_bytes(iov, iovcnt) : 0;
    return rc;
}

static int subfile_sync(colio_store_t *st)
{
    int rc = 0;
    for (int k = 0; k < st->lay.nsub; k++)
        if (st->sub[k]) {
            int r = st->base->sync(st->sub[k]);
            rc = rc ? rc : r;
        }
    return rc;
}

/* Physical size of subfile k; one not open yet is opened for the query only (thousands of subfiles
   must not hold thousands of descriptors on the rank that sizes the file). */
static int sub_size(colio_store_t *st, int k, int64_t *size_p)
{
    pthread_mutex_lock(&st->lock);
    colio_store_t *h = st->sub[k];
    pthread_mutex_unlock(&st->lock);
    if (h)
        return st->base->size(h, size_p);
    int readable = 0;
    int rc = st->base->open(st->lay.names[k], st->flags & ~(COLIO_STORE_CREATE | COLIO_STORE_EXCL), &st->hints,
                            st->rank, &h, &readable);
    if (rc != 0)
        return rc;
    rc = st->base->size(h, size_p);
    int crc = st->base->close(h);
    return rc ? rc : crc;
}

/* The logical size: the furthest logical byte any subfile holds (a null store is endless). */
static int subfile_size(colio_store_t *st, int64_t *size_p)
{
    int64_t size = 0;
    for (int k = 0; k < st->lay.nsub; k++) {
        int64_t s = 0;
        int rc = sub_size(st, k, &s);
        if (rc != 0)
            return rc;
        if (s >= COLIO_NULL_SIZE) {
            *size_p = COLIO_NULL_SIZE;
            return 0;
        }
        int64_t end = colio_subfile_logical_end(&st->lay, k, s);
        size = end > size ? end : size;
    }
    *size_p = size;
    return 0;
}

static int subfile_block_size(colio_store_t *st, int64_t *bs_p)
{
    colio_store_t *h = NULL;
    int rc = sub_handle(st, 0, &h);
    *bs_p = 0;
    return rc ? rc : st->base->block_size ? st->base->block_size(h, bs_p) : 0;
}

/* The base's figures for the first subfile (the subfiles share a directory). */
static int subfile_figures(colio_store_t *st, const char *path, const struct colio_hints *hints,
                           colio_store_figures_t *f)
{
    colio_store_t *h = NULL;
    (void)path;
    int rc = sub_handle(st, 0, &h);
    colio_figures_default(f);
    return rc ? rc : st->base->figures ? st->base->figures(h, st->lay.names[0], hints, f) : 0;
}

static int subfile_truncate(colio_store_t *st, int64_t size)
{
    for (int k = 0; k < st->lay.nsub; k++) {
        colio_store_t *h = NULL;
        int rc = sub_handle(st, k, &h);
        if (rc == 0)
            rc = st->base->truncate(h, colio_subfile_expected(&st->lay, k, size));
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int subfile_unlink(const char *path)
{
    (void)path;
    return -ENOTSUP; /* the file layer removes the subfiles it knows */
}

/* The subfiles of the range in the order it meets them, each with its first byte's offset there (a few at most). */
static int subfile_where(colio_store_t *st, int64_t off, int64_t span, char *buf, size_t len)
{
    enum { MAX_NAMED = 4 };
    int named[MAX_NAMED], nnamed = 0, n = 0;
    int64_t end = span > 0 ? off + span : off + 1;
    for (int64_t at = off; at < end && nnamed < MAX_NAMED && nnamed < st->lay.nsub && (size_t)n < len;) {
        int k, seen = 0;
        int64_t phys, stripe_end;
        colio_subfile_locate(&st->lay, at, &k, &phys, &stripe_end);
        for (int i = 0; i < nnamed; i++)
            seen |= named[i] == k;
        if (!seen) {
            named[nnamed++] = k;
            n += snprintf(buf + n, len - (size_t)n, "%s%s at %lld", nnamed > 1 ? ", " : "", st->lay.names[k],
                          (long long)phys);
        }
        if (stripe_end <= at)
            break;
        at = stripe_end;
    }
    return n;
}

/* Every subfile open now and every one opened later (sub_handle). */
static void subfile_set_direct(colio_store_t *st, int64_t w, int64_t r)
{
    pthread_mutex_lock(&st->lock);
    st->direct_set = st->base->set_direct != NULL, st->direct_write = w, st->direct_read = r;
    for (int k = 0; k < st->lay.nsub && st->direct_set; k++)
        if (st->sub[k])
            st->base->set_direct(st->sub[k], w, r);
    pthread_mutex_unlock(&st->lock);
}

const colio_store_ops_t colio_store_subfile = {
    .name = "subfile",
    .caps = COLIO_STORE_CAP_NO_SHORT_READS,
    .open = subfile_open,
    .close = subfile_close,
    .pwritev = subfile_pwritev,
    .preadv = subfile_preadv,
    .sync = subfile_sync,
    .size = subfile_size,
    .block_size = subfile_block_size,
    .figures = subfile_figures,
    .set_direct = subfile_set_direct,
    .truncate = subfile_truncate,
    .unlink = subfile_unlink,
    .where = subfile_where,
};
