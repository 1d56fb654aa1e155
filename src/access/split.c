/* Splitting a rank's pieces by file domain and round (the "my requests per aggregator" lists). */
#include "access/split.h"

#include <stdlib.h>
#include <string.h>

/* Visit every part of every piece: fn(lists, agg, round, off, len, pos). */
typedef void (*part_fn_t)(colio_agg_list_t *lists, int agg, int64_t round, int64_t off, int64_t len,
                          int64_t pos);

static void for_each_part(const colio_access_t *acc, const colio_domains_t *dom, colio_agg_list_t *lists,
                          part_fn_t fn)
{
    for (int64_t i = 0; i < acc->n; i++) {
        int64_t off = acc->pieces[i].off, end = off + acc->pieces[i].len, pos = acc->pieces[i].pos;
        while (off < end) {
            int agg;
            int64_t round, run_end;
            dom->ops->locate(dom, off, &agg, &round, &run_end);
            int64_t len = (run_end < end ? run_end : end) - off;
            fn(lists, agg, round, off, len, pos);
            off += len;
            pos += len;
        }
    }
}

static void count_part(colio_agg_list_t *lists, int agg, int64_t round, int64_t off, int64_t len, int64_t pos)
{
    (void)round, (void)off, (void)len, (void)pos;
    lists[agg].n++;
}

static void fill_part(colio_agg_list_t *lists, int agg, int64_t round, int64_t off, int64_t len, int64_t pos)
{
    colio_agg_list_t *l = &lists[agg];
    l->offlen[2 * l->cur] = off;
    l->offlen[2 * l->cur + 1] = len;
    l->pos[l->cur] = pos;
    l->round[l->cur] = round;
    l->cur++;
}

int colio_split_by_domain(const colio_access_t *acc, const colio_domains_t *dom,
                          colio_agg_list_t *lists, colio_err_t *err)
{
    memset(lists, 0, sizeof *lists * (size_t)dom->naggs);
    for_each_part(acc, dom, lists, count_part);
    for (int a = 0; a < dom->naggs; a++) {
        colio_agg_list_t *l = &lists[a];
        size_t n = (size_t)l->n;
        l->offlen = malloc(sizeof(int64_t) * (2 * n + 1));
        l->pos = malloc(sizeof(int64_t) * (n + 1));
        l->round = malloc(sizeof(int64_t) * (n + 1));
        if (!l->offlen || !l->pos || !l->round) {
            colio_agg_lists_free(lists, dom->naggs);
            return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory splitting %lld pieces",
                                 (long long)acc->n);
        }
    }
    for_each_part(acc, dom, lists, fill_part);
    for (int a = 0; a < dom->naggs; a++)
        lists[a].cur = 0;
    return 0;
}

void colio_agg_lists_free(colio_agg_list_t *lists, int n)
{
    if (lists == NULL)
        return;
    for (int a = 0; a < n; a++) {
        free(lists[a].offlen);
        free(lists[a].pos);
        free(lists[a].round);
    }
    memset(lists, 0, sizeof *lists * (size_t)n);
}
