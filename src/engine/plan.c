/*
 * Two-phase set-up: file domains, per-aggregator request lists, piece counts
 * (Ialltoall), buffer allocation with one agreement, and the metadata
 * exchange of offset/length lists to the aggregators (ROMIO's
 * ADIOI_Calc_others_req, through a pluggable exchange kernel).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "engine/file.h"
#include "engine/arrays.h"
#include "engine/counts.h"
#include "engine/model.h"
#include "engine/place_step.h"
#include "engine/plan.h"
#include "engine/plancache.h"
#include "engine/step.h"

/* The INIT arrays that describe a pattern, back to the file (a stored plan keeps its own). */
static void give_pattern_arrays(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    colio_agg_lists_free(p->to_agg, p->naggs);
    colio_op_give_array(op, COLIO_ARR_TO_AGG, p->to_agg);
    colio_op_give_array(op, COLIO_ARR_SEND_COUNTS, p->send_counts);
    colio_op_give_array(op, COLIO_ARR_RECV_COUNTS, p->recv_counts);
    colio_op_give_array(op, COLIO_ARR_FROM_SRC, p->from_src);
    p->to_agg = NULL, p->send_counts = p->recv_counts = NULL, p->from_src = NULL;
}

/*
 * Borrow a stored plan (plancache.h): domains, lists, counts and the
 * aggregators' received metadata as they were, cursors rewound. The
 * counts exchange is skipped: COUNTS runs at once on a null request.
 */
static int borrow_plan(colio_op_t *op)
{
    colio_plan_t *p = &op->plan, *stored = &op->reuse->plan;
    if (op->reuse_shift != 0) /* the same access elsewhere in the file: the plan moves with it */
        colio_plan_move(op->reuse, op->reuse_shift, op->fh->nprocs, op->fh->rank);
    give_pattern_arrays(op);
    colio_plan_t mine = *p;
    *p = *stored;
    p->msgs = mine.msgs; /* per-call buffers stay the call's own */
    p->attached = mine.attached;
    p->nattached = 0;
    for (int i = 0; i < p->naggs; i++)
        p->to_agg[i].cur = p->to_agg[i].scur = 0;
    for (int s = 0; p->my_agg >= 0 && s < op->fh->nprocs; s++)
        p->from_src[s].cur = 0;
    op->stats.aggregators = p->naggs;
    op->stats.is_aggregator = p->my_agg >= 0;
    colio_access_drop_runs(&op->acc); /* the lists hold it all, as after a split */
    op->phase = COLIO_PH_COUNTS; /* no counts to exchange: op->coll is idle, so COUNTS moves on */
    return COLIO_STEP_NEXT;
}

/* The run list after the split: kept as the key of a plan to store (unless a read kept its own), else freed. */
static void drop_runs(colio_op_t *op)
{
    colio_file *fh = op->fh;
    if (colio_plancache_enabled(fh->hints.plan_cache, fh->cfg.xchg_data) && !op->key_cut && op->err.code == 0) {
        op->key_ok = colio_access_give_key(&op->acc, &op->key) == 0; /* a single run's copy may fail: no plan stored */
    }
    colio_access_drop_runs(&op->acc);
}

/* Bytes of the largest round of my file domain: the collective buffer's size. */
static int64_t domain_share(const colio_op_t *op)
{
    const colio_domains_t *d = &op->plan.dom;
    return d->start ? d->end[op->plan.my_agg] - d->start[op->plan.my_agg] : d->hi - d->lo;
}

static int64_t round_buffer_size(const colio_op_t *op)
{
    int64_t share = domain_share(op);
    return share < op->plan.dom.round_size ? share : op->plan.dom.round_size;
}

/* The file-system block (colio_block_size, else st_blksize), 0 when unknown. */
static int64_t fs_block(const colio_file *fh) { return fh->hints.block_size ? fh->hints.block_size : fh->blksize; }

/* Collective buffers are aligned for O_DIRECT: to the block when it is a power of two, at least 4096. */
static size_t cbuf_alignment(const colio_file *fh)
{
    int64_t b = fs_block(fh);
    return b > 4096 && b <= (1 << 24) && (b & (b - 1)) == 0 ? (size_t)b : 4096;
}

