/* Splitting a rank's runs by file domain and round: one list per aggregator. */
#ifndef COLIO_ACCESS_SPLIT_H
#define COLIO_ACCESS_SPLIT_H

#include <stdint.h>

#include "access/access.h"
#include "place/place.h"

/* Metadata record of a run as sent to an aggregator: off, len, stride, count. */
#define COLIO_META_WORDS 4
#define COLIO_META_BYTES ((int64_t)sizeof(int64_t) * COLIO_META_WORDS)

/* This rank's runs destined to one aggregator, in file order, each inside one round. */
typedef struct colio_agg_list {
    int64_t n, cap;
    int64_t *meta;   /* COLIO_META_WORDS per run: the metadata sent to the aggregator */
    int64_t *pos;    /* n: stream position of each run's first piece */
    int64_t *round;  /* n: the aggregator's round of each run */
    int64_t cur;     /* first run not yet exchanged */
    int64_t bytes;   /* the runs' bytes, summed as they are dealt */
} colio_agg_list_t;

/* Run i of a metadata array (stream position pos). */
static inline colio_run_t colio_meta_run(const int64_t *meta, int64_t i, int64_t pos)
{
    const int64_t *m = meta + COLIO_META_WORDS * i;
    return (colio_run_t){m[0], m[1], m[2], m[3], pos};
}

/*
 * Cut every run at file-domain and round boundaries (pieces too, where a
 * boundary falls inside one) and deal the parts to lists[0..dom->naggs).
 * On failure the lists are left empty.
 */
int colio_split_by_domain(const colio_access_t *acc, const colio_domains_t *dom,
                          colio_agg_list_t *lists, colio_err_t *err);
void colio_agg_lists_free(colio_agg_list_t *lists, int n);
/*
 * At most how many parts colio_split_by_domain deals to each list, added to
 * count[0..dom->naggs): a run inside one (aggregator, round) segment is one,
 * a run cut at boundaries three a segment. Without overlapping runs the
 * access is counted a segment at a time (binary searches), else run by run.
 */
void colio_split_count(const colio_access_t *acc, const colio_domains_t *dom, int64_t *count);

#endif
