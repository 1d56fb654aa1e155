/*
 * Engine "alltoallv": the transposition users write instead of collective
 * I/O (pmodels/mpich#7935: Grid's lattice I/O), the practical floor of any
 * two-phase method. The file's bytes [0, size) are cut into p equal slabs,
 * the last one shorter, and rank r owns slab r. A write cuts every piece at
 * the slab boundaries, tells each owner what it gets with one MPI_Alltoall
 * of counts and one MPI_Alltoallv of (offset, length) pairs, and sends the
 * bytes with one MPI_Alltoallv straight from the user's buffer (the pieces
 * are in file order, so their bytes are already grouped by owner); each
 * owner places them in a contiguous buffer in file order and writes the
 * span it covers (its first to its last byte received) with one pwrite. A
 * read is the reverse: the same two metadata exchanges, one pread of the
 * span per owner, one MPI_Alltoallv back into the user's buffer.
 *
 * Holes: the bytes of a span that no rank writes keep their content, so an
 * owner whose span has holes reads the span first (one pread: a
 * read-modify-write, as ROMIO's data sieving does), then writes it whole.
 * Ranks' pieces do not overlap (MPI leaves overlapping collective writes
 * undefined), so a span has holes exactly when the bytes received are fewer
 * than its length.
 *
 * MPI_Alltoallv takes int counts and displacements: an access whose rank
 * sends or receives 2 GiB or more fails, before the timed run, with a
 * message. The counting, the limits and the buffers (kept between runs)
 * are prepared before the clock starts; the timed run is open, the three exchanges, the owners'
 * I/O and close. The whole access is one transposition (like the posix
 * engine, it ignores ior's one call per block).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posix_io.h"

/* One rank's side of the transposition: what it sends to each slab owner and, as an owner, receives. */
typedef struct xpose {
    int p;
    int64_t slab;                 /* bytes per slab: rank r owns [r slab, (r + 1) slab) of the file */
    int *counts;                  /* the 8 arrays of p ints below */
    int *sw, *sw_at, *sb, *sb_at; /* to each owner: int64 words of pairs, bytes, and their displacements */
    int *rw, *rw_at, *rb, *rb_at; /* from each rank: the same */
    int64_t *spairs, *rpairs;     /* (offset, length) of each segment: a piece's part in one slab */
    unsigned char *rbuf, *span;   /* owner: the bytes received; its span's bytes in file order */
    int64_t lo, hi, got;          /* owner: first byte received, last + 1, bytes received */
    int64_t buffer_bytes;
    double t_meta, t_data, t_io, t_comp;
    char ioerr[160];              /* the first I/O error; later steps skip this rank's I/O */
} xpose_t;

enum { XPOSE_OK, XPOSE_NO_MEMORY, XPOSE_TOO_BIG };

/* The end of the segment starting at off: the piece's end or the slab boundary, whichever is first. */
static inline int64_t segment_end(int64_t off, int64_t end, int64_t slab)
{
    int64_t boundary = (off / slab + 1) * slab;
    return boundary < end ? boundary : end;
}

static void displacements(const int *count, int *at, int p)
{
    for (int d = 0, sum = 0; d < p; sum += count[d++])
        at[d] = sum;
}

static double lap(double *t)
{
    double now = MPI_Wtime(), d = now - *t;
    *t = now;
    return d;
}

static void io_failed(xpose_t *x, const char *what)
{
    if (x->ioerr[0] == '\0')
        snprintf(x->ioerr, sizeof x->ioerr, "%s: %s", what, errno ? strerror(errno) : "the file is too short");
}

/*
 * The large buffers, kept from run to run as a program that transposes at
 * every step keeps them (colio keeps its own the same way), and touched when
 * made, before any clock: fresh ones per run made the transposition's speed
 * depend on whether malloc served them from pages an earlier engine had
 * left (0.015 s or 0.021 s for the same E3SM F write).
 */
