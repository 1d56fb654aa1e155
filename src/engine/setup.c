/*
 * The SETUP agreement: every rank's errors, extent and end of file beside
 * the words each call path proposes (engine/words.h), in one reduction;
 * then the chooser (engine/strategy.c) takes the path from the agreed
 * words, the same on every rank.
 */
#include "engine/setup.h"

#include <stddef.h>
#include <string.h>

#include "engine/file.h"
#include "engine/lanes.h"
#include "engine/order.h"
#include "engine/plancache.h"
#include "engine/step.h"
#include "engine/strategy.h"

_Static_assert(offsetof(colio_setup_words_t, totals) == COLIO_SETUP_MIN * sizeof(int64_t) &&
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

int colio_step_start(colio_op_t *op)
{
    if (op->comm == MPI_COMM_NULL) { /* a nonblocking operation whose lane is still forming */
        int formed = colio_lane_formed(op);
        if (formed < 0)
            colio_lane_lost(op);
        if (formed <= 0)
            return COLIO_STEP_WAIT;
    }
    if (!colio_order_may_start(op))
        return COLIO_STEP_WAIT;
    op->phase = colio_strategy_start(op);
    return COLIO_STEP_NEXT;
}

/* A rank's SETUP words: its access's extent beside what the caller found and what the paths propose. */
static colio_setup_words_t setup_words(colio_op_t *op, const colio_proposal_t *p, int64_t err_key, int64_t eof_neg)
{
    const colio_access_t *acc = p->acc;
    colio_setup_words_t w;
    memset(&w, 0, sizeof w);
    w.call = (colio_setup_call_t){
        .err_key = err_key,
        .lo = acc->n ? colio_access_run(acc, 0).off : INT64_MAX,
        .hi_neg = acc->n ? -acc->end : INT64_MAX,
        .eof_neg = eof_neg,
    };
    colio_strategy_propose(op, p, &w);
    return w;
}

colio_setup_words_t colio_setup_words_moved(const colio_file *fh, int64_t err_key, int staged)
{
    static const colio_access_t none; /* what an early or staged access leaves (colio_direct_early_done) */
    /* no plan proposed: express calls take no call for which colio_plancache_propose would find one */
    colio_proposal_t p = {.fh = fh, .acc = &none, .plan_id = 0, .plan_shift = COLIO_PLAN_SHIFT_ANY, .staged = staged};
    return setup_words(NULL, &p, err_key, INT64_MAX);
}

int colio_step_propose(colio_op_t *op)
{
    colio_file *fh = op->fh;
    int64_t eof = INT64_MAX; /* not known here: EOF asks rank 0 if some rank still needs it */
    if (op->args.kind == COLIO_OP_READ && fh->rank == 0 && !op->early_done) {
        int64_t size = 0;
        int rc = fh->store->size(fh->st, &size);
        if (rc != 0)
            colio_op_io_error(op, rc, "size query", 0, 0);
        eof = -size;
    }
    colio_proposal_t p = {.fh = fh, .acc = &op->acc, .staged = op->stage.staged};
    p.plan_id = colio_plancache_propose(op, &p.plan_shift);
    op->agree_in.setup = setup_words(op, &p, colio_err_key(op->err.code, fh->rank), eof);
    int rc = colio_coll_allreduce(&op->coll, &op->agree_in.setup, &op->agree_out.setup, COLIO_SETUP_WORDS,
                                  MPI_INT64_T, colio_setup_op(), op->comm);
    return colio_op_posted(op, rc, "setup agreement", COLIO_PH_SETUP);
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

/* With the end of file known (reads): clip, borrow a stored plan, choose the path. */
static int setup_path(colio_op_t *op)
{
    if (op->args.kind == COLIO_OP_READ) {
        colio_plancache_keep_read_key(op);
        if (colio_access_clip(&op->acc, op->eof) != 0)
            colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory clipping the access at the end of file");
        if (op->ghi > op->eof)
            op->ghi = op->eof;
    }
    colio_plancache_adopt(op);
    if (op->glo >= op->ghi) { /* nothing to move anywhere: the statistics name this rank's START path */
        strcpy(op->stats.strategy, op->path ? op->path->name : "none");
        op->phase = colio_strategy_detour(op, COLIO_PH_DONE);
        return COLIO_STEP_NEXT;
    }
    op->after_gate = colio_strategy_setup(op);
    op->phase = colio_strategy_detour(op, COLIO_PH_GATE);
    return COLIO_STEP_NEXT;
}

int colio_setup_agreed(colio_op_t *op)
{
    if (op->coll_failed) { /* nothing was agreed: as after EOF's failed broadcast, the call ends here */
        op->phase = COLIO_PH_DONE;
        return COLIO_STEP_NEXT;
    }
    const colio_setup_call_t *w = &op->agree_out.setup.call;
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
    return colio_setup_agreed(op);
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
