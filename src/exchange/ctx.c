/*
 * The exchange context of a file: built from the hints, the nodes and the
 * aggregators whenever they change, identical on every rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hints.h"
#include "exchange/xchg.h"
#include "store/store.h"
#include "topo/topo.h"

int colio_rank_list_valid(const char *name) { return strcmp(name, "linear") == 0 || strcmp(name, "node") == 0 ? 0 : -1; }

/* "*:N" (N per node) or "N" (N in all), N >= 1. */
static int parse_local_aggs(const char *spec, int *per_node, long *total)
{
    const char *num = strncmp(spec, "*:", 2) == 0 ? spec + 2 : spec;
    char *end;
    long n = strtol(num, &end, 10);
    if (end == num || *end != '\0' || n < 1 || n > 1L << 30)
        return -1;
    *per_node = num != spec;
    *total = n;
    return 0;
}

int colio_local_aggs_valid(const char *spec)
{
    int per_node;
    long n;
    return parse_local_aggs(spec, &per_node, &n);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Ranks of each node in ascending order, as offsets into one array (CSR). */
static int node_members(const colio_topo_t *t, int **first_p, int **members_p)
{
    int *first = calloc((size_t)t->nnodes + 1, sizeof(int)), *members = malloc(sizeof(int) * (size_t)t->nprocs);
    if (!first || !members) {
        free(first);
        free(members);
        return -1;
    }
    for (int r = 0; r < t->nprocs; r++)
        first[t->node_of[r] + 1]++;
    for (int n = 0; n < t->nnodes; n++)
        first[n + 1] += first[n];
    for (int r = 0; r < t->nprocs; r++) /* ranks ascend, so each node's slice ascends */
        members[first[t->node_of[r]] + t->local_rank[r]] = r;
    *first_p = first;
    *members_p = members;
    return 0;
}

/* Round-robin over nodes: the first rank of every node, then the second, ... (Kang et al. Sec. III). */
static int node_round_robin(const colio_topo_t *t, int *list)
{
    int *first, *members, n = 0;
    if (node_members(t, &first, &members) != 0)
        return -1;
    for (int k = 0; n < t->nprocs; k++)
        for (int node = 0; node < t->nnodes; node++)
            if (first[node] + k < first[node + 1])
                list[n++] = members[first[node] + k];
    free(first);
    free(members);
    return 0;
}

/*
 * TAM groups (Kang et al. Fig. 3d, after TAM's local aggregation): each node
 * is cut into k contiguous slices of its ranks, the first rank of a slice
 * being the local aggregator of the slice. k is N per node ("*:N") or a
 * share of N in all proportional to the node's size, at least 1, at most
 * the node's rank count.
 */
static int build_groups(colio_xchg_ctx_t *c, const colio_topo_t *t, const char *spec)
{
    int per_node;
    long total;
    int *first, *members;
    if (parse_local_aggs(spec, &per_node, &total) != 0 || node_members(t, &first, &members) != 0)
        return -1;
    c->nla = 0;
    for (int n = 0; n < t->nnodes; n++) {
        long size = first[n + 1] - first[n];
        long k = per_node ? total : total * size / t->nprocs;
        k = k < 1 ? 1 : k > size ? size : k;
        for (long m = 0; m < size; m++) {
            long g = m * k / size, lead = (g * size + k - 1) / k; /* first member of slice g */
            c->la_of[members[first[n] + m]] = members[first[n] + lead];
            c->group_size[members[first[n] + lead]]++;
        }
        c->nla += (int)k;
    }
    free(first);
    free(members);
    return 0;
}

int colio_xchg_ctx_build(colio_xchg_ctx_t *c, const colio_topo_t *topo, const int *aggs, int naggs,
                         const colio_hints_t *h, colio_err_t *err)
{
    int p = topo->nprocs;
    memset(c, 0, sizeof *c);
    c->nprocs = p;
    c->throttle = h->throttle;
    c->naggs = naggs;
    c->rank_list = malloc(sizeof(int) * (size_t)p);
    c->list_pos = malloc(sizeof(int) * (size_t)p);
    c->agg_index = malloc(sizeof(int) * (size_t)p);
    c->la_of = malloc(sizeof(int) * (size_t)p);
    c->fault_seen = calloc(1, sizeof *c->fault_seen);
    c->group_size = calloc((size_t)p, sizeof(int));
    int *sorted = malloc(sizeof(int) * (size_t)naggs);
    int node_list = strcmp(h->rank_list, "node") == 0;
    if (!c->rank_list || !c->list_pos || !c->agg_index || !c->la_of || !c->fault_seen || !c->group_size || !sorted ||
        build_groups(c, topo, h->local_aggs) != 0 || (node_list && node_round_robin(topo, c->rank_list) != 0)) {
        free(sorted);
        colio_xchg_ctx_free(c);
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory building the exchange context");
    }
    for (int r = 0; r < p && !node_list; r++)
        c->rank_list[r] = r;
    colio_fault_spec_t f;
    if (h->fault[0] && colio_fault_parse(h->fault, &f) == 0 && f.op == COLIO_FAULT_COALESCE)
        c->fault_nth = f.nth, c->fault_rank = f.rank;
    for (int i = 0; i < p; i++)
        c->list_pos[c->rank_list[i]] = i;
    /* receivers are indexed in ascending rank order (Alg. 2's "local receiver index in R") */
    memcpy(sorted, aggs, sizeof(int) * (size_t)naggs);
    qsort(sorted, (size_t)naggs, sizeof *sorted, cmp_int);
    for (int r = 0; r < p; r++)
        c->agg_index[r] = -1;
    for (int j = 0; j < naggs; j++)
        c->agg_index[sorted[j]] = j;
    free(sorted);
    return COLIO_SUCCESS;
}

void colio_xchg_ctx_free(colio_xchg_ctx_t *c)
{
    free(c->rank_list);
    free(c->list_pos);
    free(c->agg_index);
    free(c->la_of);
    free(c->fault_seen);
    free(c->group_size);
    memset(c, 0, sizeof *c);
}
