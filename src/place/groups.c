/*
 * Placement under subfiling: each subfile's file domains take their
 * aggregators among the ranks of the subfile's group, so no aggregator
 * touches another group's subfile (TAPIOCA Sec. 5.4.2: one file and its
 * aggregators per Pset). The chosen strategy runs once per group on the
 * group's domains; the pattern it sees keeps every sender (ranks outside
 * the group send to these domains too), only the candidates are the
 * group's ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "place/place.h"

/* The entries of domains [first, first + n) of pat, renumbered from 0, by rank then indexed. */
static int sub_pattern(const colio_pattern_t *pat, int first, int n, colio_pattern_t *out)
{
    memset(out, 0, sizeof *out);
    out->nprocs = pat->nprocs;
    out->ndom = n;
    int64_t nnz = pat->col_start[first + n] - pat->col_start[first];
    out->row_start = malloc(sizeof(int64_t) * ((size_t)pat->nprocs + 1));
    out->dom = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    out->bytes = malloc(sizeof(int64_t) * (size_t)(nnz > 0 ? nnz : 1));
    if (!out->row_start || !out->dom || !out->bytes)
        return COLIO_ERR_NOMEM;
    int64_t k = 0;
    for (int r = 0; r < pat->nprocs; r++) {
        out->row_start[r] = k;
        for (int64_t e = pat->row_start[r]; e < pat->row_start[r + 1]; e++)
            if (pat->dom[e] >= first && pat->dom[e] < first + n) {
                out->dom[k] = pat->dom[e] - first;
                out->bytes[k++] = pat->bytes[e];
            }
    }
    out->row_start[pat->nprocs] = k;
    return colio_pattern_index(out);
}

static int select_group(const colio_place_ops_t *ops, const colio_place_input_t *in, int g, int *aggs)
{
    int first = in->group_first[g], n = in->group_first[g + 1] - first;
    colio_place_input_t sub = *in;
    colio_pattern_t pat;
    sub.naggs = n;
    sub.only_group = g;
    sub.pat = NULL;
    if (n == 0)
        return COLIO_SUCCESS;
    int rc = COLIO_SUCCESS;
    if (in->pat) {
        rc = sub_pattern(in->pat, first, n, &pat);
        sub.pat = &pat;
    }
    if (rc == COLIO_SUCCESS)
        rc = ops->select(&sub, aggs + first);
    if (in->pat)
        colio_pattern_free(&pat);
    return rc;
}

int colio_place_select(const colio_place_ops_t *ops, const colio_place_input_t *in, int *aggs)
{
    if (in->group_of_rank == NULL)
        return ops->select(in, aggs);
    for (int g = 0; g < in->ngroups; g++) {
        int rc = select_group(ops, in, g, aggs);
        if (rc != COLIO_SUCCESS)
            return rc;
    }
    return COLIO_SUCCESS;
}
