/*
 * Two-phase rounds, the part shared by reads and writes: choosing the next
 * round, cutting each list's slice for it on both sides, the aggregator's
 * coverage of its round extent, and driving the data exchange kernel.
 * Rounds are numbered per aggregator; a rank visits only the rounds in which
 * it has something to send or receive (every round with TAM), and messages
 * between a pair of ranks are matched in round order, so no collective is
 * needed per round.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "access/copy.h"
#include "base/charge.h"
#include "engine/arrays.h"
#include "engine/file.h"
#include "engine/round.h"
#include "engine/round_kind.h"
#include "engine/round_pipe.h"
#include "engine/round_slices.h"
#include "engine/step.h"


/*
 * The next round this rank takes part in: every round where the data
 * kernel says so (TAM: a local aggregator forwards its members' messages in
 * rounds it has nothing of its own in, and its members' headers flow every
 * round), else only the rounds it has messages in.
 */
static int64_t next_round(const colio_op_t *op)
{
    const colio_plan_t *p = &op->plan;
    int64_t best = INT64_MAX;
    if (colio_xchg_every_round(op->kern_data, op->plan.xctx, op->fh->rank))
        return op->rnd.r + 1 < p->dom.nrounds ? op->rnd.r + 1 : INT64_MAX;
    for (int i = 0; i < p->naggs; i++) {
        const colio_agg_list_t *l = &p->to_agg[i];
        if (i != p->my_agg && l->cur < l->n && l->st[l->scur].round < best)
            best = l->st[l->scur].round;
    }
    int64_t agg = colio_round_agg_next(op);
    return agg < best ? agg : best;
}

/* Where, modulo the page, the aggregator of list i keeps file offset off in round r (its buffers are page-aligned). */
static uintptr_t agg_cbuf_at(const colio_op_t *op, int i, int64_t r, int64_t off)
{
    int64_t rs, re;
    op->plan.dom.ops->round_extent(&op->plan.dom, i, r, &rs, &re);
    return (uintptr_t)(colio_round_read_shift(op, rs) + (off - rs)) % COLIO_COPY_PAGE;
}

/* File offset of the first run of a requester slice. */
static int64_t slice_off(const colio_op_t *op, const colio_slice_t *s)
{
    const colio_agg_list_t *l = &op->plan.to_agg[s->list];
    return colio_meta_off(l->meta, l->words, l->base, s->first);
}

/*
 * Where, modulo the page, MPI's copy of requester slice s (its buf in user
 * memory) reads from (source 1) or writes to (0): a read's goes from the
 * aggregator to the user, a write's the other way. (The aggregator of a
 * write whose pieces overlap receives into its staging buffer instead.)
 */
static uintptr_t copy_end(const colio_op_t *op, const colio_slice_t *s, int64_t r, int source)
{
    int from_agg = (op->args.kind == COLIO_OP_READ) == source;
    return from_agg ? agg_cbuf_at(op, s->list, r, slice_off(op, s)) : (uintptr_t)s->buf % COLIO_COPY_PAGE;
}

/*
 * A message that MPI would copy at a slow shift between user memory and the
 * aggregator's collective buffer (base/copy_shift.h: one kernel copy from 4
 * KiB). Reads meet it into memory 1-31 bytes past the file offset's
 * alignment (a program's large malloc'd buffer sits 16 bytes past a page,
 * the collective buffer at the file offset's alignment), writes from memory
 * 1-31 bytes before it (16 bytes before a page). Only one piece, sent
 * and received as one (derived datatypes and packed messages move
 * otherwise), between two processes of one node (across nodes the network
 * moves it), by a kernel that does not relay it through a third buffer. A
 * write whose ranks' pieces overlap lands in the aggregator's staging
 * buffer instead: there the detour only costs a copy. Returns the shift
 * from the copy's source to its destination, 0 when not slow.
 */
