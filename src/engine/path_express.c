/*
 * Express calls: a small call at its floor, one storage call and one
 * agreement. A blocking call whose access on this rank is one
 * contiguous piece of a named memory type (or a list call's one offset and
 * length), on a file with no operation in
 * flight, is what early direct access (direct.c) and staged small writes
 * (stage.c) make of it: the piece moves at once (or goes to node-shared
 * memory for the node's first rank), then the rank takes part in the SETUP
 * agreement with the words PROPOSE would have sent for it
 * (colio_setup_words_moved): no other rank can tell, and each may run either
 * way. Where the agreed words end the call (no error, nothing left to move
 * anywhere, or only staged pieces, which the node's first rank writes before
 * the FINAL agreement) it ends here, without an operation, its step machine
 * and their clocks: about 2,000 instructions a call where the steps took
 * 3,500; a 64-byte read_at_all at 2 ranks under Open MPI 2.35 -> 1.66 us
 * (docs/PERFORMANCE.md, "Express calls"). Where they ask for more (another
 * rank's pieces, an error and its message), the operation the call would have
 * been is built where it stands (resume, below) and the steps take it
 * from there. A call that does not qualify runs as an operation from the
 * start, so every error of the arguments is the operation's to report.
 */
#include "engine/path_express.h"

#include <string.h>

#include "base/clock.h"
#include "base/status.h"
#include "engine/arrays.h"
#include "engine/direct.h"
#include "engine/file.h"
#include "engine/finish.h"
#include "engine/init.h"
#include "engine/order.h"
#include "engine/path.h"
#include "engine/path_staged.h"
#include "engine/plancache.h"
#include "engine/progress.h"
#include "engine/setup.h"
#include "engine/stats.h"
#include "engine/step.h"

/* The call's memory as one stretch of a named type flattened before (*nbytes), else NULL: the operation judges. */
static char *one_stretch(const colio_file *fh, const colio_op_args_t *a, int64_t *nbytes)
{
    const colio_flat_t *f = a->count > 0 && a->buf != NULL ? colio_flat_named(a->memtype) : NULL;
    if (f == NULL || f->size <= 0 || a->count > INT64_MAX / f->size || f->runs.n != 1 || f->runs.r[0].count != 1 ||
        (a->count != 1 && !colio_flat_dense(f)))
        return NULL;
    *nbytes = a->count * f->size;
    return *nbytes % fh->view.etype_size == 0 ? colio_addr(a->buf, f->runs.r[0].off) : NULL;
}

/* The access mode as INIT checks it, the hints as colio_direct_early reads them: the piece may move at once. */
static int file_allows(const colio_file *fh, const colio_op_args_t *a)
{
    const colio_hints_t *h = &fh->hints;
    int writing = a->kind == COLIO_OP_WRITE;
    if (fh->amode & (writing ? MPI_MODE_RDONLY : MPI_MODE_WRONLY))
        return 0;
    if ((writing ? h->cb_write : h->cb_read) == COLIO_ENABLE || h->no_indep_rw)
        return 0;
    return writing || !(fh->store->caps & COLIO_STORE_CAP_NO_SHORT_READS); /* reads must see the end of file */
}

/* The access of a call as INIT lists it (x->acc), its memory m: 0, or -1 (the operation reports why). */
static int access_of(colio_file *fh, const colio_op_args_t *a, colio_express_t *x, char **m, int64_t *nbytes)
{
    colio_err_t e;
    colio_err_clear(&e);
    if (a->list) { /* one offset and length, the bytes packed at buf */
        *m = a->buf;
        int rc = a->nlist == 1 && a->buf != NULL ? colio_access_from_list(1, a->offsets, a->lengths, &x->acc, &e) : -1;
        *nbytes = x->acc.nbytes;
        return rc;
    }
    if ((*m = one_stretch(fh, a, nbytes)) == NULL)
        return -1;
    return colio_access_from_view(&fh->view, a->use_fp ? fh->fp : a->offset, *nbytes, &x->acc, &e);
}

/*
 * This rank's access as one piece (x->acc, mem, off, len) that is staged
 * (x->staged), or moves straight between memory and storage (not at a slow
 * copy shift, where the operation's direct path bounces it); 0 otherwise.
 */
