/*
 * The operation state machine: driver, the local INIT step, the SETUP
 * agreement, the FINAL error agreement and the end of an operation.
 */
#include "base/pool.h"
#include "base/clock.h"
#include "base/status.h"
#include "engine/op.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "engine/express.h"
#include "engine/file.h"
#include "engine/order.h"
#include "engine/plancache.h"
#include "engine/progress.h"
#include "engine/stats.h"
#include "engine/strategy.h"

typedef int (*colio_step_fn_t)(colio_op_t *op);

static const colio_step_fn_t steps[COLIO_PH_COUNT_] = {
    [COLIO_PH_INIT] = colio_step_init,
    [COLIO_PH_START] = colio_step_start,
    [COLIO_PH_PROPOSE] = colio_step_propose,
    [COLIO_PH_SETUP] = colio_step_setup,
    [COLIO_PH_EOF] = colio_step_eof,
    [COLIO_PH_STAGE] = colio_step_stage,
    [COLIO_PH_GATE] = colio_step_gate,
    [COLIO_PH_DIRECT] = colio_step_direct,
    [COLIO_PH_PLAN] = colio_step_plan,
    [COLIO_PH_PATTERN_COUNTS] = colio_step_pattern_counts,
    [COLIO_PH_PATTERN] = colio_step_pattern,
    [COLIO_PH_COUNTS_SENDERS] = colio_step_counts_senders,
    [COLIO_PH_COUNTS_MSGS] = colio_step_counts_msgs,
    [COLIO_PH_COUNTS] = colio_step_counts,
    [COLIO_PH_READY] = colio_step_ready,
    [COLIO_PH_META] = colio_step_meta,
    [COLIO_PH_ROUND] = colio_step_round,
    [COLIO_PH_ROUND_FETCH] = colio_step_round_fetch,
    [COLIO_PH_ROUND_XCHG] = colio_step_round_xchg,
    [COLIO_PH_FINAL] = colio_step_final,
    [COLIO_PH_FINAL_WAIT] = colio_step_final_wait,
    [COLIO_PH_ERRMSG] = colio_step_errmsg,
};

/*
 * Zero op but for the members set up where they are first used: zeroing all
 * of its 5 KB was the largest single cost of a small call before its I/O.
 */
static void zero_op(colio_op_t *op)
{
    static const struct {
        size_t at, len;
    } skip[] = {
        /* the error message: "" is all a code of 0 needs (colio_err_set writes it whole) */
        {offsetof(colio_op_t, err.msg) + 1, sizeof op->err.msg - 1},
        {offsetof(colio_op_t, coll), sizeof op->coll}, /* colio_coll_init, below */
        /* the rounds' state but for the INIT arrays it holds: colio_round_state_zero when PLAN starts */
        {offsetof(colio_op_t, rnd), offsetof(colio_round_t, req_slices)},
        {offsetof(colio_op_t, dir.jobs), sizeof op->dir.jobs}, /* free_job (direct.c), one job at a time */
    };
    size_t from = 0;
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) {
        memset((char *)op + from, 0, skip[i].at - from);
        from = skip[i].at + skip[i].len;
    }
    memset((char *)op + from, 0, sizeof *op - from);
}

_Static_assert(offsetof(colio_op_t, err) < offsetof(colio_op_t, coll) &&
                   offsetof(colio_op_t, coll) < offsetof(colio_op_t, rnd) &&
                   offsetof(colio_op_t, rnd) < offsetof(colio_op_t, dir),
               "zero_op skips members in their order in colio_op_t");

void colio_round_state_zero(colio_op_t *op)
{
    memset(&op->rnd, 0, offsetof(colio_round_t, req_slices));
}

/*
 * Tags of their own for both exchanges and the agreements of each operation,
 * so consecutive operations on one communicator never match (2048 tag slots * 9
 * tags stays under the smallest MPI_TAG_UB an implementation may have, 32767).
 */
static int tag_slot(int64_t seq) { return (int)(seq % 2048); }

int colio_op_agreement_tag(int64_t seq) { return 2 * COLIO_XCHG_TAGS * 2048 + 1 + tag_slot(seq); }

/* op, zeroed, as operation number seq of the file (engine/order.h). */
static void init_numbered(colio_op_t *op, colio_file *fh, const colio_op_args_t *args, int64_t seq)
{
    zero_op(op);
    op->fh = fh;
    op->args = *args;
    op->phase = COLIO_PH_INIT;
    op->plan.my_agg = -1;
    op->comm = fh->comm;
    colio_order_join(fh, op, seq);
    int slot = tag_slot(op->seq);
    op->tag_meta = 2 * COLIO_XCHG_TAGS * slot + 1;
    op->tag_data = op->tag_meta + COLIO_XCHG_TAGS;
    op->tag_counts = 2 * COLIO_XCHG_TAGS * 2048 + 1 + 2048 + slot; /* after the agreements' 2048 */
    colio_coll_init(&op->coll, fh->cfg.coll, colio_op_agreement_tag(op->seq), fh->agree_shm);
    op->t_start = colio_clock_now();
}

void colio_op_init(colio_op_t *op, colio_file *fh, const colio_op_args_t *args)
{
    init_numbered(op, fh, args, colio_order_next(fh));
}

int colio_op_step(colio_op_t *op) { return steps[op->phase](op); }

void colio_op_waitset(colio_op_t *op, MPI_Request **reqs, int *n)
{
    switch (op->phase) {
    case COLIO_PH_META:
        *reqs = op->meta.reqs, *n = op->meta.nreqs;
        return;
    case COLIO_PH_ROUND_XCHG:
        *reqs = op->rnd.x.reqs, *n = op->rnd.x.nreqs;
        return;
    case COLIO_PH_COUNTS_MSGS:
        *reqs = op->counts.reqs, *n = op->counts.nreq;
        return;
    default: /* agreements: their requests live in op->coll */
        *reqs = NULL, *n = 0;
    }
}

/* Does the current phase wait for an agreement (op->coll)? */
static int in_agreement(const colio_op_t *op)
{
    switch (op->phase) {
    case COLIO_PH_SETUP:
    case COLIO_PH_EOF:
    case COLIO_PH_PATTERN_COUNTS:
    case COLIO_PH_PATTERN:
    case COLIO_PH_COUNTS_SENDERS:
    case COLIO_PH_COUNTS:
    case COLIO_PH_READY:
    case COLIO_PH_FINAL_WAIT:
    case COLIO_PH_ERRMSG:
        return 1;
    default:
        return 0;
    }
}

/* Where the time of a phase goes in the statistics. */
static double *phase_clock(colio_op_t *op, colio_phase_t ph)
{
    colio_phase_times *t = &op->stats.time;
    switch (ph) {
    case COLIO_PH_INIT:
    case COLIO_PH_START:
    case COLIO_PH_PROPOSE:
    case COLIO_PH_PLAN:
    case COLIO_PH_ROUND:
    case COLIO_PH_ROUND_FETCH:
    case COLIO_PH_DIRECT:
    case COLIO_PH_STAGE:
        return &t->compute;
    case COLIO_PH_ROUND_XCHG:
        return &t->data_exchange;
    default:
        return &t->meta_exchange;
    }
}

