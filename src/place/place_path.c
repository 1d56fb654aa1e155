/*
 * Shortest-path and longest-path placements, TAPIOCA's baselines (Tessier
 * et al. Sec. 4.1, Table 2): each partition (file domain) elects a rank on
 * the node nearest to (farthest from) its storage target; ties go to the
 * lowest rank. At most the per-node cap of aggregators per node.
 */
#include <stddef.h>

#include "place/place.h"
#include "place/registry.h"

static double nearest(const colio_place_input_t *in, void *ctx, int j, int rank)
{
    (void)ctx, (void)j;
    return colio_place_io_hops(in->topo, in->topo->node_of[rank]);
}

static double farthest(const colio_place_input_t *in, void *ctx, int j, int rank)
{
    return -nearest(in, ctx, j, rank);
}

static int shortest_select(const colio_place_input_t *in, int *aggs)
{
    return colio_place_elect(in, nearest, NULL, aggs);
}

static int longest_select(const colio_place_input_t *in, int *aggs)
{
    return colio_place_elect(in, farthest, NULL, aggs);
}

const colio_place_ops_t colio_place_shortest = {
    .name = "shortest",
    .uses_pattern = 1,
    .select = shortest_select,
};

const colio_place_ops_t colio_place_longest = {
    .name = "longest",
    .uses_pattern = 1,
    .select = longest_select,
};