static int one_piece(colio_file *fh, const colio_op_args_t *a, colio_express_t *x, int64_t *nbytes)
{
    char *m = NULL;
    memset(&x->acc, 0, sizeof x->acc);
    if (access_of(fh, a, x, &m, nbytes) == 0 && x->acc.npieces == 1) {
        colio_run_t r = colio_access_run(&x->acc, 0);
        x->mem = m + r.pos, x->off = r.off, x->len = r.len;
        x->staged = a->kind == COLIO_OP_WRITE && colio_stage_fits(fh, &x->coll, fh->comm, x->len);
        if (x->staged || !colio_direct_misaligned(a->kind, x->mem, x->len, x->off))
            return 1;
    }
    colio_access_free(&x->acc);
    return 0;
}

/*
 * Whether PROPOSE would name a stored plan for the empty access the piece
 * leaves (plan_candidate, op.c): a plan kept from a call in which this rank
 * had one piece too. Such calls run as operations, so express words never
 * name a plan.
 */
static int plan_proposed(const colio_file *fh, const colio_op_args_t *a, int64_t nbytes)
{
    return colio_plancache_enabled(fh->hints.plan_cache, fh->cfg.xchg_data) &&
           colio_plancache_may_match(&fh->plans, 0, a->kind, nbytes);
}

/*
 * Under the progress lock: whether the call qualifies; if so it takes the
 * file's next operation number, whose agreement object x->coll then is.
 */
static int qualifies(colio_file *fh, const colio_op_args_t *a, colio_express_t *x, colio_op_t *room)
{
    int64_t nbytes = 0;
    if (!fh->hints.express || fh->nops != 0 || !file_allows(fh, a) || colio_progress_caller_needed())
        return 0;
    colio_coll_init(&x->coll, fh->cfg.coll, colio_op_agreement_tag(fh->op_seq), fh->agree_shm);
    if (!one_piece(fh, a, x, &nbytes))
        return 0;
    if (plan_proposed(fh, a, nbytes) || !colio_arrays_reserve(room, fh)) {
        colio_access_free(&x->acc);
        return 0;
    }
    x->setup_op = colio_setup_op(); /* made once per process: here under the lock, like PROPOSE's */
    x->seq = colio_order_next(fh);
    return 1;
}

_Static_assert(sizeof(((colio_exec_job_t *)0)->local) >= sizeof(colio_exec_call_t), "a one-call job allocates nothing");

/* A blocking call's job runs here (colio_op_submit_job); x->now is its last reading, where the next phase starts. */
static void run_job(colio_express_t *x, colio_exec_job_t *job)
{
    colio_exec_job_run(job);
    x->now = colio_clock_now_at(job->ended);
}

/* The piece to storage (or, staged, to node-shared memory), as early direct access moves it. */
static void move_piece(colio_file *fh, colio_express_t *x)
{
    x->stage_seq = colio_coll_stage_seq(&x->coll, fh->comm);
    if (x->staged) {
        memcpy(colio_coll_stage_room(&x->coll), x->mem, (size_t)x->len);
        colio_coll_stage_mark(&x->coll, x->stage_seq, x->off, x->len);
        x->now = colio_clock_now(); /* the staging, like the qualification before it, counts as compute */
        return;
    }
    x->job.keep_past_eof = 1; /* the end of file is not agreed yet: bytes past it stay as they were */
    colio_exec_job_add(&x->job, x->mem, x->len, x->off); /* one call: the job's own room (asserted above) */
    run_job(x, &x->job);
}

/* One agreement through x's object, blocking; its time counted from the last clock reading (x->now). */
static int agree(colio_file *fh, colio_express_t *x, const void *in, void *out, int n, MPI_Op op)
{
    double t0 = x->now; /* read as the step before it ended */
    int rc = colio_coll_allreduce(&x->coll, in, out, n, MPI_INT64_T, op, fh->comm);
    x->coll_posted = rc == MPI_SUCCESS;
    if (x->coll_posted)
        rc = colio_coll_wait(&x->coll);
    x->now = colio_clock_now();
    x->t_meta += x->now - t0;
    return rc;
}

