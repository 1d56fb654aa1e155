/*
 * The direct path: each rank reads or writes its own pieces (engine/direct.c),
 * with data sieving of reads where it pays. Taken where the pieces are large
 * enough that aggregation saves no storage call, where the cost model
 * predicts it cheaper, where a hint asks (romio_cb_write / romio_cb_read =
 * disable), and always where a rank's pieces overlap (a read-only view may
 * name a byte twice), which two-phase I/O's file domains cannot hold.
 */
#include <stddef.h>

#include "engine/file.h"
#include "engine/path.h"
#include "engine/plancache.h"

static colio_toggle_t cb_hint(const colio_op_t *op)
{
    const colio_hints_t *h = &op->fh->hints;
    return op->args.kind == COLIO_OP_WRITE ? h->cb_write : h->cb_read;
}

static int qualifies(const colio_op_t *op)
{
    colio_toggle_t cb = cb_hint(op);
    if (cb == COLIO_DISABLE || op->agree_out.setup.direct.eligible < 0) /* by hint, or some rank's pieces overlap */
        return COLIO_PATH_MUST;
    if (cb == COLIO_ENABLE || op->fh->hints.no_indep_rw)
        return COLIO_PATH_NO;
    return COLIO_PATH_MAY;
}

/*
 * Without a cost model (colio_storage_model=off). Direct when every rank's
 * pieces average at least colio_direct_min bytes (one contiguous extent per
 * rank is the usual case: nothing to aggregate). For reads also when every
 * rank could read its own extent whole with data sieving at a total cost of
 * at most colio_read_sieve_ratio times the bytes asked for: then
 * independent sieved reads beat moving the data through aggregators (two
 * ranks interleaving on one node), while at scale interleaved extents make
 * the ratio about the rank count and aggregation is kept.
 */
static int rule(const colio_op_t *op)
{
    const colio_hints_t *h = &op->fh->hints;
    const colio_setup_words_t *w = &op->agree_out.setup;
    if (w->direct.eligible == 1) /* every rank: large pieces, or nothing */
        return 1;
    int64_t extents = w->totals.extent, bytes = w->totals.bytes;
    return op->args.kind == COLIO_OP_READ && h->read_sieve_ratio > 0 && bytes > 0 &&
           extents / h->read_sieve_ratio <= bytes;
}

static colio_phase_t enter(colio_op_t *op)
{
    colio_plancache_give_back(op); /* a borrowed plan serves two-phase calls only */
    return COLIO_PH_DIRECT;
}

/*
 * 1: pieces this large gain nothing from aggregation (one storage call each
 * either way), or there is at most one (early direct access); -1 where
 * pieces overlap, which the MIN agreement hands to all.
 */
static void propose(colio_op_t *op, const colio_proposal_t *p, colio_setup_words_t *w)
{
    (void)op;
    const colio_access_t *acc = p->acc;
    if (acc->overlaps)
        w->direct.eligible = -1;
    else
        w->direct.eligible = acc->npieces <= 1 || acc->nbytes / acc->npieces >= p->fh->hints.direct_min;
}

const colio_path_ops_t colio_path_direct = {
    .name = "direct",
    .at = COLIO_PATH_AT_SETUP,
    .qualifies = qualifies,
    .enter = enter,
    .predict = colio_model_direct,
    .predicted = offsetof(colio_op_stats, predicted_direct),
    .rule = rule,
    .propose = propose,
};