int colio_plan_pipelines(const colio_op_t *op)
{
    int pipeline = op->fh->hints.pipeline;
    return pipeline == 2 ||
           (pipeline == 0 && colio_model_pipelines(&op->fh->figures, op->args.kind == COLIO_OP_WRITE));
}

/* Two buffers (pipelined rounds) when they pay and my file domain takes more than one round. */
static int want_pipeline(const colio_op_t *op)
{
    return colio_plan_pipelines(op) && !op->plan.rma_data && domain_share(op) > op->plan.dom.round_size;
}

/*
 * Aggregator: the collective buffer(s), as large as the largest round of my
 * file domain rounded up to whole file-system blocks (TAPIOCA Sec. 4.2).
 * One-sided data keeps one buffer: requesters address it directly.
 */
static int alloc_cbuf(colio_op_t *op)
{
    colio_round_t *r = &op->rnd;
    if (op->plan.my_agg < 0 || r->cbuf != NULL)
        return 0;
    int64_t size = round_buffer_size(op), blk = fs_block(op->fh) > 0 ? fs_block(op->fh) : 4096;
    if (size == 0)
        return 0; /* an empty file domain: no rounds here */
    if (op->args.kind == COLIO_OP_READ)
        size += COLIO_READ_ALIGN; /* room to put each round at its file offset's alignment */
    if (blk <= (1 << 24)) /* not for huge blocks: a whole one per aggregator would waste memory */
        size = (size + blk - 1) / blk * blk;
    int nbufs = want_pipeline(op) ? 2 : 1;
    for (int b = 0; b < nbufs; b++) {
        colio_round_buf_t *cb = &r->buf[b];
        cb->mem = colio_pool_buf_take_aligned(&op->fh->bufs, (size_t)size, cbuf_alignment(op->fh), &cb->cap);
        if (!cb->mem)
            return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for a %lld-byte collective buffer",
                                 (long long)size);
        r->cbuf_cap += cb->cap;
    }
    r->cbuf = r->buf[0].mem;
    r->cur = 0;
    r->pipelined = nbufs == 2;
    return 0;
}

/* Attach len bytes at p to the file's window; the address travels as one word of the counts. */
static int rma_attach(colio_op_t *op, void *p, int64_t len, int64_t *addr_p)
{
    colio_plan_t *pl = &op->plan;
    MPI_Aint addr;
    if (MPI_Win_attach(op->fh->cfg.win, p, (MPI_Aint)len) != MPI_SUCCESS)
        return colio_op_fail(op, COLIO_ERR_MPI, "MPI_Win_attach of %lld bytes failed", (long long)len);
    pl->attached[pl->nattached++] = p;
    if (MPI_Get_address(p, &addr) != MPI_SUCCESS)
        return colio_op_fail(op, COLIO_ERR_MPI, "MPI_Get_address failed");
    *addr_p = (int64_t)addr;
    return 0;
}

/*
 * One-sided kernels, before the counts go out: an aggregator exposes its
 * collective buffer to every rank (data), a requester its run list to each
 * aggregator (metadata), and the addresses ride along in the Ialltoall. A
 * failure here is agreed at READY like any allocation failure.
 */
static void rma_expose(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    int np = op->fh->nprocs;
    int64_t addr = 0;
    if (p->rma_data && op->err.code == 0 && alloc_cbuf(op) == 0 && op->rnd.cbuf &&
        rma_attach(op, op->rnd.cbuf, (int64_t)op->rnd.cbuf_cap, &addr) == 0)
        for (int s = 0; s < np; s++)
            p->send_counts[COLIO_COUNT_WORDS * s + COLIO_CW_CBUF] = addr;
    for (int i = 0; p->rma_meta && i < p->naggs && op->err.code == 0; i++)
        if (i != p->my_agg && p->to_agg[i].n > 0 &&
            rma_attach(op, p->to_agg[i].meta, colio_meta_bytes(p->meta_words, p->to_agg[i].n), &addr) == 0)
            p->send_counts[COLIO_COUNT_WORDS * p->aggs[i] + COLIO_CW_META] = addr;
}

