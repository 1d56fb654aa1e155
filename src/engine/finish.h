/* The end of an operation (finish.c). */
#ifndef COLIO_ENGINE_FINISH_H
#define COLIO_ENGINE_FINISH_H

#include "engine/op.h"

/* Fill status, advance the file pointer, record statistics, free everything. Returns the agreed code. */
int colio_op_finish(colio_op_t *op, MPI_Status *status);

#endif
