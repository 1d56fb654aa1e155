/*
 * Inside the network model (topo/net.h): the model struct shared by the
 * generators and the table each generator fills. Machine nodes are the
 * generator's; job nodes map to them through place[].
 */
#ifndef COLIO_TOPO_NET_IMPL_H
#define COLIO_TOPO_NET_IMPL_H

#include <stdint.h>

#include "topo/net.h"

#define NET_MAX_DIMS 8

/* An explicit tree of switches (tree generator, topology files): elements are
   machine nodes 0..nodes-1, then switches and storage targets; element i's
   link to its parent has id i; the top has no parent. */
typedef struct net_tree {
    int nelem, nodes, ntargets;
    int *parent, *depth;
    int *target;        /* ntargets element ids of the storage targets */
    char **name;        /* file topologies: machine node names */
} net_tree_t;

typedef struct colio_net_gen colio_net_gen_t;

struct colio_net {
    const colio_net_gen_t *gen;
    int nnodes;               /* job nodes */
    int *place;               /* job node -> machine node */
    int machine;              /* machine nodes */
    int ntargets;
    int64_t nlinks;
    double latency, bandwidth, io_bandwidth;
    int latency_given, bandwidth_given;     /* set by the spec: measured figures do not replace them */
    char desc[192];
    /* generator parameters */
    int k;                                  /* fattree */
    int groups, routers, per_router;        /* dragonfly */
    int dims[NET_MAX_DIMS], ndims, pset, bridges; /* torus (also tree fan-outs in dims) */
    unsigned char *coord;                   /* torus: coordinates of every node (ndims bytes each), or NULL */
    char path[1024];                        /* file */
    net_tree_t tree;                        /* tree, file */
};

struct colio_net_gen {
    const char *name;
    /* One generator key (value as text): 0 taken, -1 unknown key, -2 bad value. */
    int (*key)(colio_net_t *net, const char *key, const char *val);
    /* Check the parameters, size the machine (machine, nlinks, ntargets), write desc. */
    int (*build)(colio_net_t *net, const colio_net_opts_t *opts, colio_err_t *err);
    /* On machine nodes. */
    int (*hops)(const colio_net_t *net, int a, int b);
    int (*route)(const colio_net_t *net, int a, int b, int64_t *links, int max);
    int (*io_target)(const colio_net_t *net, int a);
    int (*io_route)(const colio_net_t *net, int a, int64_t *links, int max); /* returns io hops */
};

extern const colio_net_gen_t colio_net_flat, colio_net_tree, colio_net_fattree, colio_net_dragonfly,
    colio_net_torus, colio_net_file;

/* Parse "AxBxC" into dims (at most NET_MAX_DIMS, each >= 1); count or -1. */
int colio_net_parse_dims(const char *val, int *dims);
/* Positive integer, or -1. */
int colio_net_parse_int(const char *val);

/* Explicit trees (net_tree.c): hops, routes, nearest target. */
int colio_tree_hops(const net_tree_t *t, int a, int b);
int colio_tree_route(const net_tree_t *t, int a, int b, int64_t *links, int max);
int colio_tree_nearest_target(const net_tree_t *t, int a);
void colio_tree_free(net_tree_t *t);

/* Append a link id when room remains; returns the new count. */
static inline int net_push(int64_t *links, int n, int max, int64_t id)
{
    if (n < max)
        links[n] = id;
    return n + 1;
}

#endif
