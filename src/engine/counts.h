/* The sparse counts step (counts.c): who sends to whom, without an all-to-all. */
#ifndef COLIO_ENGINE_COUNTS_H
#define COLIO_ENGINE_COUNTS_H

#include "engine/op.h"

/* Whether this call's counts go through the sparse step (agreed values only). */
int colio_counts_sparse(const colio_op_t *op);
/* Post the step's first agreement: COUNTS_SENDERS next. */
void colio_counts_start(colio_op_t *op);
void colio_counts_free(colio_op_t *op);
int colio_step_counts_senders(colio_op_t *op);
int colio_step_counts_msgs(colio_op_t *op);

#endif
