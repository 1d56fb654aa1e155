/*
 * What every placement strategy shares: how many aggregators the hints ask
 * for, the per-node cap, and TATP's rank distance (Liu et al. Sec. 4.2).
 */
#include "place/place.h"
#include "place/registry.h"

/*
 * Aggregators per node when neither hint sets them (colio_aggregators_per_node=0):
 * ROMIO's one per node across nodes, where each node's link is the limit.
 * On a job of one node the exchange is memory copies and the aggregators'
 * per-piece work, which more aggregators share across cores, while every
 * aggregator adds a message per source and round and a writer contending
 * for the file: ceil(sqrt(ranks)), at least two. Measured on tmpfs, writes
 * (docs/PERFORMANCE.md, "Aggregators on one node"): two beat one at 2
 * ranks; at 8-16 ranks 3-4 beat two on every workload (E3SM F 1.4-1.5x),
 * and ranks/2 lost on 4 KiB interleaved pieces at 16.
 */
static int ceil_sqrt(int n)
{
    int r = 1;
    while (r * r < n)
        r++;
    return r;
}

static int per_node_of(const colio_topo_t *topo, int per_node)
{
    if (per_node > 0)
        return per_node;
    if (topo->nnodes > 1)
        return 1;
    int r = ceil_sqrt(topo->nprocs);
    return r > 2 ? r : 2;
}

/*
 * The wide set: on one node, a write of small pieces (under 2 KiB on
 * average) takes every rank as an aggregator, as a hand-written
 * transposition does; the per-piece work of the E3SM maps' 8-40-byte pieces
 * is then shared by every core (16 ranks on tmpfs: F 1.7x, the synthetic
 * e3sm 1.5x, G 1.3x faster than at 4 aggregators, and 64 B to 1.4 KiB pieces
 * no slower), while 4 KiB pieces and larger lost with it (more messages
 * and writers for the same bytes). Reads go direct on such patterns.
 */
#define COLIO_WIDE_PIECE 2048

int colio_place_wide_count(const colio_topo_t *topo, int cb_nodes, int per_node)
{
    return cb_nodes == 0 && per_node == 0 && topo->nnodes == 1 ? topo->nprocs : 0;
}

int colio_place_wide_call(int write, int64_t bytes, int64_t pieces)
{
    return write && pieces > 0 && bytes < COLIO_WIDE_PIECE * pieces;
}

int colio_place_count(const colio_topo_t *topo, int cb_nodes, int per_node)
{
    int64_t want = cb_nodes > 0 ? cb_nodes : (int64_t)topo->nnodes * per_node_of(topo, per_node);
    return want > topo->nprocs ? topo->nprocs : (int)want;
}

int colio_place_node_cap(const colio_topo_t *topo, int naggs, int per_node)
{
    int need = (naggs + topo->nnodes - 1) / topo->nnodes;
    return per_node > need ? per_node : need;
}

int colio_place_node_hops(const colio_topo_t *topo, int a, int b)
{
    if (a == b)
        return 0;
    return topo->net ? colio_net_hops(topo->net, a, b) : 1;
}

int colio_place_rank_dist(const colio_topo_t *topo, int a, int b)
{
    if (a == b)
        return 0;
    int na = topo->node_of[a], nb = topo->node_of[b];
    return na == nb ? 1 /* TATP: intra-node distances are at most one hop */ : colio_place_node_hops(topo, na, nb);
}

/* Without a model: the flat model's defaults (topo/net.c). */
int colio_place_io_hops(const colio_topo_t *topo, int node)
{
    return topo->net ? colio_net_io_hops(topo->net, node) : 1;
}

double colio_place_latency(const colio_topo_t *topo) { return topo->net ? colio_net_latency(topo->net) : 1e-6; }

double colio_place_bandwidth(const colio_topo_t *topo) { return topo->net ? colio_net_bandwidth(topo->net) : 10e9; }

double colio_place_io_bandwidth(const colio_topo_t *topo)
{
    return topo->net ? colio_net_io_bandwidth(topo->net) : 5e9;
}

int64_t colio_domain_pieces_per_stripe(const colio_domains_t *d) { return (d->unit + d->round_size - 1) / d->round_size; }

int64_t colio_domain_round_max(const colio_domain_input_t *in) { return in->round_max > 0 ? in->round_max : in->round_size; }

void colio_domain_stripe_piece(const colio_domains_t *d, int64_t k, int64_t p, int64_t *s, int64_t *e)
{
    int64_t base = colio_mul_sat(k, d->unit);
    int64_t stripe_end = colio_add_sat(base, d->unit);
    int64_t ps = colio_add_sat(base, colio_mul_sat(p, d->round_size)), pe = colio_add_sat(ps, d->round_size);
    pe = pe < stripe_end ? pe : stripe_end;
    *s = ps > d->lo ? ps : d->lo;
    *e = pe < d->hi ? pe : d->hi;
    if (*s > *e)
        *s = *e;
}
