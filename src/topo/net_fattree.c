/*
 * k-ary fat-tree (colio_topology=fattree:k=K, K even): K pods of K/2 edge
 * and K/2 aggregation switches, (K/2)^2 core switches, K^3/4 hosts, K/2 per
 * edge switch; hosts 2 hops apart under one edge switch, 4 within a pod, 6
 * across pods. Routes are deterministic, "d-mod-k": the aggregation switch
 * and the core are chosen from the destination host's number. One storage
 * target is attached to every core switch (4 hops from any host; the core
 * is chosen from the source host's number).
 *
 * Links: host-edge (one per host), edge-aggregation (K/2 per edge switch),
 * aggregation-core (K/2 per aggregation switch), core-storage (one per core).
 */
#include <stdio.h>
#include <string.h>

#include "topo/net_impl.h"

static int fattree_key(colio_net_t *net, const char *key, const char *val)
{
    if (strcmp(key, "k") != 0)
        return -1;
    return (net->k = colio_net_parse_int(val)) > 0 ? 0 : -2;
}

static int fattree_build(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    (void)opts;
    int k = net->k;
    if (k < 2 || k % 2 || k > 128)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: fattree needs an even k from 2 to 128");
    int64_t h = (int64_t)k * k * k / 4, half = k / 2, edges = (int64_t)k * half, cores = half * half;
    net->machine = (int)h;
    net->ntargets = 1;
    net->nlinks = h + edges * half * 2 + cores;
    snprintf(net->desc, sizeof net->desc, "fattree: k=%d, %lld hosts, %lld core switches", k, (long long)h,
             (long long)cores);
    return COLIO_SUCCESS;
}

typedef struct ft {
    int64_t half, hosts, edges;
} ft_t;

static ft_t ft_of(const colio_net_t *net)
{
    int64_t half = net->k / 2;
    return (ft_t){half, (int64_t)net->k * net->k * net->k / 4, (int64_t)net->k * half};
}

static int64_t edge_of(ft_t f, int host) { return host / f.half; }
static int64_t pod_of(ft_t f, int host) { return host / (f.half * f.half); }
static int64_t link_edge_agg(ft_t f, int64_t edge, int64_t j) { return f.hosts + edge * f.half + j; }
static int64_t link_agg_core(ft_t f, int64_t pod, int64_t j, int64_t c)
{
    return f.hosts + f.edges * f.half + (pod * f.half + j) * f.half + c;
}

static int fattree_hops(const colio_net_t *net, int a, int b)
{
    ft_t f = ft_of(net);
    if (edge_of(f, a) == edge_of(f, b))
        return 2;
    return pod_of(f, a) == pod_of(f, b) ? 4 : 6;
}

static int fattree_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    ft_t f = ft_of(net);
    int64_t j = b % f.half, c = (b / f.half) % f.half; /* aggregation switch and core, from the destination */
    int n = net_push(links, 0, max, a);
    if (edge_of(f, a) != edge_of(f, b)) {
        n = net_push(links, n, max, link_edge_agg(f, edge_of(f, a), j));
        if (pod_of(f, a) != pod_of(f, b)) {
            n = net_push(links, n, max, link_agg_core(f, pod_of(f, a), j, c));
            n = net_push(links, n, max, link_agg_core(f, pod_of(f, b), j, c));
        }
        n = net_push(links, n, max, link_edge_agg(f, edge_of(f, b), j));
    }
    return net_push(links, n, max, b);
}

static int fattree_io_target(const colio_net_t *net, int a)
{
    (void)net, (void)a;
    return 0;
}

static int fattree_io_route(const colio_net_t *net, int a, int64_t *links, int max)
{
    ft_t f = ft_of(net);
    int64_t j = a % f.half, c = (a / f.half) % f.half;
    int n = net_push(links, 0, max, a);
    n = net_push(links, n, max, link_edge_agg(f, edge_of(f, a), j));
    n = net_push(links, n, max, link_agg_core(f, pod_of(f, a), j, c));
    return net_push(links, n, max, f.hosts + f.edges * f.half * 2 + j * f.half + c);
}

const colio_net_gen_t colio_net_fattree = {
    .name = "fattree",
    .key = fattree_key,
    .build = fattree_build,
    .hops = fattree_hops,
    .route = fattree_route,
    .io_target = fattree_io_target,
    .io_route = fattree_io_route,
};
