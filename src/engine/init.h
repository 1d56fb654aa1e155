/* INIT (init.c): the call's arguments checked, this rank's pieces listed, the INIT arrays taken. */
#ifndef COLIO_ENGINE_INIT_H
#define COLIO_ENGINE_INIT_H

#include "engine/op.h"

int colio_step_init(colio_op_t *op);
/* This rank's access (op->acc, op->mem, op->nbytes) from the arguments; 0, or op's error. */
int colio_init_access(colio_op_t *op);

#endif