void colio_plan_detach(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    for (int i = 0; i < p->nattached; i++)
        MPI_Win_detach(op->fh->cfg.win, p->attached[i]);
    p->nattached = 0;
}

int colio_step_plan(colio_op_t *op)
{
    colio_file *fh = op->fh;
    colio_plan_t *p = &op->plan;
    op->planned = 1;
    colio_round_state_zero(op);
    if (op->reuse)
        return borrow_plan(op);
    p->naggs = colio_op_agg_set(op)->naggs;
    colio_domain_input_t in = {.naggs = p->naggs, .lo = op->glo, .hi = op->ghi,
                               .round_size = fh->round_bytes[op->args.kind == COLIO_OP_WRITE][0],
                               .round_max = fh->hints.cb_buffer_size,
                               .striping_unit = fh->sub.nsub ? fh->sub.stripe : fh->hints.striping_unit,
                               .block_size = fh->hints.block_size ? fh->hints.block_size : fh->blksize,
                               .nsub = fh->cfg.ngroups, .sub_first = fh->cfg.group_first};
    p->dom.ops = fh->cfg.domain;
    p->dom.naggs = p->naggs;
    p->dom.lo = op->glo;
    p->dom.hi = op->ghi;
    p->dom.round_size = in.round_size;
    p->meta_words = colio_op_meta_words(op);
    if (fh->cfg.domain->plan(&in, &p->dom) != 0)
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory planning file domains");
    else if (op->err.code == 0) { /* (a rank that failed before, e.g. clipping its access, sends nothing) */
        colio_err_t e;
        colio_err_clear(&e);
        if (colio_split_by_domain(&op->acc, &p->dom, p->meta_words, p->to_agg, &e) != 0)
            colio_op_fail(op, e.code, "%s", e.msg);
        op->stats.work_runs += op->acc.n;
    }
    /* the per-domain lists hold it all now: drop the run list, keep its totals */
    op->stats.memory = colio_op_memory(op); /* the peak of planning: both lists at once */
    drop_runs(op);
    op->phase = COLIO_PH_PLACE;
    return COLIO_STEP_NEXT;
}

/* With the aggregators known (engine/place_step.c): expose one-sided memory, post the counts. */
int colio_step_counts_post(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    p->rma_meta = (op->fh->cfg.xchg_meta && (op->fh->cfg.xchg_meta->caps & COLIO_XCHG_ONESIDED)) != 0;
    p->rma_data = (op->fh->cfg.xchg_data && (op->fh->cfg.xchg_data->caps & COLIO_XCHG_ONESIDED)) != 0;
    rma_expose(op);
    /* a rank that failed sends zero counts and still takes part until READY */
    for (int i = 0; i < p->naggs && op->err.code == 0; i++) {
        p->send_counts[COLIO_COUNT_WORDS * p->aggs[i] + COLIO_CW_RUNS] = p->to_agg[i].n;
        p->send_counts[COLIO_COUNT_WORDS * p->aggs[i] + COLIO_CW_BYTES] = p->to_agg[i].bytes;
    }
    if (colio_counts_sparse(op)) {
        colio_counts_start(op);
        return COLIO_STEP_NEXT;
    }
    int rc = colio_coll_alltoall(&op->coll, p->send_counts, COLIO_COUNT_WORDS, MPI_INT64_T, p->recv_counts, op->comm);
    op->stats.meta_messages += colio_coll_alltoall_messages(&op->coll, op->fh->nprocs);
    return colio_op_posted(op, rc, "counts exchange", COLIO_PH_COUNTS);
}

