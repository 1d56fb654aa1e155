/* Reusable exchange plans: storage, lookup and eviction (see plancache.h). */
#include "engine/plancache.h"

#include <stdlib.h>
#include <string.h>

#include "access/split.h"

int colio_plancache_enabled(int plan_cache, const colio_xchg_ops_t *data_kernel)
{
    return plan_cache > 0 && !(data_kernel && (data_kernel->caps & COLIO_XCHG_ONESIDED));
}

/* A word-at-a-time multiplicative hash of the run list and the call's shape: a quick filter before the
   exact comparison (a run list is a few words per run; hashing it costs far less than planning). */
uint64_t colio_plan_hash(const colio_run_t *runs, int64_t n, int kind, int64_t nbytes)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)nbytes ^ ((uint64_t)kind << 62);
    const int64_t *w = (const int64_t *)runs;
    size_t words = (size_t)n * (sizeof *runs / sizeof *w);
    for (size_t i = 0; i < words; i++) {
        h = (h ^ (uint64_t)w[i]) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    return h;
}

static int same_access(const colio_plan_entry_t *e, const colio_run_t *runs, int64_t n, int kind, int64_t nbytes)
{
    return e->kind == kind && e->nbytes == nbytes && e->nruns == n &&
           (n == 0 || memcmp(e->runs, runs, sizeof *runs * (size_t)n) == 0);
}

int64_t colio_plancache_find(const colio_plancache_t *c, uint64_t h, const colio_run_t *runs, int64_t n, int kind,
                             int64_t nbytes)
{
    for (int i = 0; i < c->n; i++)
        if (!c->e[i].busy && c->e[i].hash == h && same_access(&c->e[i], runs, n, kind, nbytes))
            return c->e[i].id;
    return 0;
}

colio_plan_entry_t *colio_plancache_get(colio_plancache_t *c, int64_t id)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].id == id) {
            c->e[i].last_used = ++c->clock;
            return &c->e[i];
        }
    return NULL;
}

void colio_plan_release(colio_plan_t *p, colio_bufcache_t *bufs)
{
    colio_agg_lists_free(p->to_agg, p->naggs);
    free(p->to_agg);
    free(p->send_counts);
    free(p->recv_counts);
    free(p->from_src);
    colio_buf_give(bufs, p->meta_pool, p->meta_pool_cap);
    colio_domains_free(&p->dom);
    free(p->aggs_owned);
    if (p->xctx_owned)
        colio_xchg_ctx_free(p->xctx_owned);
    free(p->xctx_owned);
    memset(p, 0, sizeof *p);
    p->my_agg = -1;
}

static void entry_free(colio_plan_entry_t *e, colio_bufcache_t *bufs)
{
    colio_plan_release(&e->plan, bufs);
    free(e->runs);
    memset(e, 0, sizeof *e);
}

/* The least recently used entry not in use, emptied; NULL when all are in use. */
static colio_plan_entry_t *evict(colio_plancache_t *c, colio_bufcache_t *bufs)
{
    int victim = -1;
    for (int i = 0; i < c->n; i++)
        if (!c->e[i].busy && (victim < 0 || c->e[i].last_used < c->e[victim].last_used))
            victim = i;
    if (victim < 0)
        return NULL;
    entry_free(&c->e[victim], bufs);
    return &c->e[victim];
}

static int any_busy(const colio_plancache_t *c)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].busy)
            return 1;
    return 0;
}

/* Move the parts of op's plan that describe the pattern (not its per-call buffers). */
static void move_plan(colio_plan_t *to, colio_plan_t *from)
{
    *to = *from;
    to->msgs = NULL;
    to->attached = NULL;
    to->nattached = 0;
    from->to_agg = NULL;
    from->send_counts = from->recv_counts = NULL;
    from->from_src = NULL;
    from->meta_pool = NULL;
    from->meta_pool_cap = 0;
    from->aggs_owned = NULL;
    from->xctx_owned = NULL;
    memset(&from->dom, 0, sizeof from->dom);
}

void colio_plancache_store(colio_plancache_t *c, int cap, colio_op_t *op, colio_bufcache_t *bufs)
{
    colio_plan_entry_t *e;
    if (cap <= 0 || !op->key_ok)
        return;
    if (c->n < cap && c->n == c->cap && !any_busy(c)) { /* borrowers hold pointers into c->e */
        colio_plan_entry_t *grown = realloc(c->e, sizeof *grown * (size_t)cap);
        if (grown == NULL)
            return; /* nothing stored: every rank stores at the same call, a failure here only costs reuse */
        c->e = grown;
        c->cap = cap;
    }
    e = c->n < c->cap ? &c->e[c->n++] : evict(c, bufs);
    if (e == NULL)
        return;
    memset(e, 0, sizeof *e);
    e->id = op->seq + 1;
    e->kind = op->args.kind;
    e->nbytes = op->nbytes;
    e->eof = op->eof;
    e->glo = op->glo;
    e->ghi = op->ghi;
    e->runs = op->key_runs;
    e->nruns = op->key_n;
    e->hash = op->key_hash; /* the hash of the access as asked, computed when the call looked for a plan */
    e->last_used = ++c->clock;
    op->key_runs = NULL;
    op->key_n = 0;
    op->key_ok = 0;
    move_plan(&e->plan, &op->plan);
}

void colio_plancache_clear(colio_plancache_t *c, colio_bufcache_t *bufs)
{
    for (int i = 0; i < c->n; i++)
        entry_free(&c->e[i], bufs);
    free(c->e);
    memset(c, 0, sizeof *c);
}
