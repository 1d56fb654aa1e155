/*
 * Greedy placement, TAPIOCA's baseline (Tessier et al. Sec. 4.1): each
 * partition (file domain) elects its lowest rank, at most the per-node cap
 * of aggregators per node.
 */
#include <stddef.h>

#include "place/place.h"
#include "place/registry.h"

static double lowest_rank(const colio_place_input_t *in, void *ctx, int j, int rank)
{
    (void)in, (void)ctx, (void)j;
    return rank;
}

static int greedy_select(const colio_place_input_t *in, int *aggs)
{
    return colio_place_elect(in, lowest_rank, NULL, aggs);
}

const colio_place_ops_t colio_place_greedy = {
    .name = "greedy",
    .uses_pattern = 1,
    .select = greedy_select,
};
