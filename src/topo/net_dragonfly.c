/*
 * Dragonfly (colio_topology=dragonfly:groups=G,routers=R,nodes=N), Cori-like:
 * N nodes per router, R routers per group connected all-to-all, one global
 * link between every pair of groups, attached in group g to router h mod R
 * for the link towards group h. Minimal routing: node to router, a local hop
 * to the gateway router when needed, the global hop, a local hop, router to
 * node (2 hops on one router, 3 in one group, 3 to 5 across groups). One
 * storage target per group, on router 0 (LNET routers spread over the
 * groups); a node's target is its group's.
 *
 * Links: node-router (one per node), local router pairs (R(R-1)/2 per group),
 * global group pairs (G(G-1)/2), router 0 to storage (one per group).
 */
#include <stdio.h>
#include <string.h>

#include "topo/net_impl.h"

static int dragonfly_key(colio_net_t *net, const char *key, const char *val)
{
    int *field = strcmp(key, "groups") == 0 ? &net->groups
                 : strcmp(key, "routers") == 0 ? &net->routers
                 : strcmp(key, "nodes") == 0 ? &net->per_router
                                             : NULL;
    if (field == NULL)
        return -1;
    return (*field = colio_net_parse_int(val)) > 0 ? 0 : -2;
}

static int dragonfly_build(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    (void)opts;
    int64_t g = net->groups, r = net->routers, n = net->per_router;
    if (g < 1 || r < 1 || n < 1 || g * r * n > (1 << 24))
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: dragonfly needs groups, routers and nodes (>= 1)");
    net->machine = (int)(g * r * n);
    net->ntargets = (int)g;
    net->nlinks = g * r * n + g * (r * (r - 1) / 2) + g * (g - 1) / 2 + g;
    snprintf(net->desc, sizeof net->desc, "dragonfly: %lld groups of %lld routers of %lld nodes", (long long)g,
             (long long)r, (long long)n);
    return COLIO_SUCCESS;
}

static int64_t pair_index(int64_t x, int64_t y)
{
    int64_t lo = x < y ? x : y, hi = x < y ? y : x;
    return hi * (hi - 1) / 2 + lo;
}

typedef struct df_pos {
    int64_t group, router; /* router: index within the group */
} df_pos_t;

static df_pos_t pos_of(const colio_net_t *net, int node)
{
    int64_t global_router = node / net->per_router;
    return (df_pos_t){global_router / net->routers, global_router % net->routers};
}

static int64_t link_local(const colio_net_t *net, int64_t g, int64_t r1, int64_t r2)
{
    int64_t r = net->routers;
    return (int64_t)net->machine + g * (r * (r - 1) / 2) + pair_index(r1, r2);
}

static int64_t link_global(const colio_net_t *net, int64_t g, int64_t h)
{
    int64_t r = net->routers;
    return (int64_t)net->machine + net->groups * (r * (r - 1) / 2) + pair_index(g, h);
}

/* From router (g, r1) to router (g, r2) within a group. */
static int local_hop(const colio_net_t *net, int64_t g, int64_t r1, int64_t r2, int64_t *links, int n, int max)
{
    return r1 == r2 ? n : net_push(links, n, max, link_local(net, g, r1, r2));
}

static int dragonfly_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    df_pos_t pa = pos_of(net, a), pb = pos_of(net, b);
    int n = net_push(links, 0, max, a);
    if (pa.group == pb.group) {
        n = local_hop(net, pa.group, pa.router, pb.router, links, n, max);
    } else {
        int64_t out = pb.group % net->routers, in = pa.group % net->routers; /* gateways */
        n = local_hop(net, pa.group, pa.router, out, links, n, max);
        n = net_push(links, n, max, link_global(net, pa.group, pb.group));
        n = local_hop(net, pb.group, in, pb.router, links, n, max);
    }
    return net_push(links, n, max, b);
}

static int dragonfly_hops(const colio_net_t *net, int a, int b) { return dragonfly_route(net, a, b, NULL, 0); }

static int dragonfly_io_target(const colio_net_t *net, int a) { return (int)pos_of(net, a).group; }

static int dragonfly_io_route(const colio_net_t *net, int a, int64_t *links, int max)
{
    df_pos_t p = pos_of(net, a);
    int n = net_push(links, 0, max, a);
    n = local_hop(net, p.group, p.router, 0, links, n, max);
    return net_push(links, n, max, net->nlinks - net->groups + p.group);
}

const colio_net_gen_t colio_net_dragonfly = {
    .name = "dragonfly",
    .key = dragonfly_key,
    .build = dragonfly_build,
    .hops = dragonfly_hops,
    .route = dragonfly_route,
    .io_target = dragonfly_io_target,
    .io_route = dragonfly_io_route,
};
