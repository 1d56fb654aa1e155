/*
 * ROMIO's default placement: one aggregator per node, taken round-robin over
 * nodes (first rank of every node, then second rank of every node, ...) until
 * the requested number is chosen. Ignores colio_aggregators_per_node's cap,
 * as ROMIO has none.
 */
#include <stdint.h>
#include <stdlib.h>

#include "place/place.h"
#include "place/registry.h"

static int by_key(const void *a, const void *b)
{
    int64_t ka = *(const int64_t *)a, kb = *(const int64_t *)b;
    return ka < kb ? -1 : ka > kb;
}

static int romio_select(const colio_place_input_t *in, int *aggs)
{
    const colio_topo_t *t = in->topo;
    int want = in->naggs;
    /* key = (local rank, node): pass k over the nodes takes each node's k-th rank */
    int64_t *key = malloc(sizeof *key * 2 * (size_t)t->nprocs);
    if (key == NULL)
        return COLIO_ERR_NOMEM;
    for (int r = 0; r < t->nprocs; r++) {
        key[2 * r] = (int64_t)t->local_rank[r] * t->nnodes + t->node_of[r];
        key[2 * r + 1] = r;
    }
    qsort(key, (size_t)t->nprocs, 2 * sizeof *key, by_key);
    int got = 0;
    for (int i = 0; i < t->nprocs && got < want; i++)
        if (colio_place_allowed(in, (int)key[2 * i + 1])) /* subfiling: the group's ranks only */
            aggs[got++] = (int)key[2 * i + 1];
    free(key);
    return got == want ? COLIO_SUCCESS : COLIO_ERR_ARG;
}

const colio_place_ops_t colio_place_romio = {
    .name = "romio",
    .select = romio_select,
};
