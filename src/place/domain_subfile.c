/*
 * File domains of a subfiled file (subfile/layout.h): logical stripe k of
 * unit bytes lives in subfile g = k mod nsub as its stripe q = k div nsub.
 * Subfile g's aggregators are the domains [sub_first[g], sub_first[g+1])
 * (chosen among its group's ranks, place/groups.c); its stripes go to them
 * round-robin, each aggregator taking its stripes in order, one per round
 * (a stripe larger than cb_buffer_size in several rounds). So every round
 * writes one contiguous piece of one subfile, and no aggregator ever
 * touches another group's subfile -- the striped layout of domain_stripe.c
 * applied within each subfile (TAPIOCA Sec. 5.4.2, one file per Pset).
 */
#include <stddef.h>

#include "place/place.h"
#include "place/registry.h"

/* The subfile aggregator a serves, and its index among that subfile's aggregators. */
static int group_of(const colio_domains_t *d, int a, int *i_p)
{
    int lo = 0, hi = d->nsub - 1;
    while (lo < hi) { /* the last g with sub_first[g] <= a */
        int mid = (lo + hi + 1) / 2;
        if (d->sub_first[mid] <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    *i_p = a - d->sub_first[lo];
    return lo;
}

static int64_t aggs_of(const colio_domains_t *d, int g) { return d->sub_first[g + 1] - d->sub_first[g]; }

/* First stripe (within subfile g) of the extent, and the last. */
static int64_t first_q(const colio_domains_t *d, int g)
{
    int64_t k0 = d->lo / d->unit, n = d->nsub;
    return k0 <= g ? 0 : (k0 - g + n - 1) / n;
}

static int64_t last_q(const colio_domains_t *d, int g)
{
    int64_t k1 = (d->hi - 1) / d->unit, n = d->nsub;
    return k1 < g ? -1 : (k1 - g) / n;
}

/* Aggregator i of subfile g: its first stripe in the extent. */
static int64_t agg_first_q(const colio_domains_t *d, int g, int i)
{
    int64_t q0 = first_q(d, g), m = aggs_of(d, g);
    return q0 + (((i - q0) % m) + m) % m;
}

static int subfile_plan(const colio_domain_input_t *in, colio_domains_t *d)
{
    d->unit = in->striping_unit;
    int64_t cap = colio_domain_round_max(in); /* one stripe a round, as the stripe layout */
    d->round_size = d->unit < cap ? d->unit : cap;
    d->nsub = in->nsub;
    d->sub_first = in->sub_first;
    d->start = d->end = NULL;
    int64_t most = 0;
    for (int g = 0; g < d->nsub; g++)
        for (int i = 0; i < aggs_of(d, g); i++) {
            int64_t q = agg_first_q(d, g, i), last = last_q(d, g);
            int64_t count = q <= last ? (last - q) / aggs_of(d, g) + 1 : 0;
            most = count > most ? count : most;
        }
    d->nrounds = most * colio_domain_pieces_per_stripe(d);
    return COLIO_SUCCESS;
}

static void subfile_locate(const colio_domains_t *d, int64_t off, int *agg, int64_t *round, int64_t *run_end)
{
    int64_t k = off / d->unit, p = (off - k * d->unit) / d->round_size, s;
    int g = (int)(k % d->nsub);
    int64_t q = k / d->nsub, m = aggs_of(d, g);
    int i = (int)(q % m);
    *agg = d->sub_first[g] + i;
    *round = (q - agg_first_q(d, g, i)) / m * colio_domain_pieces_per_stripe(d) + p;
    colio_domain_stripe_piece(d, k, p, &s, run_end);
}

static void subfile_round_extent(const colio_domains_t *d, int agg, int64_t r, int64_t *s, int64_t *e)
{
    int i, g = group_of(d, agg, &i);
    int64_t per = colio_domain_pieces_per_stripe(d);
    int64_t q = colio_add_sat(agg_first_q(d, g, i), colio_mul_sat(r / per, aggs_of(d, g)));
    if (q > last_q(d, g)) {
        *s = *e = d->hi; /* past the extent: an empty round */
        return;
    }
    colio_domain_stripe_piece(d, colio_add_sat(colio_mul_sat(q, d->nsub), g), r % per, s, e);
}

const colio_domain_ops_t colio_domain_subfile = {
    .name = "subfile",
    .plan = subfile_plan,
    .locate = subfile_locate,
    .round_extent = subfile_round_extent,
};
