/*
 * Which ranks aggregate for which subfile (TAPIOCA Sec. 5.4.2: one file per
 * Pset, written by that Pset's aggregators). Pure: tested on one rank.
 */
#ifndef COLIO_SUBFILE_GROUPS_H
#define COLIO_SUBFILE_GROUPS_H

#include "topo/topo.h"

/*
 * The groups of a file of nsub subfiles for the ranks and nodes of t: with
 * nsub <= nodes, subfile g's group is a block of consecutive nodes
 * (the n-th occupied node in group n * nsub / nodes); with more subfiles
 * than nodes, a block of consecutive ranks. Fills group_of_rank (nprocs) and group_first
 * (nsub + 1: the aggregators of subfile g are domains [group_first[g],
 * group_first[g+1])): cb_nodes > 0 is split evenly over the subfiles, else
 * per_node on each node of the group; at least one, at most the group's
 * ranks. Returns the aggregator count, or 0 when there are more subfiles
 * than ranks (no groups: any rank may write any subfile).
 */
int colio_subfile_groups(const colio_topo_t *t, int nsub, int cb_nodes, int per_node, int *group_of_rank,
                         int *group_first);
/*
 * The same with the groups given per node (node_group[n] in 0..nsub-1, every
 * group holding a node): `ionode` subfiling, one group per storage target.
 */
int colio_subfile_groups_by_node(const colio_topo_t *t, int nsub, const int *node_group, int cb_nodes, int per_node,
                                 int *group_of_rank, int *group_first);
/* node_group (t->nnodes) from the network model's storage targets: 0, or -1 when they are not nsub. */
int colio_subfile_target_groups(const colio_topo_t *t, int nsub, int *node_group);

#endif
