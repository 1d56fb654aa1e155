/*
 * The stepped schedules of the exchange kernels against the papers'
 * algorithms written out literally (Kang et al. SC20, Algorithms 1 and 2):
 * the Figure 1 example, random process counts, receiver sets and rank lists,
 * and every (sender, receiver) pair scheduled exactly once.
 */
#include <stdlib.h>
#include <string.h>

#include "exchange/kernels.h"
#include "testutil.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void) { return test_xorshift(&rng); }

typedef struct world {
    colio_xchg_ctx_t ctx;
    colio_xchg_t x;
    int *receivers; /* ascending */
} world_t;

static void world_make(world_t *w, int p, const int *receivers, int nr, const int *rank_list)
{
    memset(w, 0, sizeof *w);
    w->ctx.nprocs = p;
    w->ctx.naggs = nr;
    w->ctx.rank_list = malloc(sizeof(int) * (size_t)p);
    w->ctx.list_pos = malloc(sizeof(int) * (size_t)p);
    w->ctx.agg_index = malloc(sizeof(int) * (size_t)p);
    w->receivers = malloc(sizeof(int) * (size_t)nr);
    for (int r = 0; r < p; r++)
        w->ctx.agg_index[r] = -1;
    for (int j = 0; j < nr; j++) {
        w->receivers[j] = receivers[j];
        w->ctx.agg_index[receivers[j]] = j;
    }
    for (int i = 0; i < p; i++) {
        w->ctx.rank_list[i] = rank_list ? rank_list[i] : i;
        w->ctx.list_pos[w->ctx.rank_list[i]] = i;
    }
    w->x.nprocs = p;
    w->x.ctx = &w->ctx;
    w->x.to_aggs = 1;
}

static void world_free(world_t *w)
{
    free(w->ctx.rank_list);
    free(w->ctx.list_pos);
    free(w->ctx.agg_index);
    free(w->receivers);
}

/* Algorithm 2, lines 5-10, written out. */
static int64_t alg2_r_index(int p, int nr, int j)
{
    int q = p % nr, ceil_ = (p + nr - 1) / nr, floor_ = p / nr;
    return j < q ? (int64_t)ceil_ * j : (int64_t)ceil_ * q + (int64_t)(j - q) * floor_;
}

/*
 * For every receiver: at each step i exactly one sender, the one Algorithm 2
 * names (src = rank_list[(r_index + i) mod p]), so every pair is scheduled
 * exactly once.
 */
static int check_balanced(world_t *w)
{
    int p = w->x.nprocs, nr = w->ctx.naggs, bad = 0;
    int *seen = malloc(sizeof(int) * (size_t)p);
    for (int j = 0; j < nr; j++) {
        int d = w->receivers[j];
        memset(seen, 0, sizeof(int) * (size_t)p);
        for (int s = 0; s < p; s++) {
            int64_t i = colio_balanced_step(&w->x, s, d);
            if (i < 0 || i >= p || seen[i]++) {
                bad++;
                continue;
            }
            if (w->ctx.rank_list[(alg2_r_index(p, nr, j) + i) % p] != s)
                bad++;
        }
    }
    free(seen);
    return bad;
}

