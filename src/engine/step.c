/*
 * What every step of an operation uses: its start (zeroed, numbered, its
 * tags), its errors, its storage jobs, its agreements and the exchanges it
 * sets up. Nothing here moves an operation from one phase to another but
 * at a step's request (colio_op_posted).
 */
#include "engine/step.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "engine/file.h"
#include "engine/order.h"



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

void colio_op_init_at(colio_op_t *op, colio_file *fh, const colio_op_args_t *args, int64_t seq)
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
    colio_op_init_at(op, fh, args, colio_order_next(fh));
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