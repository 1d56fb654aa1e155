/*
 * Early direct access: a rank whose access is one contiguous piece has
 * nothing to gain from aggregation and nothing to agree before moving it
 * (ROMIO takes the independent path when ranks' extents do not interleave,
 * and one piece per rank never does). It moves the piece first, through
 * DIRECT, and takes part in the SETUP agreement with an empty access, so a
 * call of such pieces everywhere is storage I/O plus one agreement, which
 * carries the I/O's errors too. Where other ranks still need two-phase I/O
 * this is the hybrid path: the piece is in the file before any aggregator
 * reads around it.
 */
#include "engine/file.h"
#include "engine/order.h"
#include "engine/path.h"

/*
 * Not when a hint asks for collective buffering, nor for a read into
 * memory of several stretches or from a store whose reads do not stop at
 * the end of file (subfiles): the end of file is not agreed yet, so the
 * read itself must find it and leave bytes past it as they were, which only
 * a read straight into the user's memory does.
 */
static int qualifies(const colio_op_t *op)
{
    const colio_access_t *acc = &op->acc;
    const colio_hints_t *h = &op->fh->hints;
    int reading = op->args.kind == COLIO_OP_READ;
    if (op->err.code != 0 || acc->npieces != 1)
        return 0;
    if (reading && (op->mem.flat != NULL || (op->fh->store->caps & COLIO_STORE_CAP_NO_SHORT_READS)))
        return 0; /* where the end of file cannot be seen while reading, it must be agreed first */
    if ((reading ? h->cb_read : h->cb_write) == COLIO_ENABLE || h->no_indep_rw)
        return 0;
    return colio_order_may_access_range(op, colio_access_run(acc, 0).off, acc->end);
}

/* DIRECT moves the piece and goes on to PROPOSE (engine/direct.c, colio_direct_early_done). */
static colio_phase_t enter(colio_op_t *op)
{
    op->early = 1;
    return COLIO_PH_DIRECT;
}

const colio_path_ops_t colio_path_early = {
    .name = "early",
    .at = COLIO_PATH_AT_START,
    .qualifies = qualifies,
    .enter = enter,
};
