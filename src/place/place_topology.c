/*
 * Topology-aware placement, TAPIOCA (Tessier et al. Sec. 4.1): in each
 * partition (file domain and the ranks with data in it) every candidate A
 * costs C1 + C2, C1 = max over senders i != A of l*d(i,A) + w(i,A)/B and
 * C2 = l*d(A,IO) + w(A,IO)/(|Vc|*B_io); the cheapest candidate is elected,
 * at most the per-node cap per node (Sec. 4.5).
 *
 * C1 is computed per node, not per sender: d(i,A) is the same for all
 * senders on one node, so only each node's largest w(i,A) counts (and its
 * second largest, when the largest is A itself). That makes a candidate
 * O(nodes in the partition) instead of O(ranks), so 10,000-rank partitions
 * stay cheap; colio_place_tapioca_cost is the direct form (the unit test
 * checks they agree).
 */
#include <stdlib.h>

#include "place/place.h"
#include "place/registry.h"

typedef struct node_max {
    int node, top_rank;
    int64_t top, second; /* second = -1: the node has one sender */
} node_max_t;

typedef struct topo_ctx {
    int64_t *start; /* ndom + 1 into e */
    node_max_t *e;
    /* ranks of one node cost the same unless one is its node's largest sender: cache per node */
    int cur_dom;
    double *cached;     /* nnodes */
    int *cached_dom;    /* nnodes: domain the cached cost is for, -1 none */
} topo_ctx_t;

/* The senders of domain j grouped by node, appended at e (members ascend by rank, not by node). */
static int64_t group_domain(const colio_place_input_t *in, int j, node_max_t *e, int *slot)
{
    const colio_pattern_t *p = in->pat;
    int64_t n = 0;
    for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
        int r = p->col_rank[k], node = in->topo->node_of[r];
        int64_t w = p->col_bytes[k];
        if (slot[node] < 0) {
            slot[node] = (int)n;
            e[n++] = (node_max_t){node, r, w, -1};
        } else if (w > e[slot[node]].top) {
            node_max_t *m = &e[slot[node]];
            m->second = m->top, m->top = w, m->top_rank = r;
        } else if (w > e[slot[node]].second) {
            e[slot[node]].second = w;
        }
    }
    for (int64_t i = 0; i < n; i++)
        slot[e[i].node] = -1;
    return n;
}

static int ctx_build(const colio_place_input_t *in, topo_ctx_t *c)
{
    const colio_pattern_t *p = in->pat;
    int64_t nnz = p->row_start[p->nprocs];
    c->start = malloc(sizeof(int64_t) * ((size_t)p->ndom + 1));
    c->e = malloc(sizeof(node_max_t) * (size_t)(nnz > 0 ? nnz : 1));
    c->cached = malloc(sizeof(double) * (size_t)in->topo->nnodes);
    c->cached_dom = malloc(sizeof(int) * (size_t)in->topo->nnodes);
    int *slot = malloc(sizeof(int) * (size_t)in->topo->nnodes);
    if (!c->start || !c->e || !slot || !c->cached || !c->cached_dom) {
        free(slot);
        return COLIO_ERR_NOMEM;
    }
    for (int i = 0; i < in->topo->nnodes; i++)
        slot[i] = -1, c->cached_dom[i] = -1;
    c->start[0] = 0;
    for (int j = 0; j < p->ndom; j++)
        c->start[j + 1] = c->start[j] + group_domain(in, j, c->e + c->start[j], slot);
    free(slot);
    return COLIO_SUCCESS;
}

static double tapioca_cost(const colio_place_input_t *in, const topo_ctx_t *c, int j, int cand)
{
    const colio_topo_t *t = in->topo;
    const colio_pattern_t *p = in->pat;
    double l = colio_place_latency(t), b = colio_place_bandwidth(t), c1 = 0;
    int node = t->node_of[cand];
    for (int64_t k = c->start[j]; k < c->start[j + 1]; k++) {
        const node_max_t *m = &c->e[k];
        int64_t w = m->top_rank == cand ? m->second : m->top;
        double v = l * colio_place_node_hops(t, m->node, node) + (double)w / b;
        if (w >= 0 && v > c1)
            c1 = v;
    }
    int64_t vc = p->col_start[j + 1] - p->col_start[j];
    double c2 = l * colio_place_io_hops(t, node) +
                (double)p->dom_bytes[j] / ((double)(vc > 0 ? vc : 1) * colio_place_io_bandwidth(t));
    return c1 + c2;
}

/* A node's largest sender is the only rank of it whose cost differs from its neighbours'. */
static int is_top_sender(const topo_ctx_t *c, int j, int cand, int node)
{
    for (int64_t k = c->start[j]; k < c->start[j + 1]; k++)
        if (c->e[k].node == node)
            return c->e[k].top_rank == cand;
    return 0;
}

static double tapioca_score(const colio_place_input_t *in, void *ctx, int j, int cand)
{
    topo_ctx_t *c = ctx;
    int node = in->topo->node_of[cand];
    if (c->cached_dom[node] == j && !is_top_sender(c, j, cand, node))
        return c->cached[node];
    double v = tapioca_cost(in, c, j, cand);
    if (!is_top_sender(c, j, cand, node))
        c->cached[node] = v, c->cached_dom[node] = j;
    return v;
}

static int topology_select(const colio_place_input_t *in, int *aggs)
{
    topo_ctx_t c = {0};
    int rc = ctx_build(in, &c);
    if (rc == COLIO_SUCCESS)
        rc = colio_place_elect(in, tapioca_score, &c, aggs);
    free(c.start);
    free(c.e);
    free(c.cached);
    free(c.cached_dom);
    return rc;
}

const colio_place_ops_t colio_place_topology = {
    .name = "topology",
    .uses_pattern = 1,
    .select = topology_select,
};
