/* FINAL and ERRMSG: the error agreement that ends every operation, and the failing rank's message. */
#include "engine/final.h"

#include "engine/file.h"
#include "engine/step.h"

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