/*
 * The driver of an operation's state machine (engine/op.h): the step
 * table, waiting for what a phase waits for, and the clocks that charge
 * each phase's time to the statistics. The steps live with their phases'
 * state in modules of their own.
 */
#include "engine/op.h"

#include <stddef.h>

#include "base/charge.h"
#include "base/clock.h"
#include "engine/counts.h"
#include "engine/direct.h"
#include "engine/final.h"
#include "engine/init.h"
#include "engine/path_staged.h"
#include "engine/place_step.h"
#include "engine/plan.h"
#include "engine/round.h"
#include "engine/setup.h"
#include "engine/step.h"

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
    [COLIO_PH_PLACE] = colio_step_place,
    [COLIO_PH_PATTERN_COUNTS] = colio_step_pattern_counts,
    [COLIO_PH_PATTERN] = colio_step_pattern,
    [COLIO_PH_COUNTS_POST] = colio_step_counts_post,
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
    case COLIO_PH_PLACE:
    case COLIO_PH_ROUND:
    case COLIO_PH_ROUND_FETCH:
    case COLIO_PH_DIRECT:
    case COLIO_PH_STAGE:
        return &t->compute;
    case COLIO_PH_ROUND_XCHG:
        return &t->data_exchange;
    case COLIO_PH_COUNTS_POST: /* on the clock of where the aggregators became known: the pattern's gather, or PLAN */
        return op->pat_all ? &t->meta_exchange : &t->compute;
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
    colio_charge(&op->stats, &op->charged);
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

double colio_op_clock_at_done(colio_op_t *op) { return clock_now(op, COLIO_HANDOFF_AT_DONE); }
