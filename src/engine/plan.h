/* PLAN, COUNTS_POST, COUNTS, READY, META (plan.c): file domains, the lists per aggregator, the buffers. */
#ifndef COLIO_ENGINE_PLAN_H
#define COLIO_ENGINE_PLAN_H

#include "engine/op.h"

int colio_step_plan(colio_op_t *op);
int colio_step_counts_post(colio_op_t *op);
int colio_step_counts(colio_op_t *op);
int colio_step_ready(colio_op_t *op);
int colio_step_meta(colio_op_t *op);
/* Whether the call's rounds are pipelined (two collective buffers): agreed values only. */
int colio_plan_pipelines(const colio_op_t *op);
/* Detach the one-sided window's memory. */
void colio_plan_detach(colio_op_t *op);
void colio_plan_free(colio_op_t *op);

#endif
