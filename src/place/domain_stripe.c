/*
 * Striped file domains, as ROMIO's Lustre driver lays them out (Kang et al.
 * SC20, Fig. 2a; Liu et al., TATP, Sec. 3 and Fig. 2): the file is cut into
 * stripes of striping_unit bytes at absolute offsets (stripe k is
 * [k*u, (k+1)*u)), stripe k belongs to aggregator k mod naggs, and each
 * aggregator takes its stripes in order, one per round, so a round moves one
 * stripe width across the aggregators and no two aggregators ever touch the
 * same stripe (lock boundaries). Without striping_unit the stripe is 1 MiB,
 * Lustre's default. A stripe larger than cb_buffer_size is cut into
 * consecutive rounds of at most cb_buffer_size.
 */
#include <stddef.h>

#include "place/place.h"
#include "place/registry.h"

#define STRIPE_DEFAULT ((int64_t)1 << 20)

/* The first stripe of aggregator a at or after the first stripe of the extent. */
static int64_t first_stripe(const colio_domains_t *d, int a)
{
    int64_t n = d->naggs, k0 = d->first;
    return k0 + (((a - k0) % n) + n) % n;
}

static int stripe_plan(const colio_domain_input_t *in, colio_domains_t *d)
{
    int64_t u = in->striping_unit > 0 ? in->striping_unit : STRIPE_DEFAULT;
    d->unit = u;
    int64_t cap = colio_domain_round_max(in); /* one stripe a round, whatever round was chosen */
    d->round_size = u < cap ? u : cap;
    d->first = in->lo / u;
    d->start = d->end = NULL; /* shares are not contiguous */
    int64_t last = (in->hi - 1) / u, most = 0;
    for (int a = 0; a < in->naggs; a++) {
        int64_t k = first_stripe(d, a);
        int64_t count = k <= last ? (last - k) / in->naggs + 1 : 0;
        most = count > most ? count : most;
    }
    d->nrounds = most * colio_domain_pieces_per_stripe(d);
    return COLIO_SUCCESS;
}

static void stripe_locate(const colio_domains_t *d, int64_t off, int *agg, int64_t *round, int64_t *run_end)
{
    int64_t k = off / d->unit, p = (off - k * d->unit) / d->round_size, s;
    int a = (int)(k % d->naggs);
    *agg = a;
    *round = (k - first_stripe(d, a)) / d->naggs * colio_domain_pieces_per_stripe(d) + p;
    colio_domain_stripe_piece(d, k, p, &s, run_end);
}

static void stripe_round_extent(const colio_domains_t *d, int agg, int64_t r, int64_t *s, int64_t *e)
{
    int64_t per = colio_domain_pieces_per_stripe(d);
    int64_t k = colio_add_sat(first_stripe(d, agg), colio_mul_sat(r / per, d->naggs));
    if (k > (d->hi - 1) / d->unit) {
        *s = *e = d->hi; /* past the extent: an empty round */
        return;
    }
    colio_domain_stripe_piece(d, k, r % per, s, e);
}

const colio_domain_ops_t colio_domain_stripe = {
    .name = "stripe",
    .plan = stripe_plan,
    .locate = stripe_locate,
    .round_extent = stripe_round_extent,
};
