/*
 * Per-partition aggregator election shared by the greedy, shortest-path,
 * longest-path and topology-aware strategies (Tessier et al., TAPIOCA,
 * Sec. 4.1): a partition is a file domain and the ranks holding data in it;
 * each partition elects the rank with the lowest score, keeping at most the
 * per-node cap of aggregators on any node (Sec. 4.5: one per node avoids
 * contention). Every rank holds the same gathered pattern, so every rank
 * computes the same election locally: the paper's MPI_MINLOC reduction
 * over candidates becomes a local minimum, and its sequential
 * synchronisation steps over already-chosen nodes disappear.
 */
#include <stdlib.h>

#include "place/place.h"

typedef struct elect_state {
    const colio_place_input_t *in;
    colio_place_score_fn_t score;
    void *ctx;
    int cap;
    int *per_node; /* aggregators chosen on each node */
    char *taken;   /* per rank */
} elect_state_t;

static int eligible(const elect_state_t *s, int r)
{
    return !s->taken[r] && colio_place_allowed(s->in, r) && s->per_node[s->in->topo->node_of[r]] < s->cap;
}

/* Uneven nodes may leave fewer free slots under the cap than domains: then any free rank. */
static int lowest_free(const elect_state_t *s)
{
    for (int r = 0; r < s->in->topo->nprocs; r++)
        if (!s->taken[r] && colio_place_allowed(s->in, r))
            return r;
    return -1;
}

/* Best eligible rank among the domain's ranks (ascending, so ties keep the lowest). */
static int best_member(const elect_state_t *s, int j)
{
    const colio_pattern_t *p = s->in->pat;
    int best = -1;
    double best_score = 0;
    for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
        int r = p->col_rank[k];
        if (!eligible(s, r))
            continue;
        double v = s->score(s->in, s->ctx, j, r);
        if (best < 0 || v < best_score)
            best = r, best_score = v;
    }
    return best;
}

static int best_anywhere(const elect_state_t *s, int j)
{
    int best = -1;
    double best_score = 0;
    for (int r = 0; r < s->in->topo->nprocs; r++) {
        if (!eligible(s, r))
            continue;
        double v = s->score(s->in, s->ctx, j, r);
        if (best < 0 || v < best_score)
            best = r, best_score = v;
    }
    return best;
}

int colio_place_elect(const colio_place_input_t *in, colio_place_score_fn_t score, void *ctx, int *aggs)
{
    const colio_topo_t *t = in->topo;
    elect_state_t s = {.in = in, .score = score, .ctx = ctx, .cap = colio_place_node_cap(t, in->naggs, in->per_node)};
    s.per_node = calloc((size_t)t->nnodes, sizeof(int));
    s.taken = calloc((size_t)t->nprocs, 1);
    if (!s.per_node || !s.taken) {
        free(s.per_node);
        free(s.taken);
        return COLIO_ERR_NOMEM;
    }
    for (int j = 0; j < in->naggs; j++) {
        int r = best_member(&s, j);
        if (r < 0)
            r = best_anywhere(&s, j);
        if (r < 0)
            r = lowest_free(&s);
        if (r < 0) { /* more domains than ranks: a caller's bug */
            free(s.per_node);
            free(s.taken);
            return COLIO_ERR_ARG;
        }
        aggs[j] = r;
        s.taken[r] = 1;
        s.per_node[t->node_of[r]]++;
    }
    free(s.per_node);
    free(s.taken);
    return COLIO_SUCCESS;
}