static unsigned slow_landing(const colio_op_t *op, const colio_slice_t *s, int64_t r)
{
    const colio_topo_t *t = &op->fh->topo_mpi;
    if (op->plan.rma_data || (op->kern_data->caps & COLIO_XCHG_RELAYED) || s->bytes < COLIO_XFER_ALIAS_MIN ||
        s->pieces != 1 || t->node_of[s->peer] != t->node_of[op->fh->rank])
        return 0;
    unsigned shift = colio_copy_shift(copy_end(op, s, r, 0), copy_end(op, s, r, 1));
    return colio_copy_slow_here(shift) ? shift : 0;
}

/*
 * The round's slices whose message MPI would copy slowly go through colio's
 * memory instead, each at the waypoint between the copy's source and its
 * destination (neither leg slow; where no place helps, at the source's
 * alignment: MPI's copy runs fast there and colio's own copies in pieces,
 * colio_copy_bytes): a read's lands there and is copied out at the round's
 * end, a write's is packed there first, like packed slices. Two-phase
 * reads of 1-4 MiB blocks into malloc'd memory took 0.48-0.62x the time,
 * writes from 16 bytes before a page 0.70-0.86x (colio-bench
 * --buffer-offset). Out of memory they move straight from or to user
 * memory as before.
 */
static void put_aside(colio_op_t *op, int64_t r)
{
    colio_round_t *rd = &op->rnd;
    int64_t bytes = 0;
    for (int i = 0; i < rd->nreq; i++)
        bytes += rd->req_slices[i].aside ? rd->req_slices[i].bytes + COLIO_COPY_PAGE : 0;
    if (bytes == 0)
        return;
    int ok = colio_round_buf_reserve(&op->fh->bufs, &rd->aside, &rd->aside_size, bytes) == 0;
    char *at = rd->aside;
    for (int i = 0; i < rd->nreq; i++) {
        colio_slice_t *s = &rd->req_slices[i];
        if (!s->aside || !ok) {
            s->aside = 0;
            continue;
        }
        uintptr_t way = copy_end(op, s, r, 1) + colio_copy_waypoint_here(s->aside);
        at += colio_copy_shift(way, (uintptr_t)at);
        s->buf = at;
        s->packed = 1;
        at += s->bytes;
        op->stats.detour_bytes += s->bytes;
    }
}

/* Requester side: my runs for every other aggregator in round r. */
static void cut_requester_slices(colio_op_t *op, int64_t r)
{
    colio_plan_t *p = &op->plan;
    colio_round_t *rd = &op->rnd;
    rd->nreq = 0;
    rd->pack_used = 0;
    for (int i = 0; i < p->naggs; i++) {
        colio_agg_list_t *l = &p->to_agg[i];
        if (i == p->my_agg || l->cur >= l->n || l->st[l->scur].round != r)
            continue;
        colio_slice_t *s = &rd->req_slices[rd->nreq++];
        *s = (colio_slice_t){.peer = p->aggs[i], .list = i, .first = l->cur, .contig = 1, .type = MPI_BYTE,
                             .ttype = MPI_BYTE};
        int64_t pos0 = l->st[l->scur].pos0;
        for (; l->scur < l->nst && l->st[l->scur].round == r; l->scur++) { /* the round's runs, summed by the split */
            const colio_list_stretch_t *t = &l->st[l->scur];
            s->contig &= t->contig && t->pos0 == pos0 + s->bytes;
            s->n += t->n, s->bytes += t->bytes, s->pieces += t->pieces;
        }
        l->cur += s->n;
        char *direct = s->contig ? colio_mem_contig(&op->mem, pos0, s->bytes) : NULL;
        if (direct) {
            s->buf = direct;
            s->aside = slow_landing(op, s, r);
        } else { /* sized in plan.c: never more than the packing buffer holds */
            s->buf = rd->pack + rd->pack_used;
            s->packed = 1;
            rd->pack_used += s->bytes;
        }
    }
    put_aside(op, r);
}

