/* START, PROPOSE, SETUP, EOF, GATE (setup.c): the call's agreement, and the path it takes. */
#ifndef COLIO_ENGINE_SETUP_H
#define COLIO_ENGINE_SETUP_H

#include "engine/op.h"

struct colio_file;

int colio_step_start(colio_op_t *op);
int colio_step_propose(colio_op_t *op);
int colio_step_setup(colio_op_t *op);
int colio_step_eof(colio_op_t *op);
int colio_step_gate(colio_op_t *op);
/* The SETUP reduction: MIN of the first COLIO_SETUP_MIN words, saturating SUM of the rest. */
MPI_Op colio_setup_op(void);
/* The SETUP words of a call whose piece on this rank moved before the agreement (staged or early). */
colio_setup_words_t colio_setup_words_moved(const struct colio_file *fh, int64_t err_key, int staged);
/* What SETUP's agreed words (op->agree_out.setup) make of the call: the next phase set. */
int colio_setup_agreed(colio_op_t *op);

#endif
