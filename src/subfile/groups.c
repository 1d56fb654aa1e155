/* Subfile groups and their aggregator counts (groups.h). */
#include "subfile/groups.h"

#include <stdlib.h>

#include "topo/net.h"

static int group_aggs(int g, int nsub, int cb_nodes, int per_node, int ranks, int nodes)
{
    int want = cb_nodes > 0 ? cb_nodes / nsub + (g < cb_nodes % nsub) : nodes * (per_node > 0 ? per_node : 1);
    want = want < 1 ? 1 : want;
    return want < ranks ? want : ranks;
}

/* The aggregators of each group, from group_of_rank: group_first, and their total (-1: out of memory). */
static int count_aggs(const colio_topo_t *t, int nsub, int cb_nodes, int per_node, const int *group_of_rank,
                      int *group_first);

int colio_subfile_groups(const colio_topo_t *t, int nsub, int cb_nodes, int per_node, int *group_of_rank,
                         int *group_first)
{
    if (nsub < 1 || nsub > t->nprocs)
        return 0;
    int *dense = calloc((size_t)t->nnodes, sizeof(int)), used = 0; /* occupied nodes, numbered in order */
    if (dense == NULL)
        return -1;
    for (int r = 0; r < t->nprocs; r++)
        dense[t->node_of[r]] = 1;
    for (int n = 0; n < t->nnodes; n++)
        dense[n] = dense[n] ? used++ : -1;
    for (int r = 0; r < t->nprocs; r++)
        group_of_rank[r] = nsub <= used ? (int)((int64_t)dense[t->node_of[r]] * nsub / used)
                                        : (int)((int64_t)r * nsub / t->nprocs);
    free(dense);
    return count_aggs(t, nsub, cb_nodes, per_node, group_of_rank, group_first);
}

int colio_subfile_groups_by_node(const colio_topo_t *t, int nsub, const int *node_group, int cb_nodes, int per_node,
                                 int *group_of_rank, int *group_first)
{
    if (nsub < 1 || nsub > t->nprocs)
        return 0;
    for (int r = 0; r < t->nprocs; r++)
        group_of_rank[r] = node_group[t->node_of[r]];
    return count_aggs(t, nsub, cb_nodes, per_node, group_of_rank, group_first);
}

int colio_subfile_target_groups(const colio_topo_t *t, int nsub, int *node_group)
{
    if (t->net == NULL)
        return -1;
    int ntargets = colio_net_ntargets(t->net), used = 0;
    int *index = malloc(sizeof(int) * (size_t)(ntargets > 0 ? ntargets : 1));
    if (index == NULL)
        return -1;
    for (int k = 0; k < ntargets; k++)
        index[k] = -1;
    for (int n = 0; n < t->nnodes; n++) /* targets numbered in the order of their first node */
        node_group[n] = -1;
    for (int r = 0; r < t->nprocs; r++) {
        int n = t->node_of[r], target = colio_net_io_target(t->net, n);
        if (target < 0 || target >= ntargets) {
            free(index);
            return -1;
        }
        if (index[target] < 0)
            index[target] = used++;
        node_group[n] = index[target];
    }
    free(index);
    return used == nsub ? 0 : -1;
}

static int count_aggs(const colio_topo_t *t, int nsub, int cb_nodes, int per_node, const int *group_of_rank,
                      int *group_first)
{
    int *ranks = calloc((size_t)nsub, sizeof(int)), *nodes = calloc((size_t)nsub, sizeof(int));
    int *counted = calloc((size_t)t->nnodes, sizeof(int)); /* g + 1: node already counted for group g */
    if (!ranks || !nodes || !counted) {
        free(ranks), free(nodes), free(counted);
        return -1;
    }
    /* a node serves one group, or (rank blocks) the ranks of a group are consecutive: one pass counts */
    for (int r = 0; r < t->nprocs; r++) {
        int g = group_of_rank[r], n = t->node_of[r];
        ranks[g]++;
        if (counted[n] != g + 1)
            nodes[g]++, counted[n] = g + 1;
    }
    group_first[0] = 0;
    for (int g = 0; g < nsub; g++)
        group_first[g + 1] = group_first[g] + group_aggs(g, nsub, cb_nodes, per_node, ranks[g], nodes[g]);
    free(ranks), free(nodes), free(counted);
    return group_first[nsub];
}
