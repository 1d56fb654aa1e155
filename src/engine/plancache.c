/* Reusable exchange plans: storage, lookup and eviction (see plancache.h). */
#include "base/pool.h"
#include "engine/plancache.h"

#include "engine/file.h"
#include "engine/step.h"

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

/* ---- reuse by an operation: propose, agree, adopt, keep ---------------------------------- */



/* Whether a stored plan may be reused with this call's access moved by delta (plancache.h, "Moved plans"). */
static int may_move_plan(const colio_file *fh, int64_t delta)
{
    int64_t su = fh->hints.striping_unit;
    return fh->cfg.domain->shifts && fh->sub.nsub == 0 && (su <= 0 || delta % su == 0);
}

/*
 * The end of file a plan was made under matters only to reads it clipped:
 * an exact reuse needs the same end of file; a moved one, reads that ended
 * before it, then and now (a write's eof is the same for every call).
 */
static int same_end_of_file(const colio_op_t *op, const colio_plan_entry_t *e, int64_t delta)
{
    if (delta == 0 || op->args.kind != COLIO_OP_READ)
        return e->eof == op->eof;
    return e->asked_ghi <= e->eof && op->asked_ghi <= op->eof;
}

/*
 * Id of a stored plan for this access, exactly or moved by *shift_p bytes
 * (0: none, or reuse is off or this rank failed). The entry is pinned until
 * the agreement says whether every rank proposed it with the same shift:
 * with several operations in flight, another one may finish, store or
 * borrow at different moments on different ranks, and the decision to
 * borrow must depend on agreed values only.
 */
int64_t colio_plancache_propose(colio_op_t *op, int64_t *shift_p)
{
    colio_file *fh = op->fh;
    *shift_p = op->acc.n ? 0 : COLIO_PLAN_SHIFT_ANY;
    if (!colio_plancache_enabled(fh->hints.plan_cache, fh->cfg.xchg_data) || op->err.code != 0)
        return 0;
    int64_t id = 0;
    colio_access_key_t key = {op->acc.runs, op->acc.n, op->acc.shift, op->acc.borrowed};
    if (colio_plancache_may_match(&fh->plans, op->acc.n, op->args.kind, op->nbytes))
        id = colio_plancache_find(&fh->plans, &key, op->args.kind, op->nbytes, &op->key_hash, &op->key_hashed);
    if (id == 0 && op->acc.n > 0 && may_move_plan(fh, 0)) {
        int64_t delta = 0;
        id = colio_plancache_find_moved(&fh->plans, &key, op->args.kind, op->nbytes, fh->hints.striping_unit, &delta);
        if (id > 0)
            *shift_p = delta;
    }
    if (id > 0) {
        op->pinned = colio_plancache_get(&fh->plans, id);
        op->pinned->busy = 1;
    }
    return id;
}

void colio_plancache_unpin(colio_op_t *op)
{
    if (op->pinned && op->pinned != op->reuse)
        op->pinned->busy = 0;
    op->pinned = NULL;
}

/*
 * A read whose access the end of file cuts keeps it as asked first: the key
 * of a plan to store. An access the cut leaves whole is its own key, adopted
 * after the split like a write's (drop_runs, engine/plan.c): copying it here cost
 * a direct read of a million pieces a quarter of its time.
 */
void colio_plancache_keep_read_key(colio_op_t *op)
{
    if (!colio_plancache_enabled(op->fh->hints.plan_cache, op->fh->cfg.xchg_data) || op->args.kind != COLIO_OP_READ ||
        op->acc.n == 0 || op->acc.end <= op->eof)
        return;
    op->key_cut = 1;
    op->key_ok = colio_access_copy_key(&op->acc, &op->key) == 0;
}

/*
 * After the SETUP agreement: every rank proposed (and pinned) the same
 * stored plan (min == max) at the same shift, and the global facts it was
 * made under (extent, end of file) still hold, moved by that shift, so
 * borrow it; otherwise unpin the proposal.
 */
void colio_plancache_adopt(colio_op_t *op)
{
    const colio_setup_two_phase_t *w = &op->agree_out.setup.two_phase;
    int64_t id = w->plan_id, delta = w->plan_shift, glo, ghi;
    colio_plan_entry_t *e = op->pinned;
    int anywhere = w->plan_shift == COLIO_PLAN_SHIFT_ANY && w->plan_shift_neg == COLIO_PLAN_SHIFT_ANY; /* no rank has pieces */
    if (anywhere)
        delta = 0;
    int same_shift = anywhere || (w->plan_shift_neg != COLIO_PLAN_SHIFT_ANY && delta == -w->plan_shift_neg);
    if (id > 0 && id == -w->plan_id_neg && e && e->id == id && same_shift &&
        !__builtin_add_overflow(e->glo, delta, &glo) && !__builtin_add_overflow(e->ghi, delta, &ghi) &&
        glo == op->glo && ghi == op->ghi && same_end_of_file(op, e, delta) && (delta == 0 || may_move_plan(op->fh, delta))) {
        op->reuse = e; /* stays busy: one borrower at a time, another operation in flight plans afresh */
        op->reuse_shift = delta;
        colio_plancache_touch(&op->fh->plans, e);
        if (delta != 0 && op->args.kind == COLIO_OP_READ)
            e->eof = op->eof; /* unclipped under this end of file too (same_end_of_file): the latest holds */
    }
    colio_plancache_unpin(op);
}

/*
 * A borrowed plan goes back to the cache; a new one that completed on every
 * rank (the outcome is agreed) is stored: both happen at the same call on
 * every rank, so plan ids agree.
 */
void colio_plancache_keep(colio_op_t *op)
{
    colio_file *fh = op->fh;
    colio_plancache_unpin(op); /* an operation that ended before its agreement */
    if (op->reuse || op->plan.dom.ops)
        op->stats.meta_words = op->plan.meta_words;
    if (op->reuse) {
        op->stats.plans_reused = 1;
        memset(&op->plan.dom, 0, sizeof op->plan.dom);
        op->plan.to_agg = NULL, op->plan.from_src = NULL, op->plan.meta_pool = NULL, op->plan.meta_pool_cap = 0;
        op->plan.send_counts = op->plan.recv_counts = NULL;
        op->plan.aggs_owned = NULL, op->plan.xctx_owned = NULL;
        op->reuse->busy = 0;
        op->reuse = NULL;
    } else if (op->err.code == 0 && op->plan.dom.ops &&
               colio_plancache_enabled(fh->hints.plan_cache, fh->cfg.xchg_data)) {
        colio_plancache_store(&fh->plans, fh->hints.plan_cache, op, &fh->bufs);
    }
    colio_access_key_free(&op->key);
}

void colio_plancache_give_back(colio_op_t *op)
{
    if (op->reuse) { /* a borrowed plan serves a two-phase call only (colio_plancache_keep would drop its arrays) */
        op->reuse->busy = 0;
        op->reuse = NULL;
    }
}
