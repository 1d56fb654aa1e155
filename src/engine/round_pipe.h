/* The rounds' storage jobs (round_pipe.c): a round's writes behind the next one's exchange, its reads ahead. */
#ifndef COLIO_ENGINE_ROUND_PIPE_H
#define COLIO_ENGINE_ROUND_PIPE_H

#include "engine/op.h"

/* Whether round r's buffer is free (its earlier job done); has_data: it will carry data. */
int colio_round_pipe_ready(colio_op_t *op, int64_t r, int has_data);
void colio_round_pipe_submit(colio_op_t *op, colio_round_buf_t *b);
/* A storage read of [off, off+len) into buf for the round (its holes, or all of it). */
void colio_round_fetch_add(colio_op_t *op, char *buf, int64_t len, int64_t off);
void colio_round_fetch_submit(colio_op_t *op);
int colio_round_fetch_done(colio_op_t *op);
/* The job's calls over a round's coverage c (whole: the round's extent as one call) at cbuf for rs. */
int colio_round_job_fill(colio_exec_job_t *job, const colio_coverage_t *c, int whole, char *cbuf, int64_t rs);
void colio_round_pipe_free(colio_op_t *op);

#endif
