/* Splitting a rank's pieces by file domain: one sorted list per aggregator. */
#ifndef COLIO_ACCESS_SPLIT_H
#define COLIO_ACCESS_SPLIT_H

#include <stdint.h>

#include "access/access.h"
#include "place/place.h"

/* This rank's pieces destined to one aggregator, sorted, each inside one round. */
typedef struct colio_agg_list {
    int64_t n;
    int64_t *offlen; /* 2n: offset, length: the metadata sent to the aggregator */
    int64_t *pos;    /* n: stream position of each piece */
    int64_t *round;  /* n: the aggregator's round of each piece */
    int64_t cur;     /* first piece not yet exchanged */
} colio_agg_list_t;

/*
 * Cut every piece at file-domain and round boundaries and deal the parts to
 * lists[0..dom->naggs). On failure the lists are left empty.
 */
int colio_split_by_domain(const colio_access_t *acc, const colio_domains_t *dom,
                          colio_agg_list_t *lists, colio_err_t *err);
void colio_agg_lists_free(colio_agg_list_t *lists, int n);

#endif