enum { KEPT_SPAIRS, KEPT_RPAIRS, KEPT_RBUF, KEPT_SPAN, KEPT_COUNT };
static struct {
    void *p;
    size_t cap;
} kept[KEPT_COUNT];

static void *kept_buffer(int which, size_t bytes)
{
    if (bytes > kept[which].cap) {
        free(kept[which].p);
        kept[which].p = malloc(bytes);
        kept[which].cap = kept[which].p ? bytes : 0;
        if (kept[which].p)
            memset(kept[which].p, 0, bytes);
    }
    return kept[which].p;
}

static void xpose_free(xpose_t *x) { free(x->counts); }

/* The words of (offset, length) pairs and the bytes this rank sends to owner d: sends[2d], sends[2d + 1]. */
static void count_sends(const bench_access_t *a, int64_t slab, int64_t *sends)
{
    for (int64_t i = 0; i < a->n; i++)
        for (int64_t off = a->off[i], end = off + a->len[i], stop; off < end; off = stop) {
            stop = segment_end(off, end, slab);
            sends[2 * (off / slab)] += 2;
            sends[2 * (off / slab) + 1] += stop - off;
        }
}

static int agree(const bench_engine_ctx_t *c, int why)
{
    int worst;
    MPI_Allreduce(&why, &worst, 1, MPI_INT, MPI_MAX, c->comm);
    return worst;
}

/* The buffers: pairs and bytes sent (sent[2]) and received (got[2]), this rank's slab (own bytes). */
static int xpose_alloc(xpose_t *x, const int64_t sent[2], const int64_t got[2], int64_t own)
{
    if (sent[0] > INT_MAX || sent[1] > INT_MAX || got[0] > INT_MAX || got[1] > INT_MAX)
        return XPOSE_TOO_BIG;
    x->spairs = kept_buffer(KEPT_SPAIRS, sizeof(int64_t) * (size_t)(sent[0] + 1));
    x->rpairs = kept_buffer(KEPT_RPAIRS, sizeof(int64_t) * (size_t)(got[0] + 1));
    x->rbuf = kept_buffer(KEPT_RBUF, (size_t)got[1] + 1);
    x->span = kept_buffer(KEPT_SPAN, (size_t)own + 1);
    x->buffer_bytes = (int64_t)sizeof(int64_t) * (sent[0] + got[0]) + got[1] + own;
    return x->spairs && x->rpairs && x->rbuf && x->span ? XPOSE_OK : XPOSE_NO_MEMORY;
}

/*
 * Before the clock: the slabs, what every owner will receive (a
 * reduce-scatter of the counts), the int limits, the buffers, all agreed so
 * that no rank enters the exchanges alone.
 */
static int xpose_prepare(const bench_engine_ctx_t *c, const bench_access_t *a, xpose_t *x, char *err, size_t errlen)
{
    int p = c->nprocs;
    memset(x, 0, sizeof *x);
    x->p = p;
    x->slab = a->file_size > 0 ? (a->file_size + p - 1) / p : 1;
    int64_t start = c->rank * x->slab, end = start + x->slab < a->file_size ? start + x->slab : a->file_size;
    int64_t *sends = calloc(2 * (size_t)p, sizeof *sends), sent[2] = {0, 0}, got[2] = {0, 0};
    x->counts = malloc(sizeof(int) * 8 * (size_t)p);
    int why = agree(c, sends && x->counts ? XPOSE_OK : XPOSE_NO_MEMORY);
    if (why == XPOSE_OK) {
        count_sends(a, x->slab, sends);
        for (int d = 0; d < p; d++)
            sent[0] += sends[2 * d], sent[1] += sends[2 * d + 1];
        MPI_Reduce_scatter_block(sends, got, 2, MPI_INT64_T, MPI_SUM, c->comm);
        why = agree(c, xpose_alloc(x, sent, got, end > start ? end - start : 0));
    }
    free(sends);
    if (why != XPOSE_OK) {
        xpose_free(x);
        if (why == XPOSE_TOO_BIG)
            snprintf(err, errlen, "alltoallv: a rank would send or receive 2 GiB or more in one MPI_Alltoallv, whose "
                                  "counts are ints: this engine cannot run this access");
        else
            snprintf(err, errlen, "alltoallv: out of memory preparing the exchange");
        return -1;
    }
    int *q = x->counts;
    x->sw = q, x->sw_at = q + p, x->sb = q + 2 * p, x->sb_at = q + 3 * p;
    x->rw = q + 4 * p, x->rw_at = q + 5 * p, x->rb = q + 6 * p, x->rb_at = q + 7 * p;
    return 0;
}

