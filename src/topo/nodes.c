/*
 * Node detection: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) names each node by
 * its lowest rank; when that reports one rank per node everywhere (as some
 * simulators do) the processor names decide instead.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

int colio_topo_from_nodes(int nprocs, const int *node_of, colio_topo_t *topo)
{
    memset(topo, 0, sizeof *topo);
    topo->nprocs = nprocs;
    topo->node_of = malloc(sizeof(int) * (size_t)nprocs);
    topo->local_rank = malloc(sizeof(int) * (size_t)nprocs);
    int *count = calloc((size_t)nprocs + 1, sizeof(int));
    if (!topo->node_of || !topo->local_rank || !count) {
        free(count);
        colio_topo_free(topo);
        return COLIO_ERR_NOMEM;
    }
    for (int r = 0; r < nprocs; r++) {
        topo->node_of[r] = node_of[r];
        topo->local_rank[r] = count[node_of[r]]++;
        if (node_of[r] + 1 > topo->nnodes)
            topo->nnodes = node_of[r] + 1;
    }
    free(count);
    return COLIO_SUCCESS;
}

/* Renumber node labels (ranks: 0 .. n-1) densely in order of first appearance, in O(n). */
static int renumber(int n, int *label)
{
    int *map = malloc(sizeof(int) * (size_t)n);
    if (map == NULL)
        return COLIO_ERR_NOMEM;
    for (int r = 0; r < n; r++)
        map[r] = -1;
    int m = 0;
    for (int r = 0; r < n; r++) {
        if (map[label[r]] < 0)
            map[label[r]] = m++;
        label[r] = map[label[r]];
    }
    free(map);
    return COLIO_SUCCESS;
}

/* FNV-1a, 64 bits: a processor name's hash. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/*
 * Lowest rank whose processor name has the same hash as each rank's: one
 * allgather of 8 bytes a rank and an open-addressed table, O(p) words and
 * time on every rank. (Gathering the names themselves took MPI_MAX_PROCESSOR_NAME
 * bytes per rank pair, 256 at 8,192 simulated ranks in one process: 16 GiB,
 * and a quadratic search; docs/SCALE.md, "What holds the memory at scale".)
 * colio_topo_build checks the result against the names of the nodes' first ranks.
 */
static int leaders_by_hash(MPI_Comm comm, int nprocs, int *leader)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    uint64_t mine = name_hash(name), *all = malloc(sizeof(uint64_t) * (size_t)nprocs);
    size_t cap = 2;
    while (cap < 2 * (size_t)nprocs)
        cap *= 2;
    int *slot = malloc(sizeof(int) * cap);
    if (all == NULL || slot == NULL) {
        free(all), free(slot);
        return COLIO_ERR_NOMEM;
    }
    int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm);
    for (size_t i = 0; i < cap; i++)
        slot[i] = -1;
    for (int r = 0; r < nprocs && rc == MPI_SUCCESS; r++) {
        size_t i = (size_t)(all[r] ^ (all[r] >> 29)) & (cap - 1);
        while (slot[i] >= 0 && all[slot[i]] != all[r])
            i = (i + 1) & (cap - 1);
        if (slot[i] < 0)
            slot[i] = r;
        leader[r] = slot[i];
    }
    free(all), free(slot);
    return rc == MPI_SUCCESS ? COLIO_SUCCESS : COLIO_ERR_MPI;
}

/* Lowest rank sharing a processor name with each rank, by the names themselves (where two hashes collided). */
static int leaders_by_name(MPI_Comm comm, int nprocs, int *leader)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    char *all = malloc((size_t)nprocs * MPI_MAX_PROCESSOR_NAME);
    if (all == NULL)
        return COLIO_ERR_NOMEM;
    int rc = MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    for (int r = 0; r < nprocs && rc == MPI_SUCCESS; r++) {
        leader[r] = r;
        for (int j = 0; j < r; j++)
            if (strcmp(all + (size_t)j * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0) {
                leader[r] = leader[j];
                break;
            }
    }
    free(all);
    return rc == MPI_SUCCESS ? COLIO_SUCCESS : COLIO_ERR_MPI;
}

/* Every node's processor name, as its first rank reports it (one Allgatherv of nnodes names). */
static int gather_node_names(MPI_Comm comm, colio_topo_t *t, int rank)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    int len = 0, rc;
    MPI_Get_processor_name(name, &len);
    int mine = t->local_rank[rank] == 0 ? len + 1 : 0;
    int *counts = malloc(sizeof(int) * (size_t)t->nprocs), *displs = malloc(sizeof(int) * (size_t)t->nprocs);
    t->node_name = calloc((size_t)t->nnodes, sizeof(char *));
    if (!counts || !displs || !t->node_name) {
        free(counts), free(displs);
        return COLIO_ERR_NOMEM;
    }
    rc = MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < t->nprocs; r++)
        displs[r] = total, total += counts[r];
    char *all = malloc((size_t)total + 1);
    if (rc == MPI_SUCCESS && all)
        rc = MPI_Allgatherv(name, mine, MPI_CHAR, all, counts, displs, MPI_CHAR, comm);
    if (all == NULL || rc != MPI_SUCCESS)
        free(all), all = NULL;
    for (int r = 0; all && r < t->nprocs; r++)
        if (counts[r] > 0)
            t->node_name[t->node_of[r]] = all + displs[r];
    free(counts), free(displs);
    return rc != MPI_SUCCESS ? COLIO_ERR_MPI : all == NULL ? COLIO_ERR_NOMEM : COLIO_SUCCESS;
}