/* The exchange the current phase runs, if any. */
static colio_xchg_t *current_exchange(colio_op_t *op)
{
    if (op->phase == COLIO_PH_META)
        return &op->meta;
    return op->phase == COLIO_PH_ROUND_XCHG ? &op->rnd.x : NULL;
}

/* Block until the current phase can move: all of its requests, or some when the kernel reacts to each. */
static void wait_phase(colio_op_t *op)
{
    if (colio_op_io_pending(op)) {
        colio_op_io_wait(op);
        return;
    }
    colio_xchg_t *x = current_exchange(op);
    if (x && x->wait_any) {
        if (colio_xchg_waitsome(x) != 0)
            colio_err_from_mpi(&op->err, MPI_ERR_OTHER, "MPI_Waitsome");
        return;
    }
    if (in_agreement(op)) {
        int rc = colio_coll_wait(&op->coll);
        if (rc != MPI_SUCCESS)
            colio_err_from_mpi(&op->err, rc, "collective agreement");
        return;
    }
    MPI_Request *reqs;
    int n;
    colio_op_waitset(op, &reqs, &n);
    int rc = n > 0 ? MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        colio_err_from_mpi(&op->err, rc, "MPI_Waitall");
}

/*
 * The clock now, or the reading of kind the step machinery just made, which
 * nothing has run since (blocking operations only: a nonblocking one may
 * sit between its steps while the program computes). A 64-byte call read
 * the clock about ten times, 20 ns each.
 */
static double clock_now(colio_op_t *op, colio_handoff_t kind)
{
    int handed = op->handoff == kind;
    op->handoff = COLIO_HANDOFF_NONE;
    return handed ? op->t_handoff : colio_clock_now();
}

static void clock_hand_on(colio_op_t *op, colio_handoff_t kind, double t)
{
    op->handoff = op->nonblocking ? COLIO_HANDOFF_NONE : kind;
    op->t_handoff = t;
}

void colio_op_wait_phase(colio_op_t *op)
{
    double t0 = clock_now(op, COLIO_HANDOFF_TO_WAIT), io0 = op->stats.time.io;
    double *clock = phase_clock(op, op->phase);
    wait_phase(op);
    double t1 = colio_clock_now();
    *clock += t1 - t0 - (op->stats.time.io - io0); /* storage waits are counted as io only */
    clock_hand_on(op, COLIO_HANDOFF_FROM_WAIT, t1);
}

int colio_op_blocks_on_own(colio_op_t *op)
{
    MPI_Request *reqs;
    int n;
    colio_op_waitset(op, &reqs, &n);
    return n > 0 || in_agreement(op) || current_exchange(op) != NULL || colio_op_io_pending(op);
}

int colio_op_waits_on_messages(colio_op_t *op)
{
    return !colio_op_io_pending(op) &&
           (in_agreement(op) || current_exchange(op) != NULL || op->phase == COLIO_PH_COUNTS_MSGS);
}

/* Where a stretch of steps began: the clock and the storage time counted so far. */
typedef struct colio_clock_mark {
    double t, io;
} colio_clock_mark_t;

static colio_clock_mark_t clock_mark(const colio_op_t *op, double t) { return (colio_clock_mark_t){t, op->stats.time.io}; }

/*
 * One step, its time charged to the phase it ran in (storage time is
 * counted apart). Consecutive steps whose phases share a clock are one
 * stretch: the clock is read when the stretch ends (a wait, the end, or a
 * phase on another clock), so a small call reads it a few times only (it
 * was a tenth of such a call's CPU time).
 */
static int timed_step(colio_op_t *op, colio_clock_mark_t *m)
{
    colio_phase_t ph = op->phase;
    int rc = colio_op_step(op);
    double *clock = phase_clock(op, ph);
    if (rc != COLIO_STEP_WAIT && op->phase != COLIO_PH_DONE && phase_clock(op, op->phase) == clock)
        return rc;
    double t1 = colio_clock_now();
    *clock += t1 - m->t - (op->stats.time.io - m->io);
    *m = clock_mark(op, t1);
    if (rc == COLIO_STEP_WAIT || op->phase == COLIO_PH_DONE) /* the wait's start, or the operation's end */
        clock_hand_on(op, rc == COLIO_STEP_WAIT ? COLIO_HANDOFF_TO_WAIT : COLIO_HANDOFF_AT_DONE, t1);
    return rc;
}

/* The clock at the start of a stretch: an operation's first step starts when the operation did. */
static colio_clock_mark_t first_mark(colio_op_t *op)
{
    if (op->phase == COLIO_PH_INIT)
        return clock_mark(op, op->t_start);
    return clock_mark(op, clock_now(op, COLIO_HANDOFF_FROM_WAIT));
}

int colio_op_advance(colio_op_t *op)
{
    int moved = 0;
    colio_clock_mark_t m = first_mark(op);
    while (op->phase != COLIO_PH_DONE) {
        colio_phase_t ph = op->phase;
        int rc = timed_step(op, &m);
        moved += op->phase != ph;
        if (rc == COLIO_STEP_WAIT)
            break;
    }
    return moved;
}

int colio_op_run(colio_op_t *op)
{
    colio_clock_mark_t m = first_mark(op);
    while (op->phase != COLIO_PH_DONE)
        if (timed_step(op, &m) == COLIO_STEP_WAIT) {
            colio_op_wait_phase(op);
            m = first_mark(op);
        }
    return op->err.code;
}

/* ---- helpers ------------------------------------------------------------------ */

void colio_op_xchg_setup(colio_op_t *op, colio_xchg_t *x, int tag, const colio_xchg_ops_t *ops, int to_aggs)
{
    colio_file *fh = op->fh;
    x->comm = op->comm;
    x->tag = tag;
    x->rank = fh->rank;
    x->nprocs = fh->nprocs;
    x->topo = &fh->cfg.topo;
    x->ctx = op->plan.xctx ? op->plan.xctx : &fh->cfg.set.xctx;
    x->ops = ops;
    x->to_aggs = to_aggs;
    x->win = fh->cfg.has_win ? fh->cfg.win : MPI_WIN_NULL;
}