/* The segments in file order, their pairs, and the words and bytes for each owner (owners ascend with offsets). */
static void cut_pieces(const bench_access_t *a, xpose_t *x)
{
    memset(x->sw, 0, sizeof(int) * (size_t)x->p);
    memset(x->sb, 0, sizeof(int) * (size_t)x->p);
    int64_t k = 0;
    for (int64_t i = 0; i < a->n; i++)
        for (int64_t off = a->off[i], end = off + a->len[i], stop; off < end; off = stop) {
            stop = segment_end(off, end, x->slab);
            int d = (int)(off / x->slab);
            x->spairs[k++] = off;
            x->spairs[k++] = stop - off;
            x->sw[d] += 2;
            x->sb[d] += (int)(stop - off);
        }
    displacements(x->sw, x->sw_at, x->p);
    displacements(x->sb, x->sb_at, x->p);
}

/* The metadata: one MPI_Alltoall of counts, one MPI_Alltoallv of pairs; then the owner's span and byte counts. */
static void exchange_pairs(const bench_engine_ctx_t *c, xpose_t *x)
{
    MPI_Alltoall(x->sw, 1, MPI_INT, x->rw, 1, MPI_INT, c->comm);
    displacements(x->rw, x->rw_at, x->p);
    MPI_Alltoallv(x->spairs, x->sw, x->sw_at, MPI_INT64_T, x->rpairs, x->rw, x->rw_at, MPI_INT64_T, c->comm);
    x->lo = INT64_MAX, x->hi = 0, x->got = 0;
    for (int s = 0; s < x->p; s++) {
        int64_t bytes = 0;
        for (int w = x->rw_at[s]; w < x->rw_at[s] + x->rw[s]; w += 2) {
            int64_t off = x->rpairs[w], end = off + x->rpairs[w + 1];
            bytes += end - off;
            x->lo = off < x->lo ? off : x->lo;
            x->hi = end > x->hi ? end : x->hi;
        }
        x->rb[s] = (int)bytes;
        x->got += bytes;
    }
    displacements(x->rb, x->rb_at, x->p);
}

