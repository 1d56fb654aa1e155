/*
 * Operations in flight on one file and the order between them. Several
 * nonblocking operations (and one blocking call) may run at once; their
 * results must equal the same calls made one after the other in issue
 * order (MPI's semantics for nonblocking collective I/O). Each operation
 * runs on its own communicator, so messages never cross; what remains is the
 * order of storage accesses, kept by two gates:
 *   - a read looks at the end of file (START) only after every earlier write
 *     in flight has completed everywhere;
 *   - an operation touches storage (GATE, after SETUP agreed its global
 *     extent) only after every earlier operation whose extent overlaps its
 *     own, one of the two a write, has completed everywhere; an early direct
 *     access (direct.c), before SETUP, checks its own extent on this rank
 *     the same way, and while it runs its operation's extent counts as
 *     unknown (it conflicts with every later one).
 * "Completed everywhere" is the earlier operation's FINAL agreement: a rank
 * enters it only after its own storage calls returned, so once it completed
 * on this rank every rank's bytes are in the file. Operations of a file
 * whose hints select a one-sided kernel share the file's window, whose
 * epochs cannot interleave: there every operation waits for all earlier ones.
 */
#ifndef COLIO_ENGINE_ORDER_H
#define COLIO_ENGINE_ORDER_H

#include "engine/op.h"

struct colio_file;

/* The next operation's sequence number on the file (the same on every rank: collective calls in one order). */
int64_t colio_order_next(struct colio_file *fh);
/* Append op, operation number seq, to the file's operations in flight. */
void colio_order_join(struct colio_file *fh, colio_op_t *op, int64_t seq);
/* Remove op (finished). */
void colio_order_leave(struct colio_file *fh, colio_op_t *op);
/* START gate: whether a read may query the end of file now (writes: always). */
int colio_order_may_start(const colio_op_t *op);
/* GATE: whether op may touch storage now. */
int colio_order_may_access(const colio_op_t *op);
/* The same for the file bytes [lo, hi) only (an early direct access: this rank's own extent). */
int colio_order_may_access_range(const colio_op_t *op, int64_t lo, int64_t hi);

#endif
