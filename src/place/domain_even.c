/*
 * Even file domains (ROMIO's generic ADIOI_Calc_file_domains): the global
 * extent is cut into naggs contiguous shares of equal size, boundaries
 * aligned to striping_unit when it is known; each share is processed in
 * rounds of round_size bytes from its start.
 */
#include <stdlib.h>

#include "place/place.h"
#include "place/registry.h"

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

static int even_plan(const colio_domain_input_t *in, colio_domains_t *d)
{
    int n = in->naggs;
    d->start = malloc(sizeof(int64_t) * (size_t)n);
    d->end = malloc(sizeof(int64_t) * (size_t)n);
    if (!d->start || !d->end) {
        colio_domains_free(d);
        return COLIO_ERR_NOMEM;
    }
    int64_t su = in->striping_unit, base = in->lo, share;
    if (su > 0) {
        base = in->lo - in->lo % su;
        share = ceil_div(ceil_div(in->hi - base, n), su) * su;
    } else {
        share = ceil_div(in->hi - in->lo, n);
    }
    d->nrounds = 0;
    for (int a = 0; a < n; a++) {
        int64_t s = base + a * share, e = s + share;
        d->start[a] = s < in->lo ? in->lo : (s > in->hi ? in->hi : s);
        d->end[a] = e > in->hi || a == n - 1 ? in->hi : (e < in->lo ? in->lo : e);
        int64_t r = ceil_div(d->end[a] - d->start[a], in->round_size);
        if (r > d->nrounds)
            d->nrounds = r;
    }
    return COLIO_SUCCESS;
}

static void even_locate(const colio_domains_t *d, int64_t off, int *agg, int64_t *round, int64_t *run_end)
{
    /* Shares partition [lo, hi) in order, so the last share starting at or
       before off contains it (an empty share there would be followed by one
       starting at the same offset). */
    int lo = 0, hi = d->naggs - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (d->start[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t r = (off - d->start[lo]) / d->round_size;
    int64_t e = d->start[lo] + (r + 1) * d->round_size;
    *agg = lo;
    *round = r;
    *run_end = e < d->end[lo] ? e : d->end[lo];
}

static void even_round_extent(const colio_domains_t *d, int agg, int64_t r, int64_t *s, int64_t *e)
{
    *s = d->start[agg] + r * d->round_size;
    *e = *s + d->round_size < d->end[agg] ? *s + d->round_size : d->end[agg];
}

const colio_domain_ops_t colio_domain_even = {
    .name = "even",
    .plan = even_plan,
    .locate = even_locate,
    .round_extent = even_round_extent,
};