int colio_op_fail(colio_op_t *op, int code, const char *fmt, ...)
{
    if (op->err.code != 0)
        return op->err.code;
    char detail[COLIO_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return colio_err_set(&op->err, code, "%s: %s", op->args.api, detail);
}

void colio_op_io_error(colio_op_t *op, int neg_errno, const char *what, int64_t off, int64_t len)
{
    int e = -neg_errno;
    char where[COLIO_ERRMSG_LEN / 2] = "";
    const colio_store_ops_t *store = op->fh->store;
    if (store->where && op->fh->st) { /* a subfiled file: name the subfile too */
        where[0] = ' ', where[1] = '(';
        store->where(op->fh->st, off, len, where + 2, sizeof where - 3);
        strcat(where, ")");
    }
    op->io_failed = 1;
    colio_op_fail(op, colio_err_from_errno(e), "%s: %s of %lld bytes at offset %lld%s failed: %s (errno %d)",
                  op->fh->path, what, (long long)len, (long long)off, where, strerror(e), e);
}

/* ---- storage jobs ------------------------------------------------------------- */

int colio_op_submit_job(colio_op_t *op, colio_exec_job_t *job, int background)
{
    colio_file *fh = op->fh;
    if (!background) { /* a blocking call with nothing to do meanwhile: a hand-off would only cost */
        colio_exec_job_run(job);
        return 0;
    }
    if (!fh->exec) { /* held from the first job until the file closes or changes hints (api/file.c) */
        fh->exec = colio_exec_pick(fh->hints.io_executor);
        colio_exec_hold(fh->exec, fh->hints.io_threads);
    }
    if (colio_exec_submit(fh->exec, job) == 0) {
        op->stats.io_jobs_handed++;
        return 1;
    }
    colio_exec_job_run(job); /* no executor took it (inline): here, as a synchronous call would */
    return 0;
}

int colio_op_job_done(colio_op_t *op, colio_exec_job_t *job)
{
    (void)op;
    return colio_exec_done(job);
}

void colio_op_fold_job(colio_op_t *op, colio_exec_job_t *job, int ran_here)
{
    op->stats.io_calls += job->calls_made;
    op->stats.io_bytes += job->bytes;
    if (ran_here)
        op->stats.time.io += job->seconds;
    else if (!job->ran_by_caller && !job->waited) /* a wait counted the time it waited as io */
        op->stats.time.io_async += job->seconds;
    if (job->rc != 0) {
        const colio_exec_call_t *c = &job->calls[job->failed_call];
        colio_op_io_error(op, job->rc, job->kind == COLIO_EXEC_WRITE ? "write" : "read", c->off, c->len);
    }
}

int colio_op_io_pending(const colio_op_t *op) { return op->io_wait != NULL; }

void colio_op_io_wait(colio_op_t *op)
{
    double t0 = colio_clock_now();
    op->io_wait->waited = 1;
    colio_exec_wait(op->io_wait); /* folded by the next step */
    op->stats.time.io += colio_clock_now() - t0;
    op->io_wait = NULL;
}

int colio_op_test_coll(colio_op_t *op, int *done_p)
{
    int rc = colio_coll_test(&op->coll, done_p);
    if (rc != MPI_SUCCESS) {
        colio_err_from_mpi(&op->err, rc, "collective agreement");
        op->coll_failed = 1;
        *done_p = 1;
    }
    return *done_p ? COLIO_STEP_NEXT : COLIO_STEP_WAIT;
}

/* ---- INIT: validate and list this rank's pieces -------------------------------- */

static int check_mode(colio_op_t *op)
{
    int amode = op->fh->amode;
    if (op->args.kind == COLIO_OP_WRITE && (amode & MPI_MODE_RDONLY))
        return colio_op_fail(op, COLIO_ERR_READONLY, "%s was opened read-only", op->fh->path);
    if (op->args.kind == COLIO_OP_READ && (amode & MPI_MODE_WRONLY))
        return colio_op_fail(op, COLIO_ERR_ACCESS, "%s was opened write-only", op->fh->path);
    return 0;
}

/* Memory side: flatten the memtype and describe the user's stream. */
static int init_memory(colio_op_t *op)
{
    const colio_op_args_t *a = &op->args;
    colio_file *fh = op->fh;
    if (a->count < 0)
        return colio_op_fail(op, COLIO_ERR_ARG, "negative count %lld", (long long)a->count);
    colio_err_t e;
    colio_err_clear(&e);
    int known = (op->memflat = colio_flat_named(a->memtype)) != NULL; /* valid, flattened before */
    op->memflat_owned = 0;
    if (!known && (colio_type_check(a->memtype, fh->comm, "memtype", &e) != 0 ||
                   colio_flat_get(a->memtype, &op->memflat, &op->memflat_owned, &e) != 0))
        return colio_op_fail(op, e.code, "%s", e.msg);
    const colio_flat_t *f = op->memflat;
    if (f->size > 0 && a->count > INT64_MAX / f->size)
        return colio_op_fail(op, COLIO_ERR_ARG, "count * type size overflows 64 bits");
    op->nbytes = a->count * f->size;
    /* NULL is MPI_BOTTOM: valid with a derived memtype of absolute addresses */
    if (op->nbytes > 0 && a->buf == NULL && colio_type_is_predefined(a->memtype))
        return colio_op_fail(op, COLIO_ERR_ARG, "NULL buffer with %lld bytes to move", (long long)op->nbytes);
    op->mem.base = a->buf;
    op->mem.flat = f;
    const colio_run_t *r0 = f->runs.n ? &f->runs.r[0] : NULL;
    if (f->runs.n == 1 && r0->count == 1 && (a->count == 1 || colio_flat_dense(f))) { /* the stream is one stretch */
        op->mem.base = colio_addr(a->buf, r0->off);
        op->mem.flat = NULL;
    }
    return 0;
}

static int init_access(colio_op_t *op)
{
    const colio_op_args_t *a = &op->args;
    colio_file *fh = op->fh;
    colio_err_t e;
    colio_err_clear(&e);
    if (a->list) {
        if (colio_access_from_list(a->nlist, a->offsets, a->lengths, &op->acc, &e) != 0)
            return colio_op_fail(op, e.code, "%s", e.msg);
        op->nbytes = op->acc.nbytes;
        op->mem.base = a->buf;
        if (op->nbytes > 0 && a->buf == NULL)
            return colio_op_fail(op, COLIO_ERR_ARG, "NULL buffer with %lld bytes to move", (long long)op->nbytes);
        return 0;
    }
    int rc = init_memory(op);
    if (rc != 0)
        return rc;
    if (op->nbytes % fh->view.etype_size != 0)
        return colio_op_fail(op, COLIO_ERR_TYPE, "%lld bytes is not a whole number of etypes (%lld bytes each)",
                             (long long)op->nbytes, (long long)fh->view.etype_size);
    int64_t start = a->use_fp ? fh->fp : a->offset;
    if (colio_access_from_view(&fh->view, start, op->nbytes, &op->acc, &e) != 0)
        return colio_op_fail(op, e.code, "%s", e.msg);
    return 0;
}

/* Bytes of an INIT array of kind (base/pool.h) for this operation's ranks and aggregators. */
static size_t array_bytes_of(const colio_op_t *op, int kind)
{
    size_t np = (size_t)op->fh->nprocs, na = (size_t)op->arr_naggs;
    switch (kind) {
    case COLIO_ARR_SEND_COUNTS:
    case COLIO_ARR_RECV_COUNTS:
        return COLIO_COUNT_WORDS * np * sizeof(int64_t);
    case COLIO_ARR_TO_AGG:
        return na * sizeof(colio_agg_list_t);
    case COLIO_ARR_FROM_SRC:
        return np * sizeof(colio_src_list_t);
    case COLIO_ARR_MSGS:
        return (np + na) * sizeof(colio_xchg_msg_t);
    case COLIO_ARR_ATTACHED:
        return (na + 1) * sizeof(void *);
    case COLIO_ARR_REQ_SLICES:
        return na * sizeof(colio_slice_t);
    case COLIO_ARR_AGG_SLICES:
        return np * sizeof(colio_slice_t);
    case COLIO_ARR_PAT_MINE:
    case COLIO_ARR_CNT_SENDERS:
        return 2 * na * sizeof(int64_t);
    case COLIO_ARR_CNT_MSG:
        return COLIO_COUNTS_MSG_WORDS * (np + na) * sizeof(int64_t);
    case COLIO_ARR_CNT_REQS:
        return (np + na) * sizeof(MPI_Request);
    default: /* COLIO_ARR_PAT_COUNTS, COLIO_ARR_PAT_DISPLS */
        return np * sizeof(int);
    }
}

/* All of them, worked out once per file and aggregator count: a small call takes and gives all fourteen. */
static const size_t *array_sizes(const colio_op_t *op)
{
    colio_file *fh = op->fh;
    if (fh->arr_bytes_for != op->arr_naggs + 1) {
        for (int k = 0; k < COLIO_ARR_KINDS; k++)
            fh->arr_bytes[k] = array_bytes_of(op, k);
        fh->arr_bytes_for = op->arr_naggs + 1;
    }
    return fh->arr_bytes;
}

static size_t array_bytes(const colio_op_t *op, int kind) { return array_sizes(op)[kind]; }

void colio_op_give_array(colio_op_t *op, int kind, void *p)
{
    colio_pool_array_give(&op->fh->bufs, kind, p, array_bytes(op, kind));
}

/* Where each INIT array lives in the operation, indexed by its kind (base/pool.h's order). */
static void init_array_places(colio_op_t *op, void **places[COLIO_ARR_KINDS])
{
    colio_plan_t *p = &op->plan;
    void **all[] = {(void **)&p->send_counts, (void **)&p->recv_counts, (void **)&p->to_agg,
                    (void **)&p->from_src, (void **)&p->msgs, (void **)&p->attached,
                    (void **)&op->rnd.req_slices, (void **)&op->rnd.agg_slices, (void **)&op->pat_mine,
                    (void **)&op->pat_counts, (void **)&op->pat_displs, (void **)&op->counts.senders,
                    (void **)&op->counts.msg, (void **)&op->counts.reqs};
    _Static_assert(sizeof all / sizeof all[0] == COLIO_ARR_KINDS, "every INIT array, in base/pool.h's order");
    memcpy(places, all, sizeof all);
}

/* The kinds to take: the sparse counts step's arrays only where that step may run. */
static unsigned init_array_kinds(const colio_file *fh)
{
    unsigned all = (1u << COLIO_ARR_KINDS) - 1, sparse_only = all & ~((1u << COLIO_ARR_CNT_SENDERS) - 1);
    return colio_counts_may_be_sparse(fh) ? all : all & ~sparse_only;
}

/* What names the INIT arrays' kinds and sizes in the file's cache (their sizes follow from arr_naggs). */
static uint64_t init_arrays_key(const colio_op_t *op)
{
    return (uint64_t)op->arr_kinds << 32 | (uint32_t)(op->arr_naggs + 1);
}

/*
 * Arrays whose size depends only on nprocs and naggs, taken before any
 * collective (kept between calls): their memory too is agreed at SETUP.
 * The set the call before gave back unused is only reserved here, and
 * taken once the call turns out to need it (take_reserved_arrays): a
 * direct or early call never touches it.
 */
static void init_arrays_shape(colio_op_t *op)
{
    const colio_config_t *c = &op->fh->cfg;
    op->arr_naggs = c->set.naggs > c->wide.naggs ? c->set.naggs : c->wide.naggs;
    op->arr_kinds = init_array_kinds(op->fh);
}

static int init_plan_memory(colio_op_t *op)
{
    init_arrays_shape(op);
    const size_t *sizes = array_sizes(op);
    if (colio_pool_array_reserve_set(&op->fh->bufs, init_arrays_key(op), op))
        return 0;
    void **places[COLIO_ARR_KINDS];
    init_array_places(op, places);
    if (colio_pool_array_take_set(&op->fh->bufs, op->arr_kinds, sizes, places))
        return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for %d ranks", op->fh->nprocs);
    return 0;
}

/*
 * The reserved INIT arrays, taken for a call that plans. They cannot be
 * missing: while reserved no other operation takes them (base/pool.h).
 */
static void take_reserved_arrays(colio_op_t *op)
{
    if (!colio_pool_array_release_set(&op->fh->bufs, op))
        return;
    void **places[COLIO_ARR_KINDS];
    init_array_places(op, places);
    int missing = colio_pool_array_take_set(&op->fh->bufs, op->arr_kinds, array_sizes(op), places);
    assert(!missing);
    (void)missing;
}

_Static_assert(offsetof(colio_setup_words_t, extent_sum) == COLIO_SETUP_MIN * sizeof(int64_t) &&
                   sizeof(colio_setup_words_t) == COLIO_SETUP_WORDS * sizeof(int64_t),
               "SETUP: the MIN words first, then the SUM words");

/* The SETUP reduction: MIN of the first COLIO_SETUP_MIN words, saturating SUM of the rest (op.h). */
static void setup_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int64_t *a = in;
    int64_t *b = inout;
    for (int k = 0; k + COLIO_SETUP_WORDS <= *len; k += COLIO_SETUP_WORDS) {
        for (int i = 0; i < COLIO_SETUP_MIN; i++)
            b[k + i] = a[k + i] < b[k + i] ? a[k + i] : b[k + i];
        for (int i = COLIO_SETUP_MIN; i < COLIO_SETUP_WORDS; i++) /* saturating: extents of many ranks */
            if (__builtin_add_overflow(b[k + i], a[k + i], &b[k + i]))
                b[k + i] = INT64_MAX;
    }
}

