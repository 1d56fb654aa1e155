/* Placement strategies and file-domain layouts known to the registry (place/registry.c). */
#ifndef COLIO_PLACE_REGISTRY_H
#define COLIO_PLACE_REGISTRY_H

#include "place/place.h"

extern const colio_place_ops_t colio_place_romio;
extern const colio_place_ops_t colio_place_greedy;
extern const colio_place_ops_t colio_place_shortest;
extern const colio_place_ops_t colio_place_longest;
extern const colio_place_ops_t colio_place_topology;
extern const colio_place_ops_t colio_place_lap;
extern const colio_domain_ops_t colio_domain_even;
extern const colio_domain_ops_t colio_domain_stripe;
extern const colio_domain_ops_t colio_domain_block;
extern const colio_domain_ops_t colio_domain_subfile; /* not selectable: a subfiled file's own */

/* Striped layouts (stripe, subfile): rounds per stripe of d->unit bytes, and the extent of piece p of stripe
   k (rounds of d->round_size), clipped to [d->lo, d->hi). */
int64_t colio_domain_pieces_per_stripe(const colio_domains_t *d);
/* The most a round may hold (cb_buffer_size): layouts with their own unit (a stripe, a block) size rounds by it. */
int64_t colio_domain_round_max(const colio_domain_input_t *in);
void colio_domain_stripe_piece(const colio_domains_t *d, int64_t k, int64_t p, int64_t *s, int64_t *e);

/* Layouts with one contiguous share per aggregator (start/end): the share holding off. */
int colio_domain_share_of(const colio_domains_t *d, int64_t off);

#endif
