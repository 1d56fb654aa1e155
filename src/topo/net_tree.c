/*
 * Switch trees: the tree generator (colio_topology=tree:fanout=AxBx...,
 * A nodes per leaf switch, B leaf switches per next-level switch, ... up to
 * one root; the storage target hangs off the root) as in TATP's cluster
 * (Liu et al. Sec. 4.2, Fig. 4: nodes under one switch are 2 hops apart,
 * under different leaves 4), and the routing shared with topology files:
 * a route goes up to the lowest common switch and down again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/net_impl.h"

void colio_tree_free(net_tree_t *t)
{
    for (int i = 0; t->name && i < t->nodes; i++)
        free(t->name[i]);
    free(t->name);
    free(t->parent);
    free(t->depth);
    free(t->target);
    *t = (net_tree_t){0};
}

/* Walk both ends up to their common ancestor, recording each element's uplink. */
int colio_tree_route(const net_tree_t *t, int a, int b, int64_t *links, int max)
{
    int n = 0;
    int64_t down[64];
    int nd = 0;
    while (a != b) {
        if (t->depth[a] >= t->depth[b]) {
            n = net_push(links, n, max, a);
            a = t->parent[a];
        } else {
            if (nd < 64)
                down[nd] = b;
            nd++;
            b = t->parent[b];
        }
    }
    for (int i = nd - 1; i >= 0; i--) /* down in path order */
        n = net_push(links, n, max, i < 64 ? down[i] : -1);
    return n;
}

int colio_tree_hops(const net_tree_t *t, int a, int b) { return colio_tree_route(t, a, b, NULL, 0); }

/* The storage target fewest hops away (ties: the first). */
int colio_tree_nearest_target(const net_tree_t *t, int a)
{
    int best = 0;
    for (int i = 1; i < t->ntargets; i++)
        if (colio_tree_hops(t, a, t->target[i]) < colio_tree_hops(t, a, t->target[best]))
            best = i;
    return best;
}

static int tree_key(colio_net_t *net, const char *key, const char *val)
{
    if (strcmp(key, "fanout") != 0)
        return -1;
    return (net->ndims = colio_net_parse_dims(val, net->dims)) > 0 ? 0 : -2;
}

/* Elements: nodes, then each level's switches (root last), then the storage target. */
static int tree_alloc(net_tree_t *t, int nelem)
{
    t->nelem = nelem;
    t->parent = malloc(sizeof(int) * (size_t)nelem);
    t->depth = malloc(sizeof(int) * (size_t)nelem);
    t->target = malloc(sizeof(int));
    t->ntargets = 1;
    return t->parent && t->depth && t->target ? COLIO_SUCCESS : COLIO_ERR_NOMEM;
}

static int tree_build(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err)
{
    (void)opts;
    if (net->ndims < 1)
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: tree needs fanout=AxB...");
    int64_t below = 1, total = 0;
    for (int l = 0; l < net->ndims; l++)
        below *= net->dims[l], total += below;
    if (below > (1 << 24))
        return colio_err_set(err, COLIO_ERR_HINT, "colio_topology: tree of %lld nodes is too large", (long long)below);
    net_tree_t *t = &net->tree;
    int nodes = (int)below, levels = net->ndims;
    /* total counts nodes and every switch level but the root; + root + storage */
    if (tree_alloc(t, (int)total + 2) != 0)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory for the tree");
    t->nodes = nodes;
    int first = 0, count = nodes;
    for (int l = 0; l < levels; l++) { /* level l elements [first, first+count) hang off the next level */
        int next = first + count, group = net->dims[l];
        for (int i = 0; i < count; i++) {
            t->parent[first + i] = next + i / group;
            t->depth[first + i] = levels - l + 1;
        }
        first = next, count = count / group;
    }
    t->parent[first] = -1, t->depth[first] = 1; /* the root */
    t->parent[first + 1] = first, t->depth[first + 1] = 2; /* the storage target */
    t->target[0] = first + 1;
    net->machine = nodes;
    net->ntargets = 1;
    net->nlinks = t->nelem;
    snprintf(net->desc, sizeof net->desc, "tree: %d nodes, %d switch levels, storage at the root", nodes, levels);
    return COLIO_SUCCESS;
}

static int tree_hops(const colio_net_t *net, int a, int b) { return colio_tree_hops(&net->tree, a, b); }

static int tree_route(const colio_net_t *net, int a, int b, int64_t *links, int max)
{
    return colio_tree_route(&net->tree, a, b, links, max);
}

static int tree_io_target(const colio_net_t *net, int a) { return colio_tree_nearest_target(&net->tree, a); }

static int tree_io_route(const colio_net_t *net, int a, int64_t *links, int max)
{
    return colio_tree_route(&net->tree, a, net->tree.target[colio_tree_nearest_target(&net->tree, a)], links, max);
}

const colio_net_gen_t colio_net_tree = {
    .name = "tree",
    .key = tree_key,
    .build = tree_build,
    .hops = tree_hops,
    .route = tree_route,
    .io_target = tree_io_target,
    .io_route = tree_io_route,
};