MPI_Op colio_setup_op(void)
{
    static MPI_Op op = MPI_OP_NULL; /* created once, lives until MPI_Finalize */
    if (op == MPI_OP_NULL && MPI_Op_create(setup_reduce, 1, &op) == MPI_SUCCESS)
        colio_coll_local_op(op, setup_reduce);
    return op;
}

/*
 * Pieces this large gain nothing from aggregation (one storage call each
 * either way), nor does one piece per rank (colio_direct_early): 1. An
 * access whose pieces overlap (a read-only view may name
 * a byte twice) must go direct: -1, which the MIN agreement hands to all.
 */
static int direct_eligible(const colio_access_t *acc, int64_t direct_min)
{
    if (acc->overlaps)
        return -1;
    return acc->npieces <= 1 || acc->nbytes / acc->npieces >= direct_min;
}

/* A rank with no pieces fits a plan at any offset: it leaves the agreed shift to the others. */
#define PLAN_SHIFT_ANY INT64_MAX

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
static int64_t plan_candidate(colio_op_t *op, int64_t *shift_p)
{
    colio_file *fh = op->fh;
    *shift_p = op->acc.n ? 0 : PLAN_SHIFT_ANY;
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

static void unpin_candidate(colio_op_t *op)
{
    if (op->pinned && op->pinned != op->reuse)
        op->pinned->busy = 0;
    op->pinned = NULL;
}

/*
 * A read whose access the end of file cuts keeps it as asked first: the key
 * of a plan to store. An access the cut leaves whole is its own key, adopted
 * after the split like a write's (drop_runs in plan.c): copying it here cost
 * a direct read of a million pieces a quarter of its time.
 */
static void keep_read_key(colio_op_t *op)
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
static void adopt_stored_plan(colio_op_t *op)
{
    const colio_setup_words_t *w = &op->agree_out.setup;
    int64_t id = w->plan_id, delta = w->plan_shift, glo, ghi;
    colio_plan_entry_t *e = op->pinned;
    int anywhere = w->plan_shift == PLAN_SHIFT_ANY && w->plan_shift_neg == PLAN_SHIFT_ANY; /* no rank has pieces */
    if (anywhere)
        delta = 0;
    int same_shift = anywhere || (w->plan_shift_neg != PLAN_SHIFT_ANY && delta == -w->plan_shift_neg);
    if (id > 0 && id == -w->plan_id_neg && e && e->id == id && same_shift &&
        !__builtin_add_overflow(e->glo, delta, &glo) && !__builtin_add_overflow(e->ghi, delta, &ghi) &&
        glo == op->glo && ghi == op->ghi && same_end_of_file(op, e, delta) && (delta == 0 || may_move_plan(op->fh, delta))) {
        op->reuse = e; /* stays busy: one borrower at a time, another operation in flight plans afresh */
        op->reuse_shift = delta;
        colio_plancache_touch(&op->fh->plans, e);
        if (delta != 0 && op->args.kind == COLIO_OP_READ)
            e->eof = op->eof; /* unclipped under this end of file too (same_end_of_file): the latest holds */
    }
    unpin_candidate(op);
}

int colio_step_init(colio_op_t *op)
{
    if (op->args.refused)
        colio_op_fail(op, COLIO_ERR_ARG, "%s", op->args.refused);
    if (op->err.code == 0 && check_mode(op) == 0 && init_access(op) == 0)
        init_plan_memory(op);
    if (op->err.code != 0)
        colio_access_free(&op->acc); /* take part with nothing to move */
    op->phase = COLIO_PH_START;
    return COLIO_STEP_NEXT;
}

int colio_step_start(colio_op_t *op)
{
    if (op->comm == MPI_COMM_NULL) { /* a nonblocking operation whose slot is still forming */
        int formed = colio_lane_formed(op);
        if (formed < 0)
            colio_lane_lost(op);
        if (formed <= 0)
            return COLIO_STEP_WAIT;
    }
    if (!colio_order_may_start(op))
        return COLIO_STEP_WAIT;
    op->early = !colio_stage_piece(op) && colio_direct_early(op);
    op->phase = op->early ? COLIO_PH_DIRECT : COLIO_PH_PROPOSE;
    return COLIO_STEP_NEXT;
}

/* A rank's SETUP words: its access's extent and sizes beside what the caller found (colio_setup_words_t). */
static colio_setup_words_t setup_words(const colio_access_t *acc, int64_t err_key, int64_t eof_neg,
                                       int64_t direct_min, int64_t plan_id, int64_t shift, int staged)
{
    return (colio_setup_words_t){
        .err_key = err_key,
        .lo = acc->n ? colio_access_run(acc, 0).off : INT64_MAX,
        .hi_neg = acc->n ? -acc->end : INT64_MAX,
        .eof_neg = eof_neg,
        .direct = direct_eligible(acc, direct_min),
        .plan_id = plan_id,
        .plan_id_neg = -plan_id,
        .plan_shift = shift,
        .plan_shift_neg = shift == PLAN_SHIFT_ANY ? PLAN_SHIFT_ANY : -shift,
        .pieces_max_neg = -acc->npieces,
        .bytes_max_neg = -acc->nbytes,
        .extent_max_neg = acc->n ? -(acc->end - colio_access_run(acc, 0).off) : 0,
        .piece_meta = acc->npieces <= 2 * acc->n,
        .extent_sum = acc->n ? acc->end - colio_access_run(acc, 0).off : 0,
        .bytes_sum = acc->nbytes,
        .pieces_sum = acc->npieces,
        .staged_sum = staged,
        .runs_sum = acc->n,
    };
}

colio_setup_words_t colio_setup_words_moved(int64_t err_key, int staged)
{
    static const colio_access_t none; /* what an early or staged access leaves (colio_direct_early_done) */
    /* no plan proposed: express.c takes no call for which plan_candidate would find one (colio_plancache_may_match) */
    return setup_words(&none, err_key, INT64_MAX, 0, 0, PLAN_SHIFT_ANY, staged);
}

int colio_step_propose(colio_op_t *op)
{
    colio_file *fh = op->fh;
    if (op->early)
        colio_direct_early_done(op);
    int64_t eof = INT64_MAX; /* not known here: EOF asks rank 0 if some rank still needs it */
    if (op->args.kind == COLIO_OP_READ && fh->rank == 0 && !op->early_done) {
        int64_t size = 0;
        int rc = fh->store->size(fh->st, &size);
        if (rc != 0)
            colio_op_io_error(op, rc, "size query", 0, 0);
        eof = -size;
    }
    int64_t shift, cand = plan_candidate(op, &shift);
    op->agree_in.setup = setup_words(&op->acc, colio_err_key(op->err.code, fh->rank), eof, fh->hints.direct_min,
                                     cand, shift, op->staged);
    colio_stage_mark(op);
    int rc = colio_coll_allreduce(&op->coll, &op->agree_in.setup, &op->agree_out.setup, COLIO_SETUP_WORDS,
                                  MPI_INT64_T, colio_setup_op(), op->comm);
    return colio_op_posted(op, rc, "setup agreement", COLIO_PH_SETUP);
}

/* ---- SETUP: agree on errors and the global extent; choose the path ------------- */

void colio_op_start_errmsg(colio_op_t *op, int64_t key)
{
    op->err_key = key;
    size_t len = strlen(op->err.msg); /* the root sends the whole buffer: no unset bytes past the text */
    memset(op->err.msg + len, 0, sizeof op->err.msg - len);
    int rc = colio_coll_bcast(&op->coll, op->err.msg, COLIO_ERRMSG_LEN, MPI_CHAR, colio_err_key_rank(key), op->comm);
    if (rc != MPI_SUCCESS) { /* no message then; the operation still ends, with its error code */
        colio_coll_init(&op->coll, op->coll.ops, op->coll.tag, op->coll.shm);
        op->err.msg[0] = '\0';
    }
    op->phase = COLIO_PH_ERRMSG;
}

/*
 * The fixed rules (colio_storage_model=off). Direct when every rank's pieces average at
 * least colio_direct_min bytes (one contiguous extent per rank is the usual
 * case: nothing to aggregate). For reads also when every rank could read
 * its own extent whole with data sieving at a total cost of at most
 * colio_read_sieve_ratio times the bytes asked for: then independent sieved
 * reads beat moving the data through aggregators (two ranks interleaving on
 * one node), while at scale interleaved extents make the ratio about the
 * rank count and aggregation is kept.
 */
static int fixed_rules(const colio_op_t *op)
{
    const colio_hints_t *h = &op->fh->hints;
    const colio_setup_words_t *w = &op->agree_out.setup;
    if (w->direct == 1) /* every rank: large pieces, or nothing */
        return 1;
    int64_t extents = w->extent_sum, bytes = w->bytes_sum;
    return op->args.kind == COLIO_OP_READ && h->read_sieve_ratio > 0 && bytes > 0 &&
           extents / h->read_sieve_ratio <= bytes;
}

/* The network model's terms (engine/strategy.h), a node's own without a model. */
static colio_net_terms_t net_terms(const colio_file *fh)
{
    const colio_net_t *net = fh->cfg.topo.net;
    return (colio_net_terms_t){net ? colio_net_latency(net) : 1e-6, net ? colio_net_bandwidth(net) : 10e9};
}

static int file_nodes(const colio_file *fh) { return fh->cfg.topo.nnodes > 0 ? fh->cfg.topo.nnodes : 1; }

/* One of fh->round_bytes (op.h, colio_file_choose_rounds); direct: one rank's storage calls, no messages. */
static int64_t choose_round_bytes(const colio_file *fh, int write, int direct)
{
    const colio_hints_t *h = &fh->hints;
    if (h->round_size > 0)
        return h->round_size < h->cb_buffer_size ? h->round_size : h->cb_buffer_size;
    if (fh->figures.fixed)
        return h->cb_buffer_size;
    colio_call_shape_t s = {.write = write, .nprocs = direct ? 1 : fh->nprocs, .nnodes = direct ? 1 : file_nodes(fh),
                            .round_bytes = h->cb_buffer_size};
    colio_net_terms_t terms = net_terms(fh);
    return colio_strategy_round_bytes(&s, &fh->figures, &terms);
}

void colio_file_choose_rounds(colio_file *fh)
{
    for (int write = 0; write < 2; write++)
        for (int direct = 0; direct < 2; direct++)
            fh->round_bytes[write][direct] = choose_round_bytes(fh, write, direct);
}

const colio_agg_set_t *colio_op_agg_set(const colio_op_t *op)
{
    const colio_setup_words_t *w = &op->agree_out.setup;
    const colio_config_t *c = &op->fh->cfg;
    int wide = c->wide.naggs > 0 && colio_place_wide_call(op->args.kind == COLIO_OP_WRITE, w->bytes_sum, w->pieces_sum);
    return wide ? &c->wide : &c->set;
}

/* The call as every rank knows it after SETUP, for the cost model (engine/strategy.h). */
static colio_call_shape_t call_shape(const colio_op_t *op)
{
    const colio_file *fh = op->fh;
    const colio_setup_words_t *w = &op->agree_out.setup;
    return (colio_call_shape_t){
        .write = op->args.kind == COLIO_OP_WRITE,
        .nprocs = fh->nprocs,
        .nnodes = file_nodes(fh),
        .naggs = colio_op_agg_set(op)->naggs,
        .bytes = w->bytes_sum,
        .pieces = w->pieces_sum,
        .runs = w->runs_sum,
        .extent = op->ghi - op->glo,
        .extent_sum = w->extent_sum,
        .pieces_max = -w->pieces_max_neg,
        .bytes_max = -w->bytes_max_neg,
        .extent_max = -w->extent_max_neg,
        .round_bytes = fh->round_bytes[op->args.kind == COLIO_OP_WRITE][0],
        .sieve_bytes = fh->round_bytes[0][1],
        .pipelined = colio_op_pipelines(op),
        .meta_words = colio_op_meta_words(op),
    };
}

/*
 * Automatic choice of the path (docs/DESIGN.md, "Choosing the path"):
 * forced by romio_cb_write / romio_cb_read and romio_no_indep_rw, direct
 * where pieces overlap, else the cheaper of the two by the cost model
 * (colio_storage_model, the same figures and words on every rank), or the
 * fixed rules with colio_storage_model=off. The predictions go to the
 * statistics.
 */
static int use_direct_path(colio_op_t *op)
{
    const colio_hints_t *h = &op->fh->hints;
    colio_toggle_t cb = op->args.kind == COLIO_OP_WRITE ? h->cb_write : h->cb_read;
    const colio_setup_words_t *w = &op->agree_out.setup;
    if (cb == COLIO_DISABLE || w->direct < 0) /* by hint, or some rank's pieces overlap */
        return 1;
    if (cb == COLIO_ENABLE || h->no_indep_rw)
        return 0;
    if (op->fh->figures.fixed) /* colio_storage_model=off, or storage without a cost model */
        return fixed_rules(op);
    colio_call_shape_t shape = call_shape(op);
    colio_net_terms_t terms = net_terms(op->fh);
    colio_path_costs_t c;
    colio_path_t path = colio_strategy_choose(&shape, &op->fh->figures, &terms, &c);
    op->stats.predicted_two_phase = c.two_phase;
    op->stats.predicted_direct = c.direct;
    return path == COLIO_PATH_DIRECT;
}

/* With the end of file known (reads): clip, borrow a stored plan, choose the path. */
static int setup_path(colio_op_t *op)
{
    if (op->args.kind == COLIO_OP_READ) {
        keep_read_key(op);
        if (colio_access_clip(&op->acc, op->eof) != 0)
            colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory clipping the access at the end of file");
        if (op->ghi > op->eof)
            op->ghi = op->eof;
    }
    adopt_stored_plan(op);
    if (op->glo >= op->ghi) { /* literals that fit, one strcpy each: the compiler stores them in place */
        if (op->staged)
            strcpy(op->stats.strategy, "staged");
        else if (op->early_done)
            strcpy(op->stats.strategy, "early");
        else
            strcpy(op->stats.strategy, "none");
        op->phase = COLIO_PH_DONE; /* nothing to move anywhere */
        colio_stage_route(op);
        return COLIO_STEP_NEXT;
    }
    int direct = use_direct_path(op);
    if (direct) {
        if (op->reuse) { /* a borrowed plan serves a two-phase call only (keep_plan would drop its arrays) */
            op->reuse->busy = 0;
            op->reuse = NULL;
        }
        strcpy(op->stats.strategy, "direct");
    } else {
        take_reserved_arrays(op);
        strcpy(op->stats.strategy, "two-phase");
    }
    op->after_gate = direct ? COLIO_PH_DIRECT : COLIO_PH_PLAN;
    op->phase = COLIO_PH_GATE;
    colio_stage_route(op);
    return COLIO_STEP_NEXT;
}

/*
 * Reads whose rank 0 did not look at the end of file (its piece went early)
 * while other ranks still have pieces: rank 0 sends its file size, or its
 * size query's error, which every rank then records alike.
 */
static int ask_end_of_file(colio_op_t *op)
{
    colio_file *fh = op->fh;
    if (fh->rank == 0) {
        int64_t size = 0;
        int rc = fh->store->size(fh->st, &size);
        op->eof_sent = rc != 0 ? rc : size;
    }
    int rc = colio_coll_bcast(&op->coll, &op->eof_sent, 1, MPI_INT64_T, 0, op->comm);
    return colio_op_posted(op, rc, "end of file agreement", COLIO_PH_EOF);
}

/* What SETUP's agreed words (op->agree_out.setup) make of the call. */
static int setup_agreed(colio_op_t *op)
{
    if (op->coll_failed) { /* nothing was agreed: as after EOF's failed broadcast, the call ends here */
        op->phase = COLIO_PH_DONE;
        return COLIO_STEP_NEXT;
    }
    const colio_setup_words_t *w = &op->agree_out.setup;
    if (w->err_key != 0) {
        colio_op_start_errmsg(op, w->err_key);
        return COLIO_STEP_NEXT;
    }
    op->glo = w->lo;
    op->ghi = op->asked_ghi = -w->hi_neg;
    int eof_unknown = w->eof_neg == INT64_MAX; /* writes, or rank 0's read went early */
    op->eof = eof_unknown ? INT64_MAX : -w->eof_neg;
    if (op->args.kind == COLIO_OP_READ && eof_unknown && op->glo < op->ghi)
        return ask_end_of_file(op);
    return setup_path(op);
}

int colio_step_setup(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    return setup_agreed(op);
}

int colio_step_eof(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    if (op->err.code != 0) { /* the broadcast failed: as in ERRMSG */
        op->phase = COLIO_PH_DONE;
        return COLIO_STEP_NEXT;
    }
    if (op->eof_sent < 0) {
        colio_op_io_error(op, (int)op->eof_sent, "size query", 0, 0);
        op->phase = COLIO_PH_FINAL;
        return COLIO_STEP_NEXT;
    }
    op->eof = op->eof_sent;
    return setup_path(op);
}

int colio_step_gate(colio_op_t *op)
{
    if (!colio_order_may_access(op))
        return COLIO_STEP_WAIT;
    op->phase = op->after_gate;
    return COLIO_STEP_NEXT;
}

/* ---- FINAL: agree on errors ----------------------------------------------------- */

int colio_op_post_agreement(colio_op_t *op, colio_phase_t next) { return colio_op_post_agreement_n(op, next, 1); }

int colio_op_post_agreement_n(colio_op_t *op, colio_phase_t next, int nwords)
{
    op->agree_in.err_key = colio_err_key(op->err.code, op->fh->rank);
    int rc = colio_coll_allreduce(&op->coll, &op->agree_in, &op->agree_out, nwords, MPI_INT64_T, MPI_MIN, op->comm);
    return colio_op_posted(op, rc, "error agreement", next);
}

int colio_op_posted(colio_op_t *op, int rc, const char *what, colio_phase_t next)
{
    if (rc != MPI_SUCCESS) {
        colio_err_from_mpi(&op->err, rc, what);
        next = COLIO_PH_DONE;
    }
    op->phase = next;
    return COLIO_STEP_NEXT;
}

/* The error agreement, with the fastest and slowest exchange times (ns) alongside. */
int colio_step_final(colio_op_t *op)
{
    const colio_phase_times *t = &op->stats.time;
    int64_t ns = (int64_t)((t->meta_exchange + t->data_exchange) * 1e9);
    op->agree_in.final.exchange_ns = ns;
    op->agree_in.final.exchange_ns_neg = -ns;
    return colio_op_post_agreement_n(op, COLIO_PH_FINAL_WAIT, COLIO_WORDS(colio_final_words_t));
}

int colio_step_final_wait(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    const colio_final_words_t *w = &op->agree_out.final;
    op->stats.exchange_min = (double)w->exchange_ns * 1e-9;
    op->stats.exchange_max = (double)-w->exchange_ns_neg * 1e-9;
    if (w->err_key == 0)
        op->phase = COLIO_PH_DONE;
    else
        colio_op_start_errmsg(op, w->err_key);
    return COLIO_STEP_NEXT;
}

int colio_step_errmsg(colio_op_t *op)
{
    int done;
    if (colio_op_test_coll(op, &done) == COLIO_STEP_WAIT)
        return COLIO_STEP_WAIT;
    colio_err_adopt(&op->err, op->err_key);
    op->phase = COLIO_PH_DONE;
    return COLIO_STEP_NEXT;
}

/* ---- the end --------------------------------------------------------------------- */

int64_t colio_op_memory(const colio_op_t *op)
{
    const colio_plan_t *p = &op->plan;
    const colio_round_t *r = &op->rnd;
    int64_t own_runs = (op->acc.borrowed ? 0 : op->acc.n) + (op->key.flat ? 0 : op->key.n);
    int64_t m = own_runs * (int64_t)sizeof(colio_run_t) + (int64_t)p->meta_pool_cap;
    if (op->planned) /* the rounds' state is set from PLAN on */
        m += (int64_t)r->cbuf_cap + (int64_t)r->pack_cap + r->agg_pack_size + r->aside_size + r->cov.cap_words * 8 +
             r->cov.cap_runs * (int64_t)sizeof(colio_piece_t);
    for (int i = 0; p->to_agg && i < p->naggs; i++)
        m += colio_meta_bytes(p->to_agg[i].words, p->to_agg[i].cap) +
             (p->to_agg[i].pos ? p->to_agg[i].cap * (int64_t)sizeof(int64_t) : 0) +
             p->to_agg[i].cap_st * (int64_t)sizeof(colio_list_stretch_t);
    return m;
}

/*
 * A borrowed plan goes back to the cache; a new one that completed on every
 * rank (the outcome is agreed) is stored: both happen at the same call on
 * every rank, so plan ids agree.
 */
static void keep_plan(colio_op_t *op)
{
    colio_file *fh = op->fh;
    unpin_candidate(op); /* an operation that ended before its agreement */
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

/* The placement's metrics (two-phase operations only: the direct path has no aggregators). */
static void placement_stats(colio_op_t *op)
{
    colio_op_stats *s = &op->stats;
    const colio_place_metrics_t *m = &op->plan.metrics;
    if (op->plan.aggs == NULL)
        return;
    snprintf(s->placement, sizeof s->placement, "%s", op->fh->cfg.place->name);
    s->hop_bytes = m->hop_bytes;
    s->max_link_bytes = m->max_link_bytes;
    s->agg_bytes_max = m->max_agg_bytes;
    s->agg_bytes_min = m->min_agg_bytes;
    s->predicted_cost = m->predicted_cost;
}

static void exchange_stats(colio_op_t *op)
{
    colio_op_stats *s = &op->stats;
    s->messages = op->meta.nmsgs + op->rnd.x.nmsgs;
    s->meta_messages += op->meta.nmsgs;
    s->max_requests = op->meta.max_reqs > op->rnd.x.max_reqs ? op->meta.max_reqs : op->rnd.x.max_reqs;
    if (op->kern_meta)
        snprintf(s->meta_kernel, sizeof s->meta_kernel, "%s", op->kern_meta->name);
    if (op->kern_data)
        snprintf(s->data_kernel, sizeof s->data_kernel, "%s", op->kern_data->name);
}

/*
 * An operation that never planned (direct, early, nothing to move, failed
 * before PLAN) holds only the INIT arrays, unwritten (only steps from PLAN
 * on write them): give them back as they are, without the two-phase
 * teardown, which is most of a small call's closing cost, and without
 * zeroing them again at the next call's INIT.
 */
static void give_init_arrays(colio_op_t *op)
{
    if (op->arr_kinds == 0) /* INIT failed before it took or reserved any */
        return;
    if (colio_pool_array_release_set(&op->fh->bufs, op)) /* reserved, never taken: the set stays whole in the cache */
        return;
    void **places[COLIO_ARR_KINDS];
    init_array_places(op, places);
    colio_pool_array_give_unused_set(&op->fh->bufs, COLIO_ARR_KINDS, op->arr_kinds, init_arrays_key(op), array_sizes(op), places);
}

int colio_op_finish(colio_op_t *op, MPI_Status *status)
{
    colio_file *fh = op->fh;
    int code = op->err.code;
    int64_t moved = code == 0 ? op->acc.nbytes + op->early_bytes : 0;
    if (colio_status_wanted(status))
        MPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)moved);
    if (code == 0 && op->args.use_fp && !op->fp_done)
        fh->fp += moved / fh->view.etype_size;
    op->stats.bytes = moved;
    op->stats.pieces = op->acc.npieces + op->early_pieces;
    exchange_stats(op);
    placement_stats(op);
    keep_plan(op);
    int64_t held = colio_op_memory(op);
    op->stats.memory = held > op->stats.memory ? held : op->stats.memory;
    op->stats.time.total = clock_now(op, COLIO_HANDOFF_AT_DONE) - op->t_start;
    colio_stats_record(fh, &op->stats, op->args.api);
    colio_file_result(fh, &op->err);
    colio_order_leave(fh, op);
    colio_direct_free(op);
    if (op->planned) {
        colio_plan_detach(op);
        colio_round_free(op);
        colio_counts_free(op);
        colio_plan_free(op);
    } else {
        give_init_arrays(op);
    }
    colio_access_free(&op->acc);
    if (op->memflat)
        colio_flat_release(op->memflat, op->memflat_owned);
    op->memflat = NULL;
    return code;
}