/* The topology of node labels (each rank's node's lowest rank), with every node's name. */
static int labels_to_topo(MPI_Comm comm, int nprocs, int rank, int *labels, colio_topo_t *topo)
{
    int rc = renumber(nprocs, labels);
    if (rc == COLIO_SUCCESS)
        rc = colio_topo_from_nodes(nprocs, labels, topo);
    if (rc == COLIO_SUCCESS && (rc = gather_node_names(comm, topo, rank)) != COLIO_SUCCESS)
        colio_topo_free(topo);
    return rc;
}

/*
 * After nodes were found by name hashes: 2 where every rank's processor
 * name equals its node's first rank's, 1 where two hashes collided
 * somewhere, 0 where some rank failed (agreed: the lowest over all ranks).
 */
static int hash_nodes_agreed(MPI_Comm comm, const colio_topo_t *t, int rank, int rc)
{
    int mine = 0, all = 0;
    if (rc == COLIO_SUCCESS) {
        char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
        int len = 0;
        MPI_Get_processor_name(name, &len);
        const char *node = t->node_name[t->node_of[rank]];
        mine = node != NULL && strcmp(name, node) == 0 ? 2 : 1;
    }
    return MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS ? all : 0;
}

int colio_topo_build(MPI_Comm comm, colio_topo_t *topo, colio_err_t *err)
{
    int rank, nprocs, leader = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    int *labels = malloc(sizeof(int) * (size_t)nprocs);
    if (labels == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory building the topology");
    MPI_Comm node;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        /* the node's rank 0 has the lowest rank in comm (key = rank): name the node by it */
        MPI_Group g_node, g_comm;
        int zero = 0;
        MPI_Comm_group(node, &g_node);
        MPI_Comm_group(comm, &g_comm);
        MPI_Group_translate_ranks(g_node, 1, &zero, g_comm, &leader);
        MPI_Group_free(&g_node);
        MPI_Group_free(&g_comm);
        MPI_Comm_free(&node);
    }
    if (leader < 0)
        leader = rank;
    int rc = MPI_Allgather(&leader, 1, MPI_INT, labels, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        free(labels);
        return colio_err_from_mpi(err, rc, "topology discovery");
    }
    int shared = 0; /* does any rank share a node according to MPI? */
    for (int r = 0; r < nprocs && !shared; r++)
        shared = labels[r] != r;
    int by_name = !shared && nprocs > 1;
    if (by_name && leaders_by_hash(comm, nprocs, labels) != COLIO_SUCCESS) {
        free(labels);
        return colio_err_set(err, COLIO_ERR_MPI, "topology discovery by processor name failed");
    }
    int nodes_rc = labels_to_topo(comm, nprocs, rank, labels, topo);
    int agreed = by_name ? hash_nodes_agreed(comm, topo, rank, nodes_rc) : 2;
    if (agreed < 2 && nodes_rc == COLIO_SUCCESS)
        colio_topo_free(topo);
    if (agreed == 0 && nodes_rc == COLIO_SUCCESS)
        nodes_rc = COLIO_ERR_MPI; /* another rank failed */
    if (agreed == 1) /* two names' hashes collided: the names themselves */
        nodes_rc = leaders_by_name(comm, nprocs, labels) != COLIO_SUCCESS
                       ? COLIO_ERR_MPI
                       : labels_to_topo(comm, nprocs, rank, labels, topo);
    free(labels);
    if (nodes_rc == COLIO_ERR_NOMEM)
        return colio_err_set(err, nodes_rc, "out of memory building the topology");
    return nodes_rc == COLIO_SUCCESS ? nodes_rc
                                     : colio_err_set(err, nodes_rc, "gathering the nodes' processor names failed");
}

void colio_topo_free(colio_topo_t *topo)
{
    free(topo->node_of);
    free(topo->local_rank);
    colio_net_free(topo->net);
    if (topo->node_name && topo->nnodes > 0) /* one buffer, starting at the first node's name */
        free(topo->node_name[0]);
    free(topo->node_name);
    memset(topo, 0, sizeof *topo);
}

/* ---- copies ---------------------------------------------------------------------------- */

int colio_topo_copy(const colio_topo_t *src, colio_topo_t *dst)
{
    int rc = colio_topo_from_nodes(src->nprocs, src->node_of, dst);
    dst->net_latency = src->net_latency, dst->net_bandwidth = src->net_bandwidth;
    if (rc != COLIO_SUCCESS || src->node_name == NULL)
        return rc;
    size_t total = 0;
    for (int k = 0; k < src->nnodes; k++)
        total += strlen(src->node_name[k] ? src->node_name[k] : "") + 1;
    char *buf = malloc(total);
    dst->node_name = calloc((size_t)src->nnodes, sizeof(char *));
    if (buf == NULL || dst->node_name == NULL) {
        free(buf);
        colio_topo_free(dst);
        return COLIO_ERR_NOMEM;
    }
    for (int k = 0; k < src->nnodes; k++) { /* one buffer starting at node 0's name, as colio_topo_free expects */
        const char *name = src->node_name[k] ? src->node_name[k] : "";
        dst->node_name[k] = strcpy(buf, name);
        buf += strlen(name) + 1;
    }
    return COLIO_SUCCESS;
}
