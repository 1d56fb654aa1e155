/*
 * TATP placement (Liu et al. Sec. 4.3): with C the bytes of each file domain
 * at each rank and D the rank distances (0 itself, 1 on the same node,
 * network hops otherwise), W = D*C gives the hop-bytes of aggregating
 * domain j at rank r; the file domains are assigned to distinct ranks by
 * solving the linear assignment problem on W (place/lap.c).
 *
 * W is computed per node: for node m, base(j,m) = sum over other nodes n of
 * S(j,n)*hops(n,m) + S(j,m), S(j,n) the bytes of domain j on node n; then
 * W(j,r) = base(j,node(r)) - C(r,j) (the aggregator's own bytes travel 0).
 *
 * The per-node cap (colio_aggregators_per_node, default 1): when it admits
 * every rank of every node, columns are ranks, exactly as the paper. Else
 * columns are cap copies of each node at its best rank's cost, and each
 * node's domains then go to distinct ranks of that node by a small
 * assignment (exact for a cap of 1, a close approximation above).
 */
#include <stdlib.h>

#include "place/lap.h"
#include "place/place.h"
#include "place/registry.h"

/* base[j * nnodes + m] as above. */
static int node_costs(const colio_place_input_t *in, double **base_p)
{
    const colio_pattern_t *p = in->pat;
    const colio_topo_t *t = in->topo;
    int nn = t->nnodes;
    double *base = calloc((size_t)p->ndom * (size_t)nn, sizeof(double));
    double *s = calloc((size_t)nn, sizeof(double));
    int *used = malloc(sizeof(int) * (size_t)nn);
    if (!base || !s || !used) {
        free(base), free(s), free(used);
        return COLIO_ERR_NOMEM;
    }
    for (int j = 0; j < p->ndom; j++) {
        int nused = 0;
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            int n = t->node_of[p->col_rank[k]];
            if (s[n] == 0)
                used[nused++] = n;
            s[n] += (double)p->col_bytes[k];
        }
        for (int m = 0; m < nn; m++)
            for (int u = 0; u < nused; u++)
                base[(size_t)j * nn + m] += s[used[u]] * (used[u] == m ? 1 : colio_place_node_hops(t, used[u], m));
        for (int u = 0; u < nused; u++)
            s[used[u]] = 0;
    }
    free(s), free(used);
    *base_p = base;
    return COLIO_SUCCESS;
}

/* W(j, r) for every rank: naggs x nprocs. */
static double *rank_costs(const colio_place_input_t *in, const double *base)
{
    const colio_pattern_t *p = in->pat;
    const colio_topo_t *t = in->topo;
    int np = t->nprocs;
    double *w = malloc(sizeof(double) * (size_t)p->ndom * (size_t)np);
    if (w == NULL)
        return NULL;
    for (int j = 0; j < p->ndom; j++)
        for (int r = 0; r < np; r++)
            w[(size_t)j * np + r] = base[(size_t)j * t->nnodes + t->node_of[r]];
    for (int r = 0; r < np; r++)
        for (int64_t k = p->row_start[r]; k < p->row_start[r + 1]; k++)
            w[(size_t)p->dom[k] * np + r] -= (double)p->bytes[k];
    return w;
}

/* Most candidate ranks on one node. */
static int largest_node(const colio_place_input_t *in)
{
    const colio_topo_t *t = in->topo;
    int *count = calloc((size_t)t->nnodes, sizeof(int)), big = 0;
    if (count == NULL)
        return 0;
    for (int r = 0; r < t->nprocs; r++)
        if (colio_place_allowed(in, r) && ++count[t->node_of[r]] > big)
            big = count[t->node_of[r]];
    free(count);
    return big;
}

/* Columns = the candidate ranks: the paper's formulation. */
static int assign_ranks(const colio_place_input_t *in, const double *w, int *aggs)
{
    int np = in->topo->nprocs, ncols = 0, n = in->naggs;
    int *cols = malloc(sizeof(int) * (size_t)np);
    double *cost = malloc(sizeof(double) * (size_t)n * (size_t)np);
    int rc = !cols || !cost ? COLIO_ERR_NOMEM : COLIO_SUCCESS;
    for (int r = 0; rc == COLIO_SUCCESS && r < np; r++)
        if (colio_place_allowed(in, r))
            cols[ncols++] = r;
    for (int j = 0; rc == COLIO_SUCCESS && j < n; j++)
        for (int c = 0; c < ncols; c++)
            cost[(size_t)j * ncols + c] = w[(size_t)j * np + cols[c]];
    if (rc == COLIO_SUCCESS)
        rc = ncols >= n ? colio_lap_solve(n, ncols, cost, aggs, NULL) : COLIO_ERR_ARG;
    for (int j = 0; rc == COLIO_SUCCESS && j < n; j++)
        aggs[j] = cols[aggs[j]];
    free(cols), free(cost);
    return rc;
}

