/*
 * The flat model (colio_topology=flat, the default): a crossbar sized to the
 * job, every pair of nodes one hop apart over its own link, one storage
 * target one hop from every node.
 */
#include <stdio.h>

#include "topo/net_impl.h"

static int flat_build(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    (void)err;
    int64_t n = opts->nnodes;
    net->machine = opts->nnodes;
    net->ntargets = 1;
    net->nlinks = n * (n - 1) / 2 + n;
    snprintf(net->desc, sizeof net->desc, "flat: %d nodes, every pair one hop apart", opts->nnodes);
    return COLIO_SUCCESS;
}

static int flat_hops(const colio_net_t *net, int a, int b)
{
    (void)net;
    return a != b;
}

/* One link per unordered pair of nodes. */
static int flat_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    (void)net;
    int64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return net_push(links, 0, max, hi * (hi - 1) / 2 + lo);
}

static int flat_io_target(const colio_net_t *net, int a)
{
    (void)net, (void)a;
    return 0;
}

/* Then one link per node to the storage target. */
static int flat_io_route(const colio_net_t *net, int a, int64_t *links, int max)
{
    int64_t n = net->machine;
    return net_push(links, 0, max, n * (n - 1) / 2 + a);
}

const colio_net_gen_t colio_net_flat = {
    .name = "flat",
    .build = flat_build,
    .hops = flat_hops,
    .route = flat_route,
    .io_target = flat_io_target,
    .io_route = flat_io_route,
};