/* SETUP: 1 when the agreed words leave the call to express (nothing left anywhere, no error), else 0 (x->exit). */
static int agree_setup(colio_file *fh, colio_express_t *x)
{
    int code = x->job.rc != 0 ? colio_err_from_errno(-x->job.rc) : 0; /* as colio_op_io_error records it */
    x->words = colio_setup_words_moved(fh, colio_err_key(code, fh->rank), x->staged);
    x->exit = COLIO_EXPRESS_AT_SETUP;
    x->coll_rc = agree(fh, x, &x->words, &x->agreed, COLIO_SETUP_WORDS, x->setup_op);
    const colio_setup_call_t *w = &x->agreed.call;
    return x->coll_rc == MPI_SUCCESS && w->err_key == 0 && w->lo >= -w->hi_neg;
}

/* The node's first rank: the node's staged pieces to storage (stage.c). 1 unless that failed (x->exit). */
static int write_node_pieces(colio_file *fh, colio_express_t *x)
{
    if (x->stage_seq == 0 || !colio_coll_stage_leader(&x->coll))
        return 1;
    int n = colio_stage_node_job(fh, &x->coll, x->stage_seq, &x->stage_job);
    x->stage_failed = n < 0;
    if (n > 0) {
        run_job(x, &x->stage_job);
        x->stage_job_ran = 1;
    } else {
        x->now = colio_clock_now(); /* listing nothing (or failing to) is compute, not FINAL's time */
    }
    x->exit = COLIO_EXPRESS_AT_FINAL;
    return !x->stage_failed && x->stage_job.rc == 0;
}

/* FINAL, after staged pieces: the error agreement with the exchange times (colio_step_final). 1: no error anywhere. */
static int agree_final(colio_file *fh, colio_express_t *x)
{
    int64_t ns = (int64_t)(x->t_meta * 1e9);
    x->final_in = (colio_final_words_t){.err_key = 0, .exchange_ns = ns, .exchange_ns_neg = -ns};
    x->exit = COLIO_EXPRESS_AT_FINAL_WAIT;
    x->coll_rc = agree(fh, x, &x->final_in, &x->final_out, COLIO_WORDS(colio_final_words_t), MPI_MIN);
    if (x->coll_rc != MPI_SUCCESS)
        memset(&x->final_out, 0, sizeof x->final_out);
    return x->coll_rc == MPI_SUCCESS && x->final_out.err_key == 0;
}

/* Bytes the call moved: a read stops at the end of file (colio_direct_early_done). */
static int64_t moved_bytes(const colio_express_t *x)
{
    int64_t eof = x->staged ? INT64_MAX : x->job.eof_seen;
    return eof < x->off + x->len ? eof - x->off : x->len;
}

/* The statistics colio_op_finish records for such a call (an early call's run list counted as its memory). */
static void record(colio_file *fh, const colio_op_args_t *a, const colio_express_t *x, int64_t moved)
{
    colio_op_stats *sp = colio_stats_fresh(fh);
    sp->bytes = moved;
    sp->pieces = moved > 0; /* a read from the end of file on found nothing: no piece (colio_direct_early_done) */
    sp->io_calls = x->job.calls_made + x->stage_job.calls_made;
    sp->io_bytes = x->job.bytes + x->stage_job.bytes;
    sp->time.io = x->job.seconds + x->stage_job.seconds;
    sp->time.meta_exchange = x->t_meta;
    sp->time.total = x->now - x->t_start; /* to the last agreement's end: what follows is bookkeeping */
    sp->time.compute = sp->time.total - sp->time.io - sp->time.meta_exchange;
    sp->memory = x->staged || x->acc.borrowed ? 0 : (int64_t)sizeof(colio_run_t);
    if (x->exit == COLIO_EXPRESS_AT_FINAL_WAIT) { /* through FINAL: its exchange times */
        sp->exchange_min = (double)x->final_out.exchange_ns * 1e-9;
        sp->exchange_max = (double)-x->final_out.exchange_ns_neg * 1e-9;
    }
    sp->express = 1;
    strcpy(sp->strategy, x->staged ? "staged" : "early");
    colio_stats_record(fh, sp, a->api);
}

