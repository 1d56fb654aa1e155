/* What every step of an operation uses (step.c). */
#ifndef COLIO_ENGINE_STEP_H
#define COLIO_ENGINE_STEP_H

#include "engine/op.h"

struct colio_file;

/* Prepare op, the file's next operation; it owns nothing yet. */
void colio_op_init(colio_op_t *op, struct colio_file *fh, const colio_op_args_t *args);
/* The same as operation number seq of the file (engine/order.h), which the caller took. */
void colio_op_init_at(colio_op_t *op, struct colio_file *fh, const colio_op_args_t *args, int64_t seq);
/* Zero the rounds' state (op->rnd but the INIT arrays it holds): colio_op_init leaves it to PLAN. */
void colio_round_state_zero(colio_op_t *op);
/* The tag of operation seq's agreements (their p2p messages). */
int colio_op_agreement_tag(int64_t seq);

/* Record this rank's first error (later ones are dropped); returns the recorded code. */
int colio_op_fail(colio_op_t *op, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Record a failed storage call (negative errno) and stop further storage I/O. */
void colio_op_io_error(colio_op_t *op, int neg_errno, const char *what, int64_t off, int64_t len);

/*
 * Storage jobs (exec/exec.h), the one way steps reach storage: submit hands
 * a job to the I/O executor and returns 1, or runs it here and returns 0:
 * when the executor cannot take it, or when not in the background (a
 * blocking call that has nothing to do meanwhile: a nonblocking operation,
 * or pipelined rounds, ask for the background); a step whose job is not
 * done sets io_wait and returns COLIO_STEP_WAIT; fold records a done job's
 * statistics and error (ran_here: its time was the step's own).
 */
int colio_op_submit_job(colio_op_t *op, colio_exec_job_t *job, int background);
int colio_op_job_done(colio_op_t *op, colio_exec_job_t *job);
void colio_op_fold_job(colio_op_t *op, colio_exec_job_t *job, int ran_here);
/* Whether the step waits for a storage job (op->io_wait), and block until it is done. */
int colio_op_io_pending(const colio_op_t *op);
void colio_op_io_wait(colio_op_t *op);

/* Test the collective request in flight; *done_p when complete. */
int colio_op_test_coll(colio_op_t *op, int *done_p);
/*
 * After posting a collective on op->coll (rc: what the MPI call returned):
 * go on to phase next, or end the operation with the failure named what.
 * Returns COLIO_STEP_NEXT.
 */
int colio_op_posted(colio_op_t *op, int rc, const char *what, colio_phase_t next);
/* Post the error agreement (MIN of error keys); its result decides in phase next. */
int colio_op_post_agreement(colio_op_t *op, colio_phase_t next);
/* The same with agree_in's first nwords words reduced by MIN (callers fill all but the error key). */
int colio_op_post_agreement_n(colio_op_t *op, colio_phase_t next, int nwords);
/* Broadcast the agreed failing rank's message (key from an agreement): ERRMSG next. */
void colio_op_start_errmsg(colio_op_t *op, int64_t key);

/* Fill the fixed inputs of an exchange; to_aggs: the aggregators receive. */
void colio_op_xchg_setup(colio_op_t *op, colio_xchg_t *x, int tag, const colio_xchg_ops_t *ops, int to_aggs);
/* Bytes of the buffers the operation holds now (statistics keep the largest seen). */
int64_t colio_op_memory(const colio_op_t *op);
/* After SETUP: the record size of the call's lists (access/split.h), the same on every rank. */
static inline int colio_op_meta_words(const colio_op_t *op)
{
    return colio_meta_words_for((int)op->agree_out.setup.two_phase.piece_meta, op->glo, op->ghi);
}

#endif
