/* The INIT arrays of an operation (arrays.c): sized by the ranks and aggregators, kept in the file's pool. */
#ifndef COLIO_ENGINE_ARRAYS_H
#define COLIO_ENGINE_ARRAYS_H

#include "engine/op.h"

struct colio_file;

/* Size op's arrays for the file's aggregators (op->arr_naggs, op->arr_kinds): what colio_arrays_take takes. */
void colio_arrays_shape(colio_op_t *op);
/* INIT: take them, or reserve the set the call before gave back unused; 0, or op's error. */
int colio_arrays_take(colio_op_t *op);
/* A call that plans: take the reserved set (cannot fail: while reserved no other operation takes it). */
void colio_arrays_take_reserved(colio_op_t *op);
/* A call that never planned: give them back unwritten (or release the reservation). */
void colio_arrays_give_unused(colio_op_t *op);
/* Reserve the file's arrays for the operation room may become (1), kept or made now; 0: out of memory. */
int colio_arrays_reserve(colio_op_t *room, struct colio_file *fh);
/* Give an array of kind (engine/file.h, colio_array_kind) back to the file for the next operation. */
void colio_op_give_array(colio_op_t *op, int kind, void *p);
/* From the file alone (hints, ranks): whether the sparse counts step may run (then its arrays are taken). */
int colio_counts_may_be_sparse(const struct colio_file *fh);

#endif
