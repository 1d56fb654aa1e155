/* ROUND, ROUND_FETCH, ROUND_XCHG (round.c): per round, plan, data exchange, merge, storage I/O. */
#ifndef COLIO_ENGINE_ROUND_H
#define COLIO_ENGINE_ROUND_H

#include "engine/op.h"

int colio_step_round(colio_op_t *op);
int colio_step_round_fetch(colio_op_t *op);
int colio_step_round_xchg(colio_op_t *op);
void colio_round_free(colio_op_t *op);

#endif