/* ---- an express call that needs the steps (engine/express.h) ------------------------ */

int colio_op_reserve_arrays(colio_op_t *room, colio_file *fh)
{
    room->fh = fh;
    init_arrays_shape(room);
    uint64_t key = init_arrays_key(room);
    if (colio_pool_array_reserve_set(&fh->bufs, key, room))
        return 1;
    /* none kept (a file's first call, another aggregator count): taken and kept unused, as a call that
       never planned gives them back (give_init_arrays), so the reservation cannot fail later */
    void **places[COLIO_ARR_KINDS];
    init_array_places(room, places);
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        *places[k] = NULL; /* room is not an operation yet: the kinds not taken must read as none */
    int missing = colio_pool_array_take_set(&fh->bufs, room->arr_kinds, array_sizes(room), places);
    colio_pool_array_give_unused_set(&fh->bufs, COLIO_ARR_KINDS, room->arr_kinds, key, array_sizes(room), places); /* also what it got */
    return !missing && colio_pool_array_reserve_set(&fh->bufs, key, room);
}

/* x's storage results and agreements, as the steps up to SETUP would have left them (early or staged). */
static void resume_moved_piece(colio_op_t *op, colio_express_t *x)
{
    op->stage_seq = x->stage_seq;
    op->agree_in.setup = x->words;
    op->agree_out.setup = x->agreed;
    op->stats.time.meta_exchange = x->t_meta;
    if (x->staged) {
        op->staged = 1;
        op->stage_off = x->off;
        op->early_bytes = x->len;
        op->early_pieces = 1;
        colio_access_free(&op->acc);
        return;
    }
    op->dir.eof_seen = x->job.eof_seen;
    op->stats.memory = colio_op_memory(op); /* the run list, as DIRECT's start counts it */
    colio_op_fold_job(op, &x->job, 1);
    colio_direct_early_done(op);
}