/* A read round whose bytes were read ahead (its coverage was made then). */
static int read_ahead_round(const colio_op_t *op)
{
    const colio_round_buf_t *b = &op->rnd.buf[op->rnd.cur];
    return op->rnd.pipelined && b->ahead && b->round == op->rnd.r;
}

/*
 * One source's runs inside the round extent: the slice's totals, whether
 * they are one file run, and (mark) their coverage. Inlined per metadata
 * format, so the loop over a million runs knows its record's size.
 */
static inline __attribute__((always_inline)) void take_source_runs(colio_round_t *rd, colio_src_list_t *l,
                                                                   colio_slice_t *s, int mark, int words)
{
    const int64_t *meta = l->meta, base = l->base;
    int64_t k = l->cur, next_off = colio_meta_off(meta, words, base, k), bytes = 0, pieces = 0;
    int contig = 1;
    for (; k < l->n; k++) {
        colio_run_t r = colio_meta_run(meta, words, base, k, 0);
        if (r.off >= rd->re)
            break;
        contig &= r.count == 1 && r.off == next_off; /* one file run */
        next_off = colio_run_end(&r);
        bytes += colio_run_bytes(&r);
        pieces += r.count;
        if (mark)
            colio_coverage_mark(&rd->cov, r.off, r.len, r.stride, r.count);
    }
    if (mark) /* the list is in file order: its first offset, its last end */
        colio_coverage_span(&rd->cov, colio_meta_off(meta, words, base, l->cur), next_off);
    s->n = k - l->cur, s->bytes = bytes, s->pieces = pieces, s->contig = contig;
    l->cur = k;
}

/* Aggregator side: every source's runs inside my round extent, and the coverage they make. */
static void cut_aggregator_slices(colio_op_t *op)
{
    colio_plan_t *p = &op->plan;
    colio_round_t *rd = &op->rnd;
    int cover = !read_ahead_round(op);
    rd->nagg = 0;
    if (cover)
        colio_round_coverage_begin(op, rd->r, rd->rs, rd->re);
    for (int src = 0; src < op->fh->nprocs; src++) {
        colio_src_list_t *l = &p->from_src[src];
        if (l->cur >= l->n || colio_meta_off(l->meta, l->words, l->base, l->cur) >= rd->re)
            continue;
        colio_slice_t *s = &rd->agg_slices[rd->nagg++];
        *s = (colio_slice_t){.peer = src, .list = src, .first = l->cur, .type = MPI_BYTE};
        int mark = cover && !op->io_failed;
        if (l->words == COLIO_META_PACKED_WORDS)
            take_source_runs(rd, l, s, mark, COLIO_META_PACKED_WORDS);
        else if (l->words == COLIO_META_PIECE_WORDS)
            take_source_runs(rd, l, s, mark, COLIO_META_PIECE_WORDS);
        else
            take_source_runs(rd, l, s, mark, COLIO_META_WORDS);
    }
}

/* Derived types of the round's messages are freed once the round is done. */
static void free_slice_types(colio_round_t *rd)
{
    for (int i = 0; i < rd->nagg; i++)
        if (rd->agg_slices[i].type != MPI_BYTE)
            MPI_Type_free(&rd->agg_slices[i].type), rd->agg_slices[i].type = MPI_BYTE;
    for (int i = 0; i < rd->nreq; i++) {
        colio_slice_t *s = &rd->req_slices[i];
        if (s->type != MPI_BYTE)
            MPI_Type_free(&s->type), s->type = MPI_BYTE;
        if (s->ttype != MPI_BYTE)
            MPI_Type_free(&s->ttype), s->ttype = MPI_BYTE;
    }
}

/* A failed data exchange: out of memory (a TAM local aggregator) or MPI. */
static void data_exchange_failed(colio_op_t *op, int rc)
{
    if (rc == COLIO_ERR_NOMEM)
        colio_op_fail(op, rc, "out of memory in the data exchange (%s)", op->rnd.x.ops->name);
    else
        colio_op_fail(op, COLIO_ERR_MPI, "data exchange (%s) failed", op->rnd.x.ops->name);
}