/* The call ended here: status, file pointer, statistics; the reserved arrays stay in the file's cache. */
static void finish(colio_file *fh, const colio_op_args_t *a, colio_express_t *x, colio_op_t *room, MPI_Status *status)
{
    int64_t moved = moved_bytes(x);
    if (colio_status_wanted(status))
        MPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)moved);
    colio_progress_lock(); /* the statistics: colio_get_stats reads them under it */
    if (a->use_fp)
        fh->fp += moved / fh->view.etype_size;
    record(fh, a, x, moved);
    colio_pool_array_release_set(&fh->bufs, room);
    colio_progress_unlock();
}

/* x's storage results and agreements, as the steps up to SETUP would have left them (early or staged). */
static void resume_moved_piece(colio_op_t *op, colio_express_t *x)
{
    op->stage.seq = x->stage_seq;
    op->agree_in.setup = x->words;
    op->agree_out.setup = x->agreed;
    op->stats.time.meta_exchange = x->t_meta;
    if (x->staged) {
        op->path = &colio_path_staged;
        op->stage.staged = 1;
        op->stage.off = x->off;
        op->early_bytes = x->len;
        op->early_pieces = 1;
        colio_access_free(&op->acc);
        return;
    }
    op->path = &colio_path_early;
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

/*
 * The operation the call would have been, built where it stands: the
 * steps up to where x handed over as they would have left it.
 */
static void resume(colio_op_t *op, colio_file *fh, const colio_op_args_t *args, colio_express_t *x)
{
    colio_op_init_at(op, fh, args, x->seq);
    op->t_start = x->t_start;
    /* the access express.c found, again (deterministic; a failure to allocate is an error FINAL agrees on) */
    colio_init_access(op);
    colio_arrays_shape(op); /* reserved for op by qualifies (colio_arrays_reserve) */
    resume_moved_piece(op, x);
    if (x->exit == COLIO_EXPRESS_AT_SETUP) {
        op->phase = COLIO_PH_SETUP; /* its test finds the idle agreement done at once */
        if (x->coll_rc != MPI_SUCCESS)
            resume_failed_agreement(op, x, "setup agreement", COLIO_PH_SETUP);
        return;
    }
    colio_setup_agreed(op); /* nothing left anywhere, staged pieces: STAGE next, which express.c ran */
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

/* The agreed words ask for more: the operation the call would have been runs the rest. */
static int hand_over(colio_file *fh, const colio_op_args_t *a, colio_express_t *x, colio_op_t *op, MPI_Status *status)
{
    colio_progress_lock();
    resume(op, fh, a, x);
    colio_progress_run(op);
    int code = colio_op_finish(op, status);
    colio_progress_unlock();
    return code;
}

/* Run x from its piece's storage call to the end of its agreements; 1 when it ended without an operation. */
static int run(colio_file *fh, colio_express_t *x)
{
    move_piece(fh, x);
    if (!agree_setup(fh, x))
        return 0;
    if (x->agreed.staged.ranks == 0)
        return 1;
    return write_node_pieces(fh, x) && agree_final(fh, x);
}

int colio_express_run(colio_file *fh, const colio_op_args_t *args, MPI_Status *status, colio_op_t *op, int *code)
{
    colio_express_t x;
    x.t_start = x.now = colio_clock_now();
    colio_progress_lock();
    int taken = qualifies(fh, args, &x, op);
    colio_progress_unlock(); /* neither the storage call nor the waits hold it */
    if (!taken)
        return 0;
    x.t_meta = 0, x.coll_rc = MPI_SUCCESS, x.coll_posted = 0;
    x.stage_job_ran = x.stage_failed = 0;
    /* both jobs idle (a staged piece makes no call of its own, a rank not first on its node none for the node) */
    colio_exec_job_init(&x.job, args->kind == COLIO_OP_WRITE ? COLIO_EXEC_WRITE : COLIO_EXEC_READ, fh->store, fh->st);
    colio_exec_job_init(&x.stage_job, COLIO_EXEC_WRITE, fh->store, fh->st);
    if (run(fh, &x)) {
        finish(fh, args, &x, op, status);
        *code = COLIO_SUCCESS;
    } else {
        *code = hand_over(fh, args, &x, op, status);
    }
    colio_exec_job_free(&x.stage_job);
    colio_access_free(&x.acc);
    return 1;
}
