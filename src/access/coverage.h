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
/*
 * Mark count pieces of len bytes, stride apart, from off (inside the range),
 * without widening the covered extent: a caller marking a list in file
 * order widens it once with colio_coverage_span (its first offset, its last
 * end).
 */
void colio_coverage_mark(colio_coverage_t *c, int64_t off, int64_t len, int64_t stride, int64_t count);
void colio_coverage_span(colio_coverage_t *c, int64_t first, int64_t last);
/* List the maximal covered intervals in c->runs; -1 when out of memory. */
int colio_coverage_runs(colio_coverage_t *c);
void colio_coverage_free(colio_coverage_t *c);

#endif
