/*
 * The access pattern as placement sees it: TATP's communication matrix C
 * (Liu et al. Sec. 4.1), bytes per (rank, file domain), stored sparse by
 * rank as gathered and indexed by file domain for the per-partition
 * strategies.
 */
#include <stdlib.h>
#include <string.h>

#include "place/place.h"

int colio_pattern_index(colio_pattern_t *pat)
{
    int64_t nnz = pat->row_start[pat->nprocs];
    pat->col_start = calloc((size_t)pat->ndom + 1, sizeof(int64_t));
    pat->col_rank = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    pat->col_bytes = malloc(sizeof(int64_t) * (size_t)(nnz > 0 ? nnz : 1));
    pat->dom_bytes = calloc((size_t)pat->ndom + 1, sizeof(int64_t));
    int64_t *fill = calloc((size_t)pat->ndom + 1, sizeof(int64_t));
    if (!pat->col_start || !pat->col_rank || !pat->col_bytes || !pat->dom_bytes || !fill) {
        free(fill);
        return COLIO_ERR_NOMEM;
    }
    for (int64_t k = 0; k < nnz; k++) {
        pat->col_start[pat->dom[k] + 1]++;
        pat->dom_bytes[pat->dom[k]] += pat->bytes[k];
    }
    for (int j = 0; j < pat->ndom; j++)
        pat->col_start[j + 1] += pat->col_start[j];
    for (int r = 0; r < pat->nprocs; r++) /* ranks ascending within every domain */
        for (int64_t k = pat->row_start[r]; k < pat->row_start[r + 1]; k++) {
            int j = pat->dom[k];
            int64_t at = pat->col_start[j] + fill[j]++;
            pat->col_rank[at] = r;
            pat->col_bytes[at] = pat->bytes[k];
        }
    free(fill);
    return COLIO_SUCCESS;
}

void colio_pattern_free(colio_pattern_t *pat)
{
    free(pat->row_start);
    free(pat->dom);
    free(pat->bytes);
    free(pat->col_start);
    free(pat->col_rank);
    free(pat->col_bytes);
    free(pat->dom_bytes);
    memset(pat, 0, sizeof *pat);
}
