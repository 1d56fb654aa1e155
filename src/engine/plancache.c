/* Reusable exchange plans: storage, lookup and eviction (see plancache.h). */
#include "base/pool.h"
#include "engine/plancache.h"

#include <stdlib.h>
#include <string.h>

#include "access/split.h"

int colio_plancache_enabled(int plan_cache, const colio_xchg_ops_t *data_kernel)
{
    return plan_cache > 0 && !(data_kernel && (data_kernel->caps & COLIO_XCHG_ONESIDED));
}

/*
 * A multiplicative hash of the run list: five independent lanes, one per
 * field, so the multiplies overlap (one chain of them was 4 % of an E3SM
 * write); offsets are taken from the first run's, so a key hashes the same
 * however it is moved.
 */
uint64_t colio_plan_hash(const colio_access_key_t *key)
{
    uint64_t lane[5] = {0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL, 0x27D4EB2F165667C5ULL,
                        0x85EBCA77C2B2AE63ULL};
    int64_t base = key->n > 0 ? key->runs[0].off : 0;
    for (int64_t i = 0; i < key->n; i++) {
        const colio_run_t *r = &key->runs[i];
        uint64_t w[5] = {(uint64_t)(r->off - base), (uint64_t)r->len, (uint64_t)r->stride, (uint64_t)r->count,
                         (uint64_t)r->pos};
        for (int k = 0; k < 5; k++) {
            lane[k] = (lane[k] ^ w[k]) * 0xFF51AFD7ED558CCDULL;
            lane[k] ^= lane[k] >> 32;
        }
    }
    uint64_t h = lane[0] ^ (uint64_t)key->n;
    for (int k = 1; k < 5; k++)
        h = (h ^ lane[k]) * 0xFF51AFD7ED558CCDULL;
    return h;
}

/*
 * Whether the key's runs are e's moved by delta bytes (0: the same runs):
 * by the shifts alone where both borrow the same flattening, by one memcmp
 * where their shifts differ by delta, else run by run.
 */
static int moved_by(const colio_plan_entry_t *e, const colio_access_key_t *key, int64_t delta)
{
    const colio_access_key_t *a = &e->key;
    if (a->n != key->n)
        return 0;
    if (a->n == 0) /* no pieces: fits the plan wherever the others moved it */
        return 1;
    if (a->runs == key->runs)
        return key->shift - a->shift == delta;
    if (key->shift - a->shift == delta)
        return a->n == 0 || memcmp(a->runs, key->runs, sizeof *a->runs * (size_t)a->n) == 0;
    for (int64_t i = 0; i < a->n; i++) {
        const colio_run_t *x = &a->runs[i], *y = &key->runs[i];
        if ((y->off + key->shift) - (x->off + a->shift) != delta || x->len != y->len || x->stride != y->stride ||
            x->count != y->count || x->pos != y->pos)
            return 0;
    }
    return 1;
}

int64_t colio_plancache_find_moved(const colio_plancache_t *c, const colio_access_key_t *key, int kind,
                                   int64_t nbytes, int64_t unit, int64_t *delta_p)
{
    const colio_plan_entry_t *best = NULL; /* the most recently used: the one a rank without pieces proposes */
    for (int i = 0; i < c->n && key->n > 0; i++) {
        const colio_plan_entry_t *e = &c->e[i];
        if (e->busy || e->kind != kind || e->nbytes != nbytes || e->key.n != key->n ||
            (e->kind == COLIO_OP_READ && e->asked_ghi > e->eof) ||
            (best && e->last_used < best->last_used))
            continue;
        int64_t delta;
        if (__builtin_sub_overflow(colio_key_run(key, 0).off, colio_key_run(&e->key, 0).off, &delta) ||
            (unit > 0 && delta % unit != 0) || !moved_by(e, key, delta))
            continue;
        *delta_p = delta;
        best = e;
    }
    return best ? best->id : 0;
}

void colio_plan_move(colio_plan_entry_t *e, int64_t delta, int nprocs, int my_rank)
{
    colio_plan_t *p = &e->plan;
    p->dom.lo += delta;
    p->dom.hi += delta;
    for (int a = 0; p->dom.start && a < p->dom.naggs; a++)
        p->dom.start[a] += delta, p->dom.end[a] += delta;
    for (int i = 0; i < p->naggs; i++)
        colio_meta_move(p->to_agg[i].meta, p->to_agg[i].words, p->to_agg[i].n, &p->to_agg[i].base, delta);
    for (int s = 0; p->my_agg >= 0 && p->from_src && s < nprocs; s++) {
        colio_src_list_t *l = &p->from_src[s];
        if (s == my_rank) { /* my own list is to_agg[my_agg], moved above: its base (the records are shared) */
            l->base += delta;
            continue;
        }
        colio_meta_move((int64_t *)l->meta, l->words, l->n, &l->base, delta); /* in the plan's own meta_pool */
    }
    e->key.shift += delta; /* its hash stays: offsets are hashed from the first run's */
    e->glo += delta;
    e->ghi += delta;
    e->asked_ghi += delta;
}