/* Aggregator: room for every source's offset/length list. */
static int alloc_metadata(colio_op_t *op)
{
    colio_file *fh = op->fh;
    colio_plan_t *p = &op->plan;
    int64_t total = 0;
    for (int s = 0; s < fh->nprocs; s++)
        if (s != fh->rank)
            total += p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS];
    p->meta_pool = colio_pool_buf_take(&fh->bufs, (size_t)colio_meta_bytes(p->meta_words, total) + sizeof(int64_t),
                                  &p->meta_pool_cap);
    if (p->meta_pool == NULL)
        return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for %lld metadata entries", (long long)total);
    int64_t at = 0;
    for (int s = 0; s < fh->nprocs; s++) {
        colio_src_list_t *src = &p->from_src[s];
        src->words = p->meta_words;
        src->base = p->dom.lo; /* as the requesters' lists (colio_split_by_domain) */
        if (s == fh->rank) { /* my own runs: no message */
            src->n = p->to_agg[p->my_agg].n;
            src->meta = p->to_agg[p->my_agg].meta;
            continue;
        }
        src->n = p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS];
        src->meta = p->meta_pool + p->meta_words * at;
        at += src->n;
    }
    return 0;
}

/* Requester: staging for rounds whose pieces cannot move straight from/to user memory. */
static int64_t requester_pack_size(const colio_op_t *op)
{
    const colio_plan_t *p = &op->plan;
    if (op->mem.flat == NULL && op->acc.stream_order)
        return 0; /* every message is one run of the user's buffer */
    int64_t total = 0;
    for (int i = 0; i < p->naggs; i++) {
        const colio_agg_list_t *l = &p->to_agg[i];
        int64_t best = 0, cur = 0;
        for (int64_t k = 0; k < l->nst; k++) { /* (a round may take several stretches) */
            cur = k > 0 && l->st[k].round == l->st[k - 1].round ? cur + l->st[k].bytes : l->st[k].bytes;
            best = cur > best ? cur : best;
        }
        total += best; /* a round never needs more than each aggregator's largest round */
    }
    return total;
}

/* Needs of the kernel an exchange runs: the configured one, or the most of auto's candidates (decided at READY). */
static void kernel_needs(const colio_xchg_ops_t *k, const colio_op_t *op, int64_t *reqs, size_t *scratch)
{
    const colio_xchg_ctx_t *c = op->plan.xctx;
    int rank = op->fh->rank;
    *reqs = colio_xchg_extra_requests(k, c, rank);
    *scratch = colio_xchg_scratch_bytes(k, c, rank);
    for (const colio_xchg_ops_t *const *a = colio_xchg_auto_candidates(); k == NULL && *a; a++) {
        int64_t r = colio_xchg_extra_requests(*a, c, rank);
        size_t s = colio_xchg_scratch_bytes(*a, c, rank);
        *reqs = r > *reqs ? r : *reqs;
        *scratch = s > *scratch ? s : *scratch;
    }
}

/* Requests of the metadata exchange and of any round, reserved before READY. */
static int reserve_requests(colio_op_t *op)
{
    const colio_plan_t *p = &op->plan;
    colio_file *fh = op->fh;
    int64_t meta = 0;
    for (int i = 0; i < p->naggs; i++)
        if (i != p->my_agg && p->to_agg[i].n > 0)
            meta += colio_xchg_chunks(colio_meta_bytes(p->meta_words, p->to_agg[i].n));
    for (int s = 0; s < fh->nprocs && p->my_agg >= 0; s++)
        if (s != fh->rank && p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS] > 0)
            meta += colio_xchg_chunks(
                colio_meta_bytes(p->meta_words, p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS]));
    /* a round: at most one message per aggregator and one per source, each within a round */
    int64_t data = (int64_t)(p->naggs + fh->nprocs) * colio_xchg_chunks(fh->hints.cb_buffer_size);
    /* what the kernels add on top (TAM: headers, segments and a local aggregator's traffic) */
    int64_t meta_extra, data_extra;
    size_t meta_scratch, data_scratch;
    kernel_needs(fh->cfg.xchg_meta, op, &meta_extra, &meta_scratch);
    kernel_needs(fh->cfg.xchg_data, op, &data_extra, &data_scratch);
    meta += meta_extra;
    data += data_extra;
    if (meta > INT_MAX || data > INT_MAX || colio_xchg_reserve(&op->meta, (int)meta) != 0 ||
        colio_xchg_reserve(&op->rnd.x, (int)data) != 0 ||
        (meta_scratch && colio_xchg_reserve_scratch(&op->meta, meta_scratch) != 0) ||
        (data_scratch && colio_xchg_reserve_scratch(&op->rnd.x, data_scratch) != 0))
        return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for MPI requests");
    return 0;
}

