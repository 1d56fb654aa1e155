/*
 * The chooser (strategy.c): the registry of call paths (engine/path.h) and
 * the only place that decides which one a call takes; the round sizes that
 * follow from the storage figures.
 */
#ifndef COLIO_ENGINE_STRATEGY_H
#define COLIO_ENGINE_STRATEGY_H

#include "engine/model.h"
#include "engine/op.h"
#include "engine/path.h"

struct colio_file;

/* START: the path this rank's access takes before any agreement, if any (op->path); the phase next. */
colio_phase_t colio_strategy_start(colio_op_t *op);
/* SETUP: the path of the agreed call, the same on every rank (op->path); its first phase. */
colio_phase_t colio_strategy_setup(colio_op_t *op);
/* After SETUP: where a START path of some rank sends the call before next (staged pieces: STAGE). */
colio_phase_t colio_strategy_detour(colio_op_t *op, colio_phase_t next);
/* This rank's SETUP words for the chooser and for every path (op NULL: a call moved outside the steps). */
void colio_strategy_propose(colio_op_t *op, const colio_proposal_t *p, colio_setup_words_t *w);
/*
 * Pure: the cheapest of the SETUP paths the cost model predicts, ties to
 * the first in the registry; costs[i] the prediction of the i-th SETUP
 * path (room for COLIO_STRATEGY_PATHS).
 */
#define COLIO_STRATEGY_PATHS 8
const colio_path_ops_t *colio_strategy_cheapest(const colio_call_shape_t *s, const colio_store_figures_t *f,
                                                const colio_net_terms_t *net, double *costs);
/*
 * fh->round_bytes, chosen whenever the hints or the storage figures are
 * (open, set_info): bytes of file per two-phase round ([write][0]) and of
 * the direct path's bounce buffer, a sieved read's size ([write][1]):
 * colio_round_size, else the cost model's choice (colio_model_round_bytes),
 * else, without a model, cb_buffer_size. The same on every rank.
 */
void colio_file_choose_rounds(struct colio_file *fh);

#endif
