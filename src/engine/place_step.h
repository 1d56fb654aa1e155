/* PLACE, PATTERN_COUNTS, PATTERN (place_step.c): the call's aggregators, at once or from its pattern. */
#ifndef COLIO_ENGINE_PLACE_STEP_H
#define COLIO_ENGINE_PLACE_STEP_H

#include "engine/op.h"

struct colio_agg_set;

int colio_step_place(colio_op_t *op);
int colio_step_pattern_counts(colio_op_t *op);
int colio_step_pattern(colio_op_t *op);
/* The aggregator set of the call (the wide one for large calls where configured), after SETUP. */
const struct colio_agg_set *colio_op_agg_set(const colio_op_t *op);

#endif
