/* The end of an operation's agreements (final.c): FINAL, FINAL_WAIT, ERRMSG. */
#ifndef COLIO_ENGINE_FINAL_H
#define COLIO_ENGINE_FINAL_H

#include "engine/op.h"

int colio_step_final(colio_op_t *op);
int colio_step_final_wait(colio_op_t *op);
int colio_step_errmsg(colio_op_t *op);

#endif
