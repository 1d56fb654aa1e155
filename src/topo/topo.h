/*
 * Topology model: which ranks share a node, and the network model giving
 * distances between nodes and to storage (topo/net.h). Built once per file
 * at open (and again when hints change it).
 */
#ifndef COLIO_TOPO_TOPO_H
#define COLIO_TOPO_TOPO_H

#include <mpi.h>

#include "base/error.h"
#include "topo/net.h"

typedef struct colio_topo {
    int nprocs;
    int nnodes;
    int *node_of;       /* nprocs: node index (0..nnodes-1) of each rank, numbered by first rank */
    int *local_rank;    /* nprocs: index of each rank among the ranks of its node */
    colio_net_t *net;   /* distances between nodes; NULL = flat (every pair of nodes 1 hop) */
    char **node_name;   /* nnodes processor names (colio_topo_build only, else NULL), for topology files */
    double net_latency, net_bandwidth; /* measured between nodes (colio_topo_probe_net), 0: not measured */
} colio_topo_t;

/* Collective over comm; names each node by its first rank's processor name. */
int colio_topo_build(MPI_Comm comm, colio_topo_t *topo, colio_err_t *err);
/*
 * Collective over comm (the communicator topo was built on): where it spans
 * two nodes or more, measure the latency (s) and bandwidth (bytes/s)
 * between the first ranks of the first two nodes (topo/probe.c), the same
 * figures on every rank; a few milliseconds over TCP.
 */
int colio_topo_probe_net(MPI_Comm comm, colio_topo_t *topo);
/* A deep copy of src's ranks, nodes, names and measured network figures (no network model). */
int colio_topo_copy(const colio_topo_t *src, colio_topo_t *dst);
/* Without MPI (tests, simulators): node_of given; fills the rest. */
int colio_topo_from_nodes(int nprocs, const int *node_of, colio_topo_t *topo);
/* Frees the network model too. */
void colio_topo_free(colio_topo_t *topo);

#endif