static int alloc_round_buffers(colio_op_t *op)
{
    colio_round_t *r = &op->rnd;
    r->pack_size = requester_pack_size(op);
    if (r->pack_size > 0 && (r->pack = colio_pool_buf_take(&op->fh->bufs, (size_t)r->pack_size, &r->pack_cap)) == NULL)
        return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for a %lld-byte staging buffer",
                             (long long)r->pack_size);
    /* the aggregator's staging buffer comes with the first round that packs (round.c), as large as it needs */
    return alloc_cbuf(op);
}

/*
 * What automatic kernel selection needs, as three words to MIN over all
 * ranks: minus this aggregator's peer count (fan-in for writes, fan-out for
 * reads: the same ranks), minus its average metadata message and minus its
 * average data message per round, in bytes. Non-aggregators give 0.
 */
static void exchange_shape(const colio_op_t *op, colio_ready_words_t *w)
{
    const colio_plan_t *p = &op->plan;
    int64_t peers = 0, runs = 0, bytes = 0;
    for (int s = 0; p->my_agg >= 0 && s < op->fh->nprocs; s++)
        if (s != op->fh->rank && p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS] > 0) {
            peers++;
            runs += p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS];
            bytes += p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_BYTES];
        }
    int64_t share = p->my_agg >= 0 ? domain_share(op) : 0;
    int64_t rounds = share > 0 ? (share + p->dom.round_size - 1) / p->dom.round_size : 1;
    w->peers_neg = -peers;
    w->meta_bytes_neg = peers ? -(colio_meta_bytes(p->meta_words, runs) / peers) : 0;
    w->data_bytes_neg = peers ? -(bytes / (peers * rounds)) : 0;
}

int colio_step_counts(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    if (op->err.code == 0 && op->plan.my_agg >= 0 && !op->reuse)
        alloc_metadata(op); /* a borrowed plan has its metadata */
    if (op->err.code == 0)
        alloc_round_buffers(op);
    if (op->err.code == 0)
        reserve_requests(op);
    exchange_shape(op, &op->agree_in.ready);
    return colio_op_post_agreement_n(op, COLIO_PH_READY, COLIO_WORDS(colio_ready_words_t));
}

static int by_peer(const void *a, const void *b)
{
    int pa = ((const colio_xchg_msg_t *)a)->peer, pb = ((const colio_xchg_msg_t *)b)->peer;
    return (pa > pb) - (pa < pb);
}

/* Run lists: every rank to the aggregators it has pieces for. */
static void start_meta_exchange(colio_op_t *op)
{
    colio_file *fh = op->fh;
    colio_plan_t *p = &op->plan;
    int ns = 0, nr = 0;
    for (int i = 0; i < p->naggs; i++)
        if (i != p->my_agg && p->to_agg[i].n > 0)
            p->msgs[ns++] = (colio_xchg_msg_t){p->aggs[i], (char *)p->to_agg[i].meta,
                                               colio_meta_bytes(p->meta_words, p->to_agg[i].n), MPI_BYTE,
                                               .ttype = MPI_BYTE};
    qsort(p->msgs, (size_t)ns, sizeof *p->msgs, by_peer);
    for (int s = 0; s < fh->nprocs && p->my_agg >= 0; s++)
        if (s != fh->rank && p->from_src[s].n > 0)
            p->msgs[ns + nr++] = (colio_xchg_msg_t){s, (char *)p->from_src[s].meta,
                                                    colio_meta_bytes(p->meta_words, p->from_src[s].n), MPI_BYTE,
                                                    (MPI_Aint)p->recv_counts[COLIO_COUNT_WORDS * s + COLIO_CW_META],
                                                    MPI_BYTE};
    colio_xchg_t *x = &op->meta; /* keeps the requests reserved in COUNTS */
    colio_op_xchg_setup(op, x, op->tag_meta, op->kern_meta, 1);
    x->rma_get = 1; /* one-sided: the aggregators get the lists the requesters expose */
    x->sends = p->msgs;
    x->nsends = ns;
    x->recvs = p->msgs + ns;
    x->nrecvs = nr;
    if (x->ops->start(x) != 0)
        colio_op_fail(op, COLIO_ERR_MPI, "metadata exchange (%s) failed to start", x->ops->name);
}

