/*
 * Torus (colio_topology=torus:dims=AxBx...[,psets=P,bridges=Q]): one node per
 * point, numbered in row-major order (last dimension fastest), hops the sum
 * over dimensions of the shorter way around, dimension-ordered routing (the
 * shorter way, + on a tie). As on IBM BG/Q (Tessier et al., TAPIOCA, Sec.
 * 5.1 and Fig. 4): psets of P consecutive nodes (default: the whole
 * machine), each with Q bridge nodes (default 2, 1 when there is no pset)
 * evenly spaced in the pset, each linked to its own I/O node; a node's
 * storage target is the nearest bridge of its pset (ties: the first), one
 * more hop beyond it.
 *
 * Links: each node's link to its + neighbour in each dimension (ndims per
 * node), then one per bridge to its I/O node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/net_impl.h"

static int torus_key(colio_net_t *net, const char *key, const char *val)
{
    if (strcmp(key, "dims") == 0)
        return (net->ndims = colio_net_parse_dims(val, net->dims)) > 0 ? 0 : -2;
    if (strcmp(key, "psets") == 0)
        return (net->pset = colio_net_parse_int(val)) > 0 ? 0 : -2;
    if (strcmp(key, "bridges") == 0)
        return (net->bridges = colio_net_parse_int(val)) > 0 ? 0 : -2;
    return -1;
}

/* Coordinates of every node, so hops need no division (placement asks millions of them). */
static void cache_coords(colio_net_t *net)
{
    int small = 1;
    for (int d = 0; d < net->ndims; d++)
        small &= net->dims[d] <= 255;
    if (!small || net->machine > (1 << 20) || (net->coord = malloc((size_t)net->machine * (size_t)net->ndims)) == NULL)
        return; /* hops divide instead */
    for (int node = 0; node < net->machine; node++)
        for (int d = net->ndims - 1, x = node; d >= 0; x /= net->dims[d], d--)
            net->coord[(size_t)node * net->ndims + d] = (unsigned char)(x % net->dims[d]);
}

static int torus_build(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    (void)opts;
    int64_t n = 1;
    for (int d = 0; d < net->ndims; d++)
        n *= net->dims[d];
    if (net->ndims < 1 || n > (1 << 24))
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: torus needs dims=AxB... (at most 2^24 nodes)");
    if (net->bridges == 0)
        net->bridges = net->pset ? 2 : 1;
    if (net->pset == 0)
        net->pset = (int)n;
    if (n % net->pset || net->bridges > net->pset)
        return colio_err_set(err, COLIO_ERR_HINT,
                             "colio_topology: torus psets must divide the %lld nodes and hold the bridges", (long long)n);
    net->machine = (int)n;
    net->ntargets = (int)(n / net->pset) * net->bridges;
    cache_coords(net);
    net->nlinks = n * net->ndims + net->ntargets;
    int len = snprintf(net->desc, sizeof net->desc, "torus: %lld nodes (", (long long)n);
    for (int d = 0; d < net->ndims && len < (int)sizeof net->desc; d++)
        len += snprintf(net->desc + len, sizeof net->desc - (size_t)len, "%s%d", d ? "x" : "", net->dims[d]);
    if (len < (int)sizeof net->desc)
        snprintf(net->desc + len, sizeof net->desc - (size_t)len, "), psets of %d with %d bridge nodes", net->pset,
                 net->bridges);
    return COLIO_SUCCESS;
}

/* Coordinates of a node, last dimension fastest. */
static void coords(const colio_net_t *net, int node, int *c)
{
    for (int d = net->ndims - 1; d >= 0; d--) {
        c[d] = node % net->dims[d];
        node /= net->dims[d];
    }
}

static int node_at(const colio_net_t *net, const int *c)
{
    int node = 0;
    for (int d = 0; d < net->ndims; d++)
        node = node * net->dims[d] + c[d];
    return node;
}

static int torus_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    int ca[NET_MAX_DIMS], cb[NET_MAX_DIMS], n = 0;
    coords(net, a, ca);
    coords(net, b, cb);
    for (int d = 0; d < net->ndims; d++) {
        int size = net->dims[d], fwd = ((cb[d] - ca[d]) % size + size) % size, back = size - fwd;
        int plus = fwd <= back, steps = fwd == 0 ? 0 : plus ? fwd : back;
        for (int s = 0; s < steps; s++) {
            if (!plus) /* the - link from x is the + link of x - 1 */
                ca[d] = (ca[d] - 1 + size) % size;
            n = net_push(links, n, max, (int64_t)node_at(net, ca) * net->ndims + d);
            if (plus)
                ca[d] = (ca[d] + 1) % size;
        }
    }
    return n;
}

/* The shorter way around in every dimension, without walking the route (placement asks this a lot). */
static int torus_hops(const colio_net_t *net, int a, int b)
{
    int hops = 0;
    if (net->coord) {
        const unsigned char *ca = net->coord + (size_t)a * net->ndims, *cb = net->coord + (size_t)b * net->ndims;
        for (int d = 0; d < net->ndims; d++) {
            int delta = ca[d] > cb[d] ? ca[d] - cb[d] : cb[d] - ca[d];
            hops += delta <= net->dims[d] - delta ? delta : net->dims[d] - delta;
        }
        return hops;
    }
    for (int d = net->ndims - 1; d >= 0; d--) {
        int size = net->dims[d], fwd = ((b % size - a % size) + size) % size;
        hops += fwd <= size - fwd ? fwd : size - fwd;
        a /= size, b /= size;
    }
    return hops;
}

/* Bridge i of the pset of node a. */
static int bridge_node(const colio_net_t *net, int a, int i)
{
    return a / net->pset * net->pset + i * (net->pset / net->bridges);
}

static int torus_io_target(const colio_net_t *net, int a)
{
    int best = 0;
    for (int i = 1; i < net->bridges; i++)
        if (torus_hops(net, a, bridge_node(net, a, i)) < torus_hops(net, a, bridge_node(net, a, best)))
            best = i;
    return a / net->pset * net->bridges + best;
}

static int torus_io_route(const colio_net_t *net, int a, int64_t *links, int max)
{
    int target = torus_io_target(net, a);
    int n = torus_route(net, a, bridge_node(net, a, target % net->bridges), links, max);
    return net_push(links, n, max, (int64_t)net->machine * net->ndims + target);
}

const colio_net_gen_t colio_net_torus = {
    .name = "torus",
    .key = torus_key,
    .build = torus_build,
    .hops = torus_hops,
    .route = torus_route,
    .io_target = torus_io_target,
    .io_route = torus_io_route,
};