/* Candidate ranks of each node, ascending. */
static int *node_ranks(const colio_place_input_t *in, int **first_p)
{
    const colio_topo_t *t = in->topo;
    int *first = calloc((size_t)t->nnodes + 1, sizeof(int)), *list = malloc(sizeof(int) * (size_t)t->nprocs);
    int *fill = calloc((size_t)t->nnodes, sizeof(int));
    if (!first || !list || !fill) {
        free(first), free(list), free(fill);
        return NULL;
    }
    for (int r = 0; r < t->nprocs; r++)
        first[t->node_of[r] + 1] += colio_place_allowed(in, r);
    for (int n = 0; n < t->nnodes; n++)
        first[n + 1] += first[n];
    for (int r = 0; r < t->nprocs; r++)
        if (colio_place_allowed(in, r))
            list[first[t->node_of[r]] + fill[t->node_of[r]]++] = r;
    free(fill);
    *first_p = first;
    return list;
}

typedef struct node_cols {
    int *first, *list; /* node_ranks */
    int *col_node;     /* node of each column */
    int ncols;
} node_cols_t;

static void node_cols_free(node_cols_t *c)
{
    free(c->first), free(c->list), free(c->col_node);
}

static int node_cols_build(const colio_place_input_t *in, int cap, node_cols_t *c)
{
    const colio_topo_t *t = in->topo;
    c->list = node_ranks(in, &c->first);
    c->col_node = malloc(sizeof(int) * (size_t)t->nprocs);
    if (!c->list || !c->col_node)
        return COLIO_ERR_NOMEM;
    c->ncols = 0;
    for (int m = 0; m < t->nnodes; m++)
        for (int k = 0; k < cap && k < c->first[m + 1] - c->first[m]; k++)
            c->col_node[c->ncols++] = m;
    return COLIO_SUCCESS;
}

/* The domains the node-level assignment gave node m go to distinct ranks of m. */
static int assign_within_node(const colio_place_input_t *in, const double *w, const node_cols_t *c, int m,
                              const int *col_of_row, int *aggs)
{
    int np = in->topo->nprocs, size = c->first[m + 1] - c->first[m], k = 0;
    if (size == 0) /* no candidate here (subfiling: another group's node) */
        return COLIO_SUCCESS;
    int *doms = malloc(sizeof(int) * (size_t)size), *col = malloc(sizeof(int) * (size_t)size);
    double *cost = malloc(sizeof(double) * (size_t)size * (size_t)size);
    int rc = !doms || !col || !cost ? COLIO_ERR_NOMEM : COLIO_SUCCESS;
    for (int j = 0; rc == COLIO_SUCCESS && j < in->naggs; j++)
        if (c->col_node[col_of_row[j]] == m)
            doms[k++] = j;
    for (int a = 0; rc == COLIO_SUCCESS && a < k; a++)
        for (int b = 0; b < size; b++)
            cost[(size_t)a * size + b] = w[(size_t)doms[a] * np + c->list[c->first[m] + b]];
    if (rc == COLIO_SUCCESS && k > 0)
        rc = colio_lap_solve(k, size, cost, col, NULL);
    for (int a = 0; rc == COLIO_SUCCESS && a < k; a++)
        aggs[doms[a]] = c->list[c->first[m] + col[a]];
    free(doms), free(col), free(cost);
    return rc;
}

/* Columns = cap copies of each node at its best rank's cost. */
static int assign_nodes(const colio_place_input_t *in, const double *w, const node_cols_t *c, int *aggs)
{
    int np = in->topo->nprocs, n = in->naggs;
    double *cost = malloc(sizeof(double) * (size_t)n * (size_t)c->ncols);
    int *col_of_row = malloc(sizeof(int) * (size_t)n);
    int rc = !cost || !col_of_row ? COLIO_ERR_NOMEM : COLIO_SUCCESS;
    for (int j = 0; rc == COLIO_SUCCESS && j < n; j++)
        for (int col = 0; col < c->ncols; col++) {
            int m = c->col_node[col];
            double best = w[(size_t)j * np + c->list[c->first[m]]];
            for (int k = c->first[m] + 1; k < c->first[m + 1]; k++)
                if (w[(size_t)j * np + c->list[k]] < best)
                    best = w[(size_t)j * np + c->list[k]];
            cost[(size_t)j * c->ncols + col] = best;
        }
    if (rc == COLIO_SUCCESS)
        rc = colio_lap_solve(n, c->ncols, cost, col_of_row, NULL);
    for (int m = 0; rc == COLIO_SUCCESS && m < in->topo->nnodes; m++)
        rc = assign_within_node(in, w, c, m, col_of_row, aggs);
    free(cost), free(col_of_row);
    return rc;
}

static int lap_select(const colio_place_input_t *in, int *aggs)
{
    const colio_topo_t *t = in->topo;
    int cap = colio_place_node_cap(t, in->naggs, in->per_node);
    double *base = NULL, *w = NULL;
    node_cols_t c = {0};
    int rc = node_costs(in, &base);
    if (rc == COLIO_SUCCESS && (w = rank_costs(in, base)) == NULL)
        rc = COLIO_ERR_NOMEM;
    if (rc == COLIO_SUCCESS && cap < largest_node(in))
        rc = node_cols_build(in, cap, &c);
    if (rc == COLIO_SUCCESS)
        rc = c.col_node && c.ncols >= in->naggs ? assign_nodes(in, w, &c, aggs) : assign_ranks(in, w, aggs);
    node_cols_free(&c);
    free(base), free(w);
    return rc;
}

const colio_place_ops_t colio_place_lap = {
    .name = "lap",
    .uses_pattern = 1,
    .select = lap_select,
};