void colio_round_poke(colio_op_t *op)
{
    int done, rc;
    if (op->rnd.x.ops && (rc = op->rnd.x.ops->progress(&op->rnd.x, &done)) != 0)
        data_exchange_failed(op, rc);
}

#define COLIO_POKE_BYTES (512 << 10) /* local copying between two looks at the exchange */

/*
 * Runs [first, first + n) of my own list between the collective buffer and
 * a user stream contiguous at base: addresses by arithmetic, the copy
 * inline (a call per run to map the stream cost more than the bytes of the
 * climate maps' 13-byte pieces).
 */
static inline __attribute__((always_inline)) void own_runs_contig(colio_op_t *op, const colio_agg_list_t *l,
                                                                   int64_t first, int64_t n, int to_cbuf,
                                                                   int64_t *since, int words)
{
    char *cbuf = op->rnd.cbuf;
    int64_t rs = op->rnd.rs;
    colio_list_walk_t w = colio_list_walk_from(l, first);
    for (int64_t k = first; k < first + n; k++) {
        colio_run_t r = colio_list_next(l, &w, words);
        char *at = cbuf + (r.off - rs), *user = colio_addr(op->mem.base, r.pos);
        if (r.count == 1 && r.len <= 32) /* a small piece, the common case: no call (the strided copy is not inlined) */
            colio_copy_small(to_cbuf ? at : user, to_cbuf ? user : at, r.len);
        else if (to_cbuf)
            colio_copy_strided(at, r.stride, user, r.len, r.len, r.count);
        else
            colio_copy_strided(user, r.len, at, r.stride, r.len, r.count);
        if ((*since += colio_run_bytes(&r)) >= COLIO_POKE_BYTES) {
            colio_round_poke(op);
            *since = 0;
        }
    }
}

void colio_round_own_runs(colio_op_t *op, int to_cbuf)
{
    const colio_round_t *rd = &op->rnd;
    if (op->plan.my_agg < 0)
        return;
    const colio_agg_list_t *l = &op->plan.to_agg[op->plan.my_agg];
    int64_t since = 0;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        if (s->peer != op->fh->rank)
            continue;
        if (op->mem.flat == NULL && l->words == COLIO_META_PACKED_WORDS) {
            own_runs_contig(op, l, s->first, s->n, to_cbuf, &since, COLIO_META_PACKED_WORDS);
            continue;
        }
        if (op->mem.flat == NULL && l->words == COLIO_META_PIECE_WORDS) {
            own_runs_contig(op, l, s->first, s->n, to_cbuf, &since, COLIO_META_PIECE_WORDS);
            continue;
        }
        if (op->mem.flat == NULL) {
            own_runs_contig(op, l, s->first, s->n, to_cbuf, &since, COLIO_META_WORDS);
            continue;
        }
        colio_list_walk_t w = colio_list_walk_from(l, s->first);
        for (int64_t k = s->first; k < s->first + s->n; k++) {
            colio_run_t r = colio_list_next(l, &w, l->words);
            colio_round_cbuf_mem(op, &r, to_cbuf);
            if ((since += colio_run_bytes(&r)) >= COLIO_POKE_BYTES) {
                colio_round_poke(op);
                since = 0;
            }
        }
    }
}

/*
 * One-sided data: where a requester slice lives in its aggregator's
 * collective buffer. The aggregator holds file bytes [rs, re) of its round r
 * at the address it sent with the counts; one contiguous file stretch is a
 * displacement, anything else a datatype of the runs relative to rs.
 */
