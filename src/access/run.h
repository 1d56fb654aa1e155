/*
 * Strided runs: the unit in which colio describes accesses. A run is count
 * pieces of len bytes, piece k at file offset off + k * stride and at user
 * stream position pos + k * len. A regular pattern (a vector filetype, every
 * p-th block of a file) is one run however many pieces it has, so the work
 * of listing, splitting, exchanging metadata and merging is proportional to
 * the runs, not to the pieces; irregular lists are runs of one piece.
 */
#ifndef COLIO_ACCESS_RUN_H
#define COLIO_ACCESS_RUN_H

#include <stdint.h>

typedef struct colio_run {
    int64_t off;    /* file offset of piece 0 */
    int64_t len;    /* bytes per piece, > 0 */
    int64_t stride; /* file distance between pieces (> len when count > 1; == len when count == 1) */
    int64_t count;  /* pieces, >= 1 */
    int64_t pos;    /* stream position of piece 0; piece k at pos + k * len */
} colio_run_t;

/* A growable array of runs in file order, each ending before the next starts. */
typedef struct colio_runs {
    colio_run_t *r;
    int64_t n, cap;
} colio_runs_t;

static inline int64_t colio_run_end(const colio_run_t *r) { return r->off + (r->count - 1) * r->stride + r->len; }
static inline int64_t colio_run_bytes(const colio_run_t *r) { return r->count * r->len; }
/* runs[i] moved by shift bytes in the file (runs borrowed from a flattening, placed by a tile). */
static inline colio_run_t colio_run_moved(const colio_run_t *runs, int64_t i, int64_t shift)
{
    colio_run_t r = runs[i];
    r.off += shift;
    return r;
}
static inline colio_run_t colio_piece(int64_t off, int64_t len, int64_t pos)
{
    return (colio_run_t){off, len, len, 1, pos};
}

/*
 * Extend a by b when b continues it (adjacent in file and stream: one longer
 * piece; or the same piece length on a's stride with the stream going on).
 * Returns 1 when a now covers b, 0 when it cannot.
 */
int colio_run_extend(colio_run_t *a, const colio_run_t *b);

/*
 * Append b after the last run (b starts at or after its end), extending the
 * last run when b continues it: adjacent in file and stream, or the same
 * piece length at the same stride with the stream continuing. -1 when out
 * of memory.
 */
int colio_runs_append(colio_runs_t *v, colio_run_t b);
void colio_runs_free(colio_runs_t *v);
/* Room for at least n runs in all (one allocation instead of repeated doubling). */
int colio_runs_reserve(colio_runs_t *v, int64_t n);

/*
 * The part of run r holding stream bytes [r->pos + from, r->pos + to):
 * appended as at most three runs (a partial first piece, whole pieces, a
 * partial last piece).
 */
int colio_run_slice_stream(const colio_run_t *r, int64_t from, int64_t to, colio_runs_t *out);

/*
 * The part of run r inside file range [lo, hi) (r lies within [lo', hi') of
 * some larger range; pieces may be cut at lo and hi), appended in order.
 */
int colio_run_slice_file(const colio_run_t *r, int64_t lo, int64_t hi, colio_runs_t *out);

#endif