/*
 * An agreement of x that failed: its wait as colio_op_test_coll records it
 * (the steps go on at phase, where the failure is seen), or its posting as
 * colio_op_posted does (the call ends).
 */
static void resume_failed_agreement(colio_op_t *op, const colio_express_t *x, const char *posting,
                                    colio_phase_t phase)
{
    if (!x->coll_posted) {
        colio_err_from_mpi(&op->err, x->coll_rc, posting);
        op->phase = COLIO_PH_DONE;
        return;
    }
    colio_err_from_mpi(&op->err, x->coll_rc, "collective agreement");
    op->coll_failed = 1;
    op->phase = phase;
}

void colio_op_resume(colio_op_t *op, colio_file *fh, const colio_op_args_t *args, colio_express_t *x)
{
    init_numbered(op, fh, args, x->seq);
    op->t_start = x->t_start;
    /* the access express.c found, again (deterministic; a failure to allocate is an error FINAL agrees on) */
    init_access(op);
    init_arrays_shape(op); /* reserved for op by express.c (colio_op_reserve_arrays) */
    resume_moved_piece(op, x);
    if (x->exit == COLIO_EXPRESS_AT_SETUP) {
        op->phase = COLIO_PH_SETUP; /* its test finds the idle agreement done at once */
        if (x->coll_rc != MPI_SUCCESS)
            resume_failed_agreement(op, x, "setup agreement", COLIO_PH_SETUP);
        return;
    }
    setup_agreed(op); /* nothing left anywhere, staged pieces: STAGE next, which express.c ran */
    if (x->stage_failed)
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory writing the node's staged pieces");
    else if (x->stage_job_ran)
        colio_op_fold_job(op, &x->stage_job, 1);
    op->phase = COLIO_PH_FINAL;
    if (x->exit == COLIO_EXPRESS_AT_FINAL_WAIT) {
        op->agree_in.final = x->final_in;
        op->agree_out.final = x->final_out;
        op->phase = COLIO_PH_FINAL_WAIT;
        if (x->coll_rc != MPI_SUCCESS)
            resume_failed_agreement(op, x, "error agreement", COLIO_PH_FINAL_WAIT);
    }
}