static void rma_target(colio_op_t *op, colio_slice_t *s)
{
    const colio_plan_t *p = &op->plan;
    const colio_agg_list_t *l = &p->to_agg[s->list];
    int64_t rs, re, next = -1;
    p->dom.ops->round_extent(&p->dom, s->list, op->rnd.r, &rs, &re);
    MPI_Aint base = (MPI_Aint)p->recv_counts[COLIO_COUNT_WORDS * s->peer + COLIO_CW_CBUF];
    int contig = 1;
    for (int64_t k = s->first; k < s->first + s->n && contig; k++) {
        colio_run_t run = colio_meta_run(l->meta, l->words, l->base, k, 0);
        contig = (next < 0 || run.off == next) && colio_run_end(&run) - run.off == colio_run_bytes(&run);
        next = colio_run_end(&run);
    }
    base += (MPI_Aint)colio_round_read_shift(op, rs); /* where the aggregator put file offset rs */
    s->ttype = MPI_BYTE;
    s->tdisp = base + (MPI_Aint)(colio_meta_off(l->meta, l->words, l->base, s->first) - rs);
    if (contig)
        return;
    if (s->n > INT_MAX || s->bytes > ((int64_t)1 << 30) ||
        colio_runs_type(l->meta, l->words, l->base, s->first, s->n, rs, &s->ttype) != 0) {
        s->ttype = MPI_BYTE;
        colio_op_fail(op, COLIO_ERR_NOMEM, "cannot describe %lld runs to aggregator %d as a datatype",
                      (long long)s->n, s->peer);
        s->tdisp = base; /* keeps peers matched: bytes land wrong, the error is agreed at the end */
        return;
    }
    s->tdisp = base;
}

static int by_peer(const void *a, const void *b)
{
    int pa = ((const colio_xchg_msg_t *)a)->peer, pb = ((const colio_xchg_msg_t *)b)->peer;
    return (pa > pb) - (pa < pb);
}

/* Messages of the round: requester slices one way, aggregator slices the other. */
static void start_data_exchange(colio_op_t *op)
{
    colio_file *fh = op->fh;
    colio_round_t *rd = &op->rnd;
    colio_xchg_msg_t *req = op->plan.msgs, *agg;
    int nreq = 0, nagg = 0;
    for (int i = 0; i < rd->nreq; i++) {
        colio_slice_t *s = &rd->req_slices[i];
        op->stats.work_runs += s->n, op->stats.work_pieces += s->pieces;
        op->stats.work_bytes += s->packed ? s->bytes : 0;
        if (op->plan.rma_data)
            rma_target(op, s);
        req[nreq++] = (colio_xchg_msg_t){s->peer, s->buf, s->bytes, s->type, s->tdisp, s->ttype};
    }
    qsort(req, (size_t)nreq, sizeof *req, by_peer);
    agg = req + nreq;
    for (int i = 0; i < rd->nagg; i++) {
        const colio_slice_t *s = &rd->agg_slices[i];
        op->stats.work_runs += s->n, op->stats.work_pieces += s->pieces;
        op->stats.work_bytes += s->packed || s->peer == fh->rank ? s->bytes : 0; /* (own runs: copied below) */
        if (s->peer != fh->rank)
            agg[nagg++] = (colio_xchg_msg_t){s->peer, s->buf, s->bytes, s->type, 0, MPI_BYTE};
    }
    int write = op->args.kind == COLIO_OP_WRITE;
    colio_xchg_t *x = &rd->x;
    colio_op_xchg_setup(op, x, op->tag_data, op->kern_data, write);
    x->rma_get = !write; /* one-sided: requesters put their writes, get their reads */
    x->sends = write ? req : agg;
    x->nsends = write ? nreq : nagg;
    x->recvs = write ? agg : req;
    x->nrecvs = write ? nagg : nreq;
    for (int i = 0; i < x->nsends; i++)
        op->stats.sent_bytes += x->sends[i].len;
    for (int i = 0; i < x->nrecvs; i++)
        op->stats.recv_bytes += x->recvs[i].len;
    colio_charge(&op->stats, &op->charged); /* the packing is done before the messages leave */
    if (x->ops->start(x) != 0)
        colio_op_fail(op, COLIO_ERR_MPI, "data exchange (%s) failed to start", x->ops->name);
}

