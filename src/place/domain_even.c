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

/* a + b * k clamped to [lo, hi] without overflowing (offsets may approach INT64_MAX). */
static int64_t clamp_step(int64_t a, int64_t b, int64_t k, int64_t lo, int64_t hi)
{
    int64_t step, v;
    if (__builtin_mul_overflow(b, k, &step) || __builtin_add_overflow(a, step, &v) || v > hi)
        return hi;
    return v < lo ? lo : v;
}

static int even_plan(const colio_domain_input_t *in, colio_domains_t *d)
{
    int n = in->naggs;
    d->start = malloc(sizeof(int64_t) * (size_t)n);
    d->end = malloc(sizeof(int64_t) * (size_t)n);
    if (!d->start || !d->end) {
        colio_domains_free(d);
        return COLIO_ERR_NOMEM;
    }
    int64_t su = in->striping_unit, base = in->lo, share = ceil_div(in->hi - in->lo, n);
    if (su > 0) {
        base = in->lo - in->lo % su;
        share = ceil_div(in->hi - base, n);
        share = share > INT64_MAX - su ? INT64_MAX : ceil_div(share, su) * su;
    }
    d->nrounds = 0;
    for (int a = 0; a < n; a++) {
        d->start[a] = clamp_step(base, share, a, in->lo, in->hi);
        d->end[a] = a == n - 1 ? in->hi : clamp_step(base, share, a + 1, in->lo, in->hi);
        int64_t r = ceil_div(d->end[a] - d->start[a], in->round_size);
        if (r > d->nrounds)
            d->nrounds = r;
    }
    return COLIO_SUCCESS;
}

/* [s, e) of round r of a share [start, end): no sum can overflow. */
static void round_of_share(int64_t start, int64_t end, int64_t rs, int64_t r, int64_t *s, int64_t *e)
{
    *s = start + r * rs; /* <= end for every valid round */
    *e = end - *s > rs ? *s + rs : end;
}

int colio_domain_share_of(const colio_domains_t *d, int64_t off)
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
    return lo;
}

static void even_locate(const colio_domains_t *d, int64_t off, int *agg, int64_t *round, int64_t *run_end)
{
    int lo = colio_domain_share_of(d, off);
    int64_t r = (off - d->start[lo]) / d->round_size, s;
    *agg = lo;
    *round = r;
    round_of_share(d->start[lo], d->end[lo], d->round_size, r, &s, run_end);
}

static void even_round_extent(const colio_domains_t *d, int agg, int64_t r, int64_t *s, int64_t *e)
{
    round_of_share(d->start[agg], d->end[agg], d->round_size, r, s, e);
}

const colio_domain_ops_t colio_domain_even = {
    .name = "even",
    .shifts = 1,
    .plan = even_plan,
    .locate = even_locate,
    .round_extent = even_round_extent,
};