/* Up to len bytes at off, zeros past the end of the file: the bytes read, or -1. */
static int64_t read_upto(int fd, unsigned char *buf, int64_t len, int64_t off)
{
    int64_t done = 0;
    while (done < len) {
        ssize_t k = pread(fd, buf + done, (size_t)(len - done), off + done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        done += k;
    }
    memset(buf + done, 0, (size_t)(len - done));
    return done;
}

/* Copy every received segment between rbuf (in arrival order) and the span (in file order). */
static void place(xpose_t *x, int into_span)
{
    int64_t pos = 0;
    for (int s = 0; s < x->p; s++)
        for (int w = x->rw_at[s]; w < x->rw_at[s] + x->rw[s]; w += 2) {
            unsigned char *at = x->span + (x->rpairs[w] - x->lo);
            size_t len = (size_t)x->rpairs[w + 1];
            if (into_span)
                memcpy(at, x->rbuf + pos, len);
            else
                memcpy(x->rbuf + pos, at, len);
            pos += (int64_t)len;
        }
}

/* The owner's write: holes read first (read-modify-write), the bytes received put in place, one pwrite. */
static void owner_write(int fd, xpose_t *x)
{
    int64_t span = x->hi - x->lo;
    double t = MPI_Wtime();
    errno = 0;
    if (x->got < span && read_upto(fd, x->span, span, x->lo) < 0) {
        io_failed(x, "pread");
        return;
    }
    x->t_io += lap(&t);
    place(x, 1);
    x->t_comp += lap(&t);
    if (xfer(fd, (char *)x->span, span, x->lo, 1) != 0)
        io_failed(x, "pwrite");
    x->t_io += lap(&t);
}

/* The owner's read: its span in one pread, the segments packed in arrival order for the way back. */
static void owner_read(int fd, xpose_t *x)
{
    int64_t span = x->hi - x->lo;
    double t = MPI_Wtime();
    errno = 0;
    if (read_upto(fd, x->span, span, x->lo) != span) {
        io_failed(x, "pread");
        return;
    }
    x->t_io += lap(&t);
    place(x, 0);
    x->t_comp += lap(&t);
}

/* One transposed write; a rank whose I/O failed still takes part in every exchange. */
static void write_step(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, int fd, xpose_t *x)
{
    double t = MPI_Wtime();
    cut_pieces(a, x);
    x->t_comp += lap(&t);
    exchange_pairs(c, x);
    x->t_meta += lap(&t);
    MPI_Alltoallv(buf, x->sb, x->sb_at, MPI_BYTE, x->rbuf, x->rb, x->rb_at, MPI_BYTE, c->comm);
    x->t_data += lap(&t);
    if (fd >= 0 && x->ioerr[0] == '\0' && x->got > 0)
        owner_write(fd, x);
}

static void read_step(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, int fd, xpose_t *x)
{
    double t = MPI_Wtime();
    cut_pieces(a, x);
    x->t_comp += lap(&t);
    exchange_pairs(c, x);
    x->t_meta += lap(&t);
    if (fd >= 0 && x->ioerr[0] == '\0' && x->got > 0)
        owner_read(fd, x);
    t = MPI_Wtime();
    MPI_Alltoallv(x->rbuf, x->rb, x->rb_at, MPI_BYTE, buf, x->sb, x->sb_at, MPI_BYTE, c->comm);
    x->t_data += lap(&t);
}

static int run(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, int write, bench_sample_t *s,
               char *err, size_t errlen)
{
    xpose_t x;
    if (xpose_prepare(c, a, &x, err, errlen) != 0)
        return -1;
    MPI_Barrier(c->comm); /* the preparation is not timed: start together */
    double t0 = MPI_Wtime();
    errno = 0;
    int fd = open_file_flags(c, write, write ? O_RDWR : O_RDONLY); /* read-write: holes are read back */
    if (fd < 0)
        io_failed(&x, "open");
    int steps = bench_steps(c);
    for (int k = 0; k < steps; k++) /* the same access again: a checkpoint every step */
        if (write)
            write_step(c, a, buf, fd, &x);
        else
            read_step(c, a, buf, fd, &x);
    if (flush_fd(c, fd, write) != 0)
        io_failed(&x, "fsync");
    if (fd >= 0 && close(fd) != 0)
        io_failed(&x, "close");
    s->time = (MPI_Wtime() - t0) / steps;
    s->meta = x.t_meta / steps, s->data = x.t_data / steps, s->io = x.t_io / steps, s->compute = x.t_comp / steps;
    s->memory = x.buffer_bytes;
    s->is_aggregator = x.got > 0;
    int rc = x.ioerr[0] ? -1 : 0;
    if (rc != 0)
        snprintf(err, errlen, "alltoallv: %s: %s", c->path, x.ioerr);
    xpose_free(&x);
    return rc;
}

static int alltoallv_write(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                           char *err, size_t errlen)
{
    return run(c, a, (void *)buf, 1, s, err, errlen);
}

static int alltoallv_read(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s,
                          char *err, size_t errlen)
{
    return run(c, a, buf, 0, s, err, errlen);
}

const bench_engine_t bench_engine_alltoallv = {.name = "alltoallv", .write = alltoallv_write, .read = alltoallv_read};