int colio_step_round(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    int64_t r = next_round(op);
    if (!colio_round_pipe_ready(op, r, colio_round_agg_next(op) == r))
        return COLIO_STEP_WAIT; /* a storage job must finish first: op->io_wait says which */
    rd->cbuf = rd->buf[rd->cur].mem; /* moved to the round's alignment once its extent is known */
    if (r == INT64_MAX) {
        op->phase = COLIO_PH_FINAL;
        return COLIO_STEP_NEXT;
    }
    rd->r = r;
    op->stats.rounds++;
    cut_requester_slices(op, r);
    rd->nagg = 0;
    if (op->plan.my_agg >= 0) {
        op->plan.dom.ops->round_extent(&op->plan.dom, op->plan.my_agg, r, &rd->rs, &rd->re);
        if (rd->rs > rd->re) /* a dense round past my share: empty, no I/O */
            rd->rs = rd->re;
        rd->cbuf += colio_round_read_shift(op, rd->rs);
        cut_aggregator_slices(op);
    }
    if (op->args.kind == COLIO_OP_WRITE)
        colio_round_write_begin(op);
    else
        colio_round_read_begin(op);
    colio_round_fetch_submit(op);
    op->phase = COLIO_PH_ROUND_FETCH;
    return colio_step_round_fetch(op); /* at once: usually nothing is in flight */
}

/* The round's storage read done (if it had one): the exchange starts. */
int colio_step_round_fetch(colio_op_t *op)
{
    op->io_wait = NULL;
    if (!colio_round_fetch_done(op))
        return COLIO_STEP_WAIT; /* op->io_wait: the fetch job */
    if (op->args.kind == COLIO_OP_READ)
        colio_round_read_fetched(op);
    start_data_exchange(op);
    /* the aggregator's own pieces while the messages move */
    colio_round_own_runs(op, op->args.kind == COLIO_OP_WRITE);
    op->phase = COLIO_PH_ROUND_XCHG;
    return COLIO_STEP_NEXT;
}

int colio_step_round_xchg(colio_op_t *op)
{
    colio_xchg_t *x = &op->rnd.x;
    int done = 0;
    int rc = x->ops->progress(x, &done);
    if (rc != 0) {
        data_exchange_failed(op, rc);
        done = 1;
    }
    if (!done)
        return COLIO_STEP_WAIT;
    x->ops->cleanup(x);
    if (op->args.kind == COLIO_OP_WRITE)
        colio_round_write_end(op);
    else
        colio_round_read_end(op);
    free_slice_types(&op->rnd);
    op->phase = COLIO_PH_ROUND;
    return COLIO_STEP_NEXT;
}

void colio_round_free(colio_op_t *op)
{
    colio_round_t *rd = &op->rnd;
    if (rd->x.ops)
        rd->x.ops->cleanup(&rd->x);
    colio_xchg_free_reqs(&rd->x);
    if (rd->agg_slices && rd->req_slices)
        free_slice_types(rd);
    colio_pool_t *bufs = &op->fh->bufs;
    colio_round_pipe_free(op); /* the collective buffers, once no job uses them */
    colio_pool_buf_give(bufs, rd->pack, rd->pack_cap);
    colio_pool_buf_give(bufs, rd->agg_pack, (size_t)rd->agg_pack_size);
    colio_pool_buf_give(bufs, rd->aside, (size_t)rd->aside_size);
    colio_pool_buf_give(bufs, rd->cov.bits, sizeof *rd->cov.bits * (size_t)rd->cov.cap_words);
    rd->cov.bits = NULL;
    colio_op_give_array(op, COLIO_ARR_REQ_SLICES, rd->req_slices);
    colio_op_give_array(op, COLIO_ARR_AGG_SLICES, rd->agg_slices);
    colio_coverage_free(&rd->cov);
    memset(rd, 0, sizeof *rd);
}
