/*
 * Two-phase I/O (Thakur & Choudhary; ROMIO's generic driver): file domains
 * per aggregator, the lists and the data exchanged in rounds, each
 * aggregator's round one storage call (engine/plan.c, engine/round.c). The
 * fallback path: where hints force collective buffering, where the cost
 * model predicts it no dearer than the direct path, and without a model
 * wherever the direct path's rules do not hold.
 */
#include <stddef.h>

#include "engine/arrays.h"
#include "engine/path.h"

static colio_phase_t enter(colio_op_t *op)
{
    colio_arrays_take_reserved(op);
    return COLIO_PH_PLAN;
}

/* The stored plan this rank proposes (engine/plancache.c), and the record size its lists need. */
static void propose(colio_op_t *op, const colio_proposal_t *p, colio_setup_words_t *w)
{
    (void)op;
    const colio_access_t *acc = p->acc;
    int64_t shift = p->plan_shift;
    w->two_phase = (colio_setup_two_phase_t){
        .plan_id = p->plan_id,
        .plan_id_neg = -p->plan_id,
        .plan_shift = shift,
        .plan_shift_neg = shift == COLIO_PLAN_SHIFT_ANY ? COLIO_PLAN_SHIFT_ANY : -shift,
        .piece_meta = acc->npieces <= 2 * acc->n,
    };
}

const colio_path_ops_t colio_path_two_phase = {
    .name = "two-phase",
    .at = COLIO_PATH_AT_SETUP,
    .enter = enter,
    .predict = colio_model_two_phase,
    .predicted = offsetof(colio_op_stats, predicted_two_phase),
    .propose = propose,
};