int colio_plancache_may_match(const colio_plancache_t *c, int64_t n, int kind, int64_t nbytes)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].kind == kind && c->e[i].nbytes == nbytes && c->e[i].key.n == n)
            return 1;
    return 0;
}

/* e's hash, computed the first time a call of its size asks (an entry no later call matches never pays it). */
static uint64_t entry_hash(colio_plan_entry_t *e)
{
    if (!e->hash_known)
        e->hash = colio_plan_hash(&e->key), e->hash_known = 1;
    return e->hash;
}

/* Whether key is e's access: the same flattening at the same shift, or (hashes first) the same runs. */
static int same_access(colio_plan_entry_t *e, const colio_access_key_t *key, uint64_t *hash_p, int *hashed_p)
{
    if (e->key.runs == key->runs || e->key.n == 0)
        return moved_by(e, key, 0);
    if (!*hashed_p)
        *hash_p = colio_plan_hash(key), *hashed_p = 1;
    return entry_hash(e) == *hash_p && moved_by(e, key, 0);
}

int64_t colio_plancache_find(colio_plancache_t *c, const colio_access_key_t *key, int kind, int64_t nbytes,
                             uint64_t *hash_p, int *hashed_p)
{
    colio_plan_entry_t *best = NULL;
    for (int i = 0; i < c->n; i++) {
        colio_plan_entry_t *e = &c->e[i];
        if (e->busy || e->kind != kind || e->nbytes != nbytes || e->key.n != key->n ||
            (best && e->last_used <= best->last_used) || !same_access(e, key, hash_p, hashed_p))
            continue;
        best = e;
        if (key->n > 0)
            break; /* the first stored: what a rank whose access changed since still finds */
    }
    return best ? best->id : 0;
}

colio_plan_entry_t *colio_plancache_get(colio_plancache_t *c, int64_t id)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].id == id)
            return &c->e[i];
    return NULL;
}

void colio_plancache_touch(colio_plancache_t *c, colio_plan_entry_t *e) { e->last_used = ++c->clock; }

void colio_plan_release(colio_plan_t *p, colio_pool_t *bufs)
{
    colio_agg_lists_free(p->to_agg, p->naggs);
    colio_pool_array_free(p->to_agg);
    colio_pool_array_free(p->send_counts);
    colio_pool_array_free(p->recv_counts);
    colio_pool_array_free(p->from_src);
    colio_pool_buf_give(bufs, p->meta_pool, p->meta_pool_cap);
    colio_domains_free(&p->dom);
    free(p->aggs_owned);
    if (p->xctx_owned)
        colio_xchg_ctx_free(p->xctx_owned);
    free(p->xctx_owned);
    memset(p, 0, sizeof *p);
    p->my_agg = -1;
}

static void entry_free(colio_plan_entry_t *e, colio_pool_t *bufs)
{
    colio_plan_release(&e->plan, bufs);
    colio_access_key_free(&e->key);
    memset(e, 0, sizeof *e);
}

/* The least recently used entry not in use, emptied; NULL when all are in use. */
static colio_plan_entry_t *evict(colio_plancache_t *c, colio_pool_t *bufs)
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

void colio_plancache_store(colio_plancache_t *c, int cap, colio_op_t *op, colio_pool_t *bufs)
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
    e->asked_ghi = op->asked_ghi;
    e->key = op->key;
    e->hash = op->key_hash; /* the hash of the access as asked, when the call computed it looking for a plan */
    e->hash_known = op->key_hashed;
    e->last_used = ++c->clock;
    op->key = (colio_access_key_t){0};
    op->key_ok = 0;
    move_plan(&e->plan, &op->plan);
}

void colio_plancache_clear(colio_plancache_t *c, colio_pool_t *bufs)
{
    for (int i = 0; i < c->n; i++)
        entry_free(&c->e[i], bufs);
    free(c->e);
    memset(c, 0, sizeof *c);
}
