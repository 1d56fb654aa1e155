/*
 * Coverage of an aggregator's round: which bytes of [lo, lo + size) its
 * sources asked for, as a bitmap (one bit per byte), so merging the pieces
 * of every source costs one or two word operations per piece and no
 * sorting, and a byte asked for twice (overlapping requests) is noticed.
 */
#ifndef COLIO_ACCESS_COVERAGE_H
#define COLIO_ACCESS_COVERAGE_H

#include <stdint.h>

#include "access/access.h"

typedef struct colio_coverage {
    uint64_t *bits;
    int64_t cap_words;
    int64_t lo, size;
    int64_t covered;       /* bytes covered, each counted once */
    int64_t first, last;   /* covered extent [first, last); first == last when nothing */
    int overlap;           /* some byte was asked for twice */
    colio_piece_t *runs;   /* after colio_coverage_runs: maximal covered intervals (off, len) */
    int64_t nruns, cap_runs;
} colio_coverage_t;

/* Start a round over [lo, lo + size); -1 when out of memory. */
int colio_coverage_reset(colio_coverage_t *c, int64_t lo, int64_t size);
/* Set the bits of mask in word w; a bit already set means overlap (then count exactly). */
static inline void colio_coverage_mark_word(colio_coverage_t *c, int64_t w, uint64_t mask)
{
    uint64_t old = c->bits[w];
    if (old & mask) {
        c->overlap = 1;
        c->covered -= __builtin_popcountll(old & mask); /* counted in the caller's length: take back */
    }
    c->bits[w] = old | mask;
}

/* Bytes [a, b) relative to lo; counted as new, corrected by mark_word on overlap. */
static inline void colio_coverage_mark_range(colio_coverage_t *c, int64_t a, int64_t b)
{
    int64_t wa = a >> 6, wb = (b - 1) >> 6;
    uint64_t head = ~0ULL << (a & 63), tail = ~0ULL >> (63 - ((b - 1) & 63));
    c->covered += b - a;
    if (wa == wb) {
        colio_coverage_mark_word(c, wa, head & tail);
        return;
    }
    colio_coverage_mark_word(c, wa, head);
    for (int64_t w = wa + 1; w < wb; w++)
        colio_coverage_mark_word(c, w, ~0ULL);
    colio_coverage_mark_word(c, wb, tail);
}

/*
 * Mark count pieces of len bytes, stride apart, from off (inside the range),
 * without widening the covered extent: a caller marking a list in file
 * order widens it once with colio_coverage_span (its first offset, its last
 * end). Inline: the aggregator marks every run it receives, most of them
 * one piece of a few bytes (a call per run was a tenth of an E3SM write).
 */
static inline void colio_coverage_mark(colio_coverage_t *c, int64_t off, int64_t len, int64_t stride, int64_t count)
{
    int64_t a = off - c->lo;
    for (int64_t k = 0; k < count; k++, a += stride)
        colio_coverage_mark_range(c, a, a + len);
}
void colio_coverage_span(colio_coverage_t *c, int64_t first, int64_t last);
/* List the maximal covered intervals in c->runs; -1 when out of memory. */
int colio_coverage_runs(colio_coverage_t *c);
void colio_coverage_free(colio_coverage_t *c);

#endif