static void figure1(void)
{
    /* p = 8, R = {0, 1, 2, 3}, rank_list {0,4,1,5,2,6,3,7}: receivers start at themselves
       (r_index 0, 2, 4, 6), then rank 0 hears from 4, 1, 5, ..., as the paper's Fig. 1(b). */
    int receivers[] = {0, 1, 2, 3}, list[] = {0, 4, 1, 5, 2, 6, 3, 7};
    world_t w;
    world_make(&w, 8, receivers, 4, list);
    int expect[4][8] = {{0, 4, 1, 5, 2, 6, 3, 7}, {1, 5, 2, 6, 3, 7, 0, 4}, {2, 6, 3, 7, 0, 4, 1, 5}, {3, 7, 0, 4, 1, 5, 2, 6}};
    for (int j = 0; j < 4; j++) {
        CHECK(colio_balanced_r_index(8, 4, j) == 2 * j, "r_index(%d) = %d", j, 2 * j);
        for (int s = 0; s < 8; s++) {
            int64_t i = colio_balanced_step(&w.x, s, j);
            CHECK(i >= 0 && i < 8 && expect[j][i] == s, "Fig. 1: receiver %d hears %d at step %lld", j, s, (long long)i);
        }
    }
    CHECK(check_balanced(&w) == 0, "Fig. 1 schedule matches Algorithm 2");
    world_free(&w);
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int k = (int)(next() % (uint64_t)(i + 1)), t = a[i];
        a[i] = a[k];
        a[k] = t;
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Random p, random receiver sets, linear and shuffled rank lists. */
static void random_balanced(void)
{
    for (int trial = 0; trial < 400; trial++) {
        int p = 1 + (int)(next() % 300), nr = 1 + (int)(next() % (uint64_t)p);
        int *ranks = malloc(sizeof(int) * (size_t)p), *list = malloc(sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++)
            ranks[i] = list[i] = i;
        shuffle(ranks, p);
        qsort(ranks, (size_t)nr, sizeof(int), cmp_int); /* the receivers: nr random ranks, ascending */
        if (trial % 2)
            shuffle(list, p);
        world_t w;
        world_make(&w, p, ranks, nr, list);
        CHECK(check_balanced(&w) == 0, "p=%d |R|=%d: every pair once, in Algorithm 2's order", p, nr);
        /* the receivers' start positions: |R| - q gaps of floor(p/|R|) and q of ceil(p/|R|), ending at p */
        int64_t end = alg2_r_index(p, nr, nr - 1) + (nr - 1 < p % nr ? (p + nr - 1) / nr : p / nr);
        CHECK(end == p, "p=%d |R|=%d: starts spread over the whole list", p, nr);
        world_free(&w);
        free(ranks);
        free(list);
    }
}

/* Algorithm 1: receiver d hears (d + i) mod p at step i; every pair once. */
static void spread(void)
{
    for (int p = 1; p <= 70; p++) {
        int zero = 0;
        world_t w;
        world_make(&w, p, &zero, 1, NULL);
        int bad = 0;
        for (int d = 0; d < p; d++)
            for (int i = 0; i < p; i++)
                bad += colio_spread_step(&w.x, (d + i) % p, d) != i;
        CHECK(bad == 0, "spread-out p=%d", p);
        world_free(&w);
    }
}

/* Pairwise: at every step each rank sends to at most one rank and receives from at most one. */
static void pairwise(void)
{
    for (int p = 1; p <= 70; p++) {
        int zero = 0, bad = 0;
        world_t w;
        world_make(&w, p, &zero, 1, NULL);
        int *to = malloc(sizeof(int) * (size_t)p * (size_t)p), *from = malloc(sizeof(int) * (size_t)p * (size_t)p);
        memset(to, 0, sizeof(int) * (size_t)p * (size_t)p);
        memset(from, 0, sizeof(int) * (size_t)p * (size_t)p);
        for (int s = 0; s < p; s++)
            for (int d = 0; d < p; d++) {
                if (s == d)
                    continue;
                int64_t i = colio_pairwise_step(&w.x, s, d);
                bad += i < 1 || i >= p || to[(size_t)s * p + i]++ || from[(size_t)d * p + i]++;
                bad += colio_pairwise_step(&w.x, s, d) != colio_pairwise_step(&w.x, s, d);
                if ((p & (p - 1)) == 0) /* power of two: partners exchange both ways at the same step */
                    bad += colio_pairwise_step(&w.x, d, s) != i;
            }
        CHECK(bad == 0, "pairwise p=%d", p);
        free(to);
        free(from);
        world_free(&w);
    }
}

int main(void)
{
    figure1();
    random_balanced();
    spread();
    pairwise();
    return unit_finish("test_schedule_unit");
}
