/* The direct path's steps (direct.c): each rank accesses its own pieces. */
#ifndef COLIO_ENGINE_DIRECT_H
#define COLIO_ENGINE_DIRECT_H

#include "engine/op.h"

int colio_step_direct(colio_op_t *op);
/* Free the direct path's jobs and bounce buffer (waiting for jobs in flight). */
void colio_direct_free(colio_op_t *op);
/* Whether pieces at memory m, n bytes long, at file offset off move through the bounce buffer. */
int colio_direct_misaligned(colio_op_kind_t kind, const char *m, int64_t n, int64_t off);
/* The piece moved before SETUP (engine/path_early.c): clipped at the end of file seen, the access emptied. */
void colio_direct_early_done(colio_op_t *op);

#endif
