/*
 * Network models (topo/net.h). The flat model: a full crossbar, every pair
 * of nodes one hop apart over their own link, one storage target one hop
 * from every node.
 */
#include "topo/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct colio_net {
    int nnodes;
    double latency, bandwidth, io_bandwidth;
    char desc[128];
};

/* Defaults: 1 us per hop, 10 GB/s links, 5 GB/s into a storage target (docs/TOPOLOGY.md). */
#define NET_DEFAULT_LATENCY 1e-6
#define NET_DEFAULT_BANDWIDTH 10e9
#define NET_DEFAULT_IO_BANDWIDTH 5e9

int colio_net_spec_valid(const char *spec) { return strcmp(spec, "flat") == 0 ? 0 : -1; }

int colio_net_create(const char *spec, const colio_net_opts_t *opts, colio_net_t **net_p, colio_err_t *err)
{
    *net_p = NULL;
    if (colio_net_spec_valid(spec) != 0)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: unknown topology '%s'", spec);
    colio_net_t *net = calloc(1, sizeof *net);
    if (net == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for the network model");
    net->nnodes = opts->nnodes;
    net->latency = NET_DEFAULT_LATENCY;
    net->bandwidth = NET_DEFAULT_BANDWIDTH;
    net->io_bandwidth = NET_DEFAULT_IO_BANDWIDTH;
    snprintf(net->desc, sizeof net->desc, "flat: %d nodes, one hop apart", opts->nnodes);
    *net_p = net;
    return COLIO_SUCCESS;
}

void colio_net_free(colio_net_t *net) { free(net); }

int colio_net_hops(const colio_net_t *net, int a, int b)
{
    (void)net;
    return a != b;
}

int colio_net_io_hops(const colio_net_t *net, int node)
{
    (void)net, (void)node;
    return 1;
}

int colio_net_io_target(const colio_net_t *net, int node)
{
    (void)net, (void)node;
    return 0;
}

int colio_net_ntargets(const colio_net_t *net)
{
    (void)net;
    return 1;
}

/* Crossbar links: one per unordered pair of nodes, then one per node to storage. */
int64_t colio_net_nlinks(const colio_net_t *net)
{
    int64_t n = net->nnodes;
    return n * (n - 1) / 2 + n;
}

static int64_t pair_link(int a, int b)
{
    int64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return hi * (hi - 1) / 2 + lo;
}

int colio_net_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    (void)net;
    if (a == b)
        return 0;
    if (max > 0)
        links[0] = pair_link(a, b);
    return 1;
}

int colio_net_io_route(const colio_net_t *net, int node, int64_t *links, int max)
{
    int64_t n = net->nnodes;
    if (max > 0)
        links[0] = n * (n - 1) / 2 + node;
    return 1;
}

double colio_net_latency(const colio_net_t *net) { return net->latency; }
double colio_net_bandwidth(const colio_net_t *net) { return net->bandwidth; }
double colio_net_io_bandwidth(const colio_net_t *net) { return net->io_bandwidth; }
int colio_net_machine_node(const colio_net_t *net, int node)
{
    (void)net;
    return node;
}
int colio_net_machine_nodes(const colio_net_t *net) { return net->nnodes; }
const char *colio_net_describe(const colio_net_t *net) { return net->desc; }
