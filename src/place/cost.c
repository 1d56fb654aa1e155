/*
 * Cost model and metrics of a placement: TAPIOCA's C1 + C2 (Tessier et al.
 * Sec. 4.1), TATP's hop-bytes and the most loaded link (Liu et al.
 * Sec. 4.3, Fig. 5 and 7), bytes per aggregator.
 */
#include <stdlib.h>

#include "place/place.h"

double colio_place_tapioca_cost(const colio_place_input_t *in, int j, int cand)
{
    const colio_pattern_t *p = in->pat;
    const colio_topo_t *t = in->topo;
    double l = colio_place_latency(t), b = colio_place_bandwidth(t), c1 = 0;
    int node = t->node_of[cand];
    for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
        int i = p->col_rank[k];
        double v = l * colio_place_node_hops(t, t->node_of[i], node) + (double)p->col_bytes[k] / b;
        if (i != cand && v > c1)
            c1 = v;
    }
    int64_t vc = p->col_start[j + 1] - p->col_start[j];
    double c2 = l * colio_place_io_hops(t, node) +
                (double)p->dom_bytes[j] / ((double)(vc > 0 ? vc : 1) * colio_place_io_bandwidth(t));
    return c1 + c2;
}

typedef struct link_load {
    int64_t link, bytes;
} link_load_t;

static int by_link(const void *a, const void *b)
{
    int64_t x = ((const link_load_t *)a)->link, y = ((const link_load_t *)b)->link;
    return (x > y) - (x < y);
}

/* Append the links of the route from node a to node b, each carrying bytes. */
static int push_route(const colio_net_t *net, int a, int b, int64_t bytes, link_load_t **v, int64_t *n, int64_t *cap)
{
    int hops = colio_net_hops(net, a, b);
    if (*n + hops > *cap) {
        int64_t c = 2 * *cap + hops + 64;
        link_load_t *g = realloc(*v, sizeof *g * (size_t)c);
        if (g == NULL)
            return COLIO_ERR_NOMEM;
        *v = g, *cap = c;
    }
    int64_t links[hops > 0 ? hops : 1];
    int got = colio_net_route(net, a, b, links, hops);
    for (int h = 0; h < got && h < hops; h++)
        (*v)[(*n)++] = (link_load_t){links[h], bytes};
    return COLIO_SUCCESS;
}

/* Most bytes on one link when every rank sends its share of each domain to the domain's aggregator. */
static int max_link_bytes(const colio_place_input_t *in, const int *aggs, int64_t *max_p)
{
    const colio_pattern_t *p = in->pat;
    const colio_topo_t *t = in->topo;
    link_load_t *v = NULL;
    int64_t n = 0, cap = 0;
    *max_p = 0;
    if (t->net == NULL)
        return COLIO_SUCCESS;
    for (int j = 0; j < p->ndom; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++)
            if (push_route(t->net, t->node_of[p->col_rank[k]], t->node_of[aggs[j]], p->col_bytes[k], &v, &n, &cap)) {
                free(v);
                return COLIO_ERR_NOMEM;
            }
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, by_link);
    for (int64_t k = 0; k < n;) {
        int64_t sum = 0, link = v[k].link;
        for (; k < n && v[k].link == link; k++)
            sum += v[k].bytes;
        if (sum > *max_p)
            *max_p = sum;
    }
    free(v);
    return COLIO_SUCCESS;
}

int colio_place_measure(const colio_place_input_t *in, const int *aggs, colio_place_metrics_t *m)
{
    const colio_pattern_t *p = in->pat;
    *m = (colio_place_metrics_t){0};
    for (int j = 0; j < p->ndom; j++) {
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++)
            m->hop_bytes += p->col_bytes[k] * colio_place_rank_dist(in->topo, p->col_rank[k], aggs[j]);
        int64_t b = p->dom_bytes[j];
        if (j == 0 || b > m->max_agg_bytes)
            m->max_agg_bytes = b;
        if (j == 0 || b < m->min_agg_bytes)
            m->min_agg_bytes = b;
        double c = colio_place_tapioca_cost(in, j, aggs[j]);
        if (c > m->predicted_cost)
            m->predicted_cost = c;
    }
    return max_link_bytes(in, aggs, &m->max_link_bytes);
}
