/*
 * Node detection: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) names each node by
 * its lowest rank; when that reports one rank per node everywhere (as some
 * simulators do) the processor names decide instead.
 */
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

/* Renumber node labels (any ints) densely in order of first appearance. */
static void renumber(int n, int *label)
{
    int *map = malloc(sizeof(int) * (size_t)n * 2);
    int m = 0;
    for (int r = 0; r < n && map; r++) {
        int found = -1;
        for (int j = 0; j < m && found < 0; j++)
            if (map[2 * j] == label[r])
                found = map[2 * j + 1];
        if (found < 0) {
            map[2 * m] = label[r];
            map[2 * m + 1] = m;
            found = m++;
        }
        label[r] = found;
    }
    free(map);
}

/* Lowest rank sharing a processor name with each rank. */
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
    if (!shared && nprocs > 1 && leaders_by_name(comm, nprocs, labels) != COLIO_SUCCESS) {
        free(labels);
        return colio_err_set(err, COLIO_ERR_MPI, "topology discovery by processor name failed");
    }
    renumber(nprocs, labels);
    rc = colio_topo_from_nodes(nprocs, labels, topo);
    free(labels);
    if (rc != COLIO_SUCCESS)
        return colio_err_set(err, rc, "out of memory building the topology");
    rc = gather_node_names(comm, topo, rank);
    return rc == COLIO_SUCCESS ? rc : colio_err_set(err, rc, "gathering the nodes' processor names failed");
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
