/* Coverage bitmap of an aggregator's round: see coverage.h. */
#include "access/coverage.h"

#include <stdlib.h>
#include <string.h>

int colio_coverage_reset(colio_coverage_t *c, int64_t lo, int64_t size)
{
    int64_t words = (size + 63) / 64;
    if (words > c->cap_words) {
        uint64_t *b = realloc(c->bits, sizeof *b * (size_t)words);
        if (b == NULL)
            return -1;
        c->bits = b;
        c->cap_words = words;
    }
    if (words > 0)
        memset(c->bits, 0, sizeof *c->bits * (size_t)words);
    c->lo = lo;
    c->size = size;
    c->covered = 0;
    c->first = c->last = lo;
    c->overlap = 0;
    c->nruns = 0;
    return 0;
}

void colio_coverage_span(colio_coverage_t *c, int64_t first, int64_t last)
{
    if (c->first == c->last) {
        c->first = first;
        c->last = last;
    } else {
        c->first = first < c->first ? first : c->first;
        c->last = last > c->last ? last : c->last;
    }
}

/* Next bit at or after x (relative) equal to `set`, or limit. */
static int64_t next_bit(const colio_coverage_t *c, int64_t x, int64_t limit, int set)
{
    while (x < limit) {
        uint64_t w = c->bits[x >> 6];
        if (!set)
            w = ~w;
        w &= ~0ULL << (x & 63);
        if (w)
            return (x & ~63LL) + __builtin_ctzll(w) < limit ? (x & ~63LL) + __builtin_ctzll(w) : limit;
        x = (x & ~63LL) + 64;
    }
    return limit;
}

int colio_coverage_runs(colio_coverage_t *c)
{
    c->nruns = 0;
    int64_t limit = c->last - c->lo;
    for (int64_t x = next_bit(c, c->first - c->lo, limit, 1); x < limit;) {
        int64_t y = next_bit(c, x, limit, 0);
        if (c->nruns == c->cap_runs) {
            int64_t cap = c->cap_runs ? 2 * c->cap_runs : 64;
            colio_piece_t *r = realloc(c->runs, sizeof *r * (size_t)cap);
            if (r == NULL)
                return -1;
            c->runs = r;
            c->cap_runs = cap;
        }
        c->runs[c->nruns++] = (colio_piece_t){c->lo + x, y - x, 0};
        x = next_bit(c, y, limit, 1);
    }
    return 0;
}

void colio_coverage_free(colio_coverage_t *c)
{
    free(c->bits);
    free(c->runs);
    memset(c, 0, sizeof *c);
}