/* colio_exchange=auto for one exchange (exchange/auto.c), from the READY agreement: alike on every rank. */
static const colio_xchg_ops_t *auto_kernel(const colio_op_t *op, int64_t peers, int64_t msg_bytes)
{
    const colio_hints_t *h = &op->fh->hints;
    colio_xchg_auto_in_t in = {.peers = peers, .msg_bytes = msg_bytes, .fanin = h->auto_fanin,
                               .msg_max = h->auto_msg_max, .throttle_from = h->auto_throttle_from};
    return colio_xchg_auto(&in);
}

static void choose_kernels(colio_op_t *op)
{
    const colio_config_t *c = &op->fh->cfg;
    const colio_ready_words_t *w = &op->agree_out.ready;
    int64_t peers = -w->peers_neg, meta_bytes = -w->meta_bytes_neg, data_bytes = -w->data_bytes_neg;
    op->kern_meta = c->xchg_meta ? c->xchg_meta : auto_kernel(op, peers, meta_bytes);
    op->kern_data = c->xchg_data ? c->xchg_data : auto_kernel(op, peers, data_bytes);
    op->stats.max_fanin = peers;
}

int colio_step_ready(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    if (op->agree_out.err_key != 0) {
        colio_op_start_errmsg(op, op->agree_out.err_key);
        return COLIO_STEP_NEXT;
    }
    choose_kernels(op);
    if (op->reuse) { /* the aggregators have every list already */
        op->rnd.r = -1;
        op->phase = COLIO_PH_ROUND;
        return COLIO_STEP_NEXT;
    }
    start_meta_exchange(op);
    op->phase = COLIO_PH_META;
    return COLIO_STEP_NEXT;
}

int colio_step_meta(colio_op_t *op)
{
    int done = 0, rc = op->meta.ops->progress(&op->meta, &done);
    if (rc == COLIO_ERR_NOMEM)
        colio_op_fail(op, rc, "out of memory in the metadata exchange (%s)", op->meta.ops->name);
    else if (rc != 0)
        colio_op_fail(op, COLIO_ERR_MPI, "metadata exchange (%s) failed", op->meta.ops->name);
    done |= rc != 0;
    if (!done)
        return COLIO_STEP_WAIT;
    op->meta.ops->cleanup(&op->meta);
    op->rnd.r = -1;
    op->phase = COLIO_PH_ROUND;
    return COLIO_STEP_NEXT;
}

void colio_plan_free(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    if (op->meta.ops)
        op->meta.ops->cleanup(&op->meta);
    colio_xchg_free_reqs(&op->meta);
    memset(&op->meta, 0, sizeof op->meta);
    colio_op_give_array(op, COLIO_ARR_MSGS, p->msgs);
    p->msgs = NULL;
    colio_op_give_array(op, COLIO_ARR_ATTACHED, p->attached); /* detached already (colio_plan_detach) */
    p->attached = NULL;
    colio_op_give_array(op, COLIO_ARR_PAT_MINE, op->pat_mine);
    colio_op_give_array(op, COLIO_ARR_PAT_COUNTS, op->pat_counts);
    colio_op_give_array(op, COLIO_ARR_PAT_DISPLS, op->pat_displs);
    free(op->pat_all);
    op->pat_mine = op->pat_all = NULL, op->pat_counts = op->pat_displs = NULL;
    give_pattern_arrays(op); /* none left where the plan was stored or borrowed (keep_plan) */
    colio_plan_release(p, &op->fh->bufs);
}
