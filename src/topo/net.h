/*
 * Network model: hop distances and routes between the job's nodes and from
 * each node to its storage target (I/O node, bridge node), plus latency and
 * bandwidth per level. Used by placement (TAPIOCA's costs, TATP's distance
 * matrix), by the per-operation metrics (hop-bytes, link load) and by
 * colio-place. Pure: no MPI traffic, so it is tested on one rank.
 *
 * A model is built from a spec (hint colio_topology):
 *   flat                                   every pair of nodes 1 hop apart (default)
 *   tree:fanout=AxBx...                    switch tree, A nodes per leaf switch, B leaves per next level...
 *   fattree:k=K                            k-ary fat-tree (k^3/4 hosts; 2, 4 or 6 hops)
 *   dragonfly:groups=G,routers=R,nodes=N   all-to-all routers in a group, one global link per group pair
 *   torus:dims=AxBx...[,psets=P,bridges=B] torus, one node per point; psets of P nodes with B bridge nodes
 *   file:PATH  (or a path containing '/')  the text format of docs/TOPOLOGY.md
 * Every generator accepts ,latency=SECONDS,bandwidth=BYTES_PER_S,io_bandwidth=BYTES_PER_S.
 *
 * The machine may be larger than the job: job node i sits on machine node
 * place[i] (compact: i; scattered: a seeded random choice; file: by name).
 */
#ifndef COLIO_TOPO_NET_H
#define COLIO_TOPO_NET_H

#include <stdint.h>

#include "base/error.h"

typedef struct colio_net colio_net_t;

typedef struct colio_net_opts {
    int nnodes;                   /* nodes of the job */
    const char *const *names;     /* NULL, or nnodes processor names (needed by file specs) */
    uint64_t scatter_seed;        /* 0: compact allocation; else nodes scattered over the machine */
} colio_net_opts_t;

/* Build a model; on failure *net is NULL and err names the problem (COLIO_ERR_HINT for a bad spec). */
int colio_net_create(const char *spec, const colio_net_opts_t *opts, colio_net_t **net, colio_err_t *err);
void colio_net_free(colio_net_t *net);
/* Is spec well formed? (files are only checked for a non-empty path) 0 = yes. */
int colio_net_spec_valid(const char *spec);

/* Hops between two job nodes (0 for the same node). */
int colio_net_hops(const colio_net_t *net, int node_a, int node_b);
/* Hops from a job node to its storage target, and which target (0..ntargets-1). */
int colio_net_io_hops(const colio_net_t *net, int node);
int colio_net_io_target(const colio_net_t *net, int node);
int colio_net_ntargets(const colio_net_t *net);

/* Links of the machine, numbered 0..nlinks-1; the route fills up to max link
   ids in path order and returns the route's length (== hops). */
int64_t colio_net_nlinks(const colio_net_t *net);
int colio_net_route(const colio_net_t *net, int node_a, int node_b, int64_t *links, int max);
int colio_net_io_route(const colio_net_t *net, int node, int64_t *links, int max);

/* Latency per hop (s), link bandwidth (B/s), bandwidth into the storage target (B/s). */
/* Figures measured between nodes (topo/probe.c) in place of the defaults; those the spec gave stay (0: none). */
void colio_net_measured(colio_net_t *net, double latency, double bandwidth);
double colio_net_latency(const colio_net_t *net);
double colio_net_bandwidth(const colio_net_t *net);
double colio_net_io_bandwidth(const colio_net_t *net);

/* Machine node a job node sits on, machine size, and a one-line description. */
int colio_net_machine_node(const colio_net_t *net, int node);
int colio_net_machine_nodes(const colio_net_t *net);
const char *colio_net_describe(const colio_net_t *net);

#endif
