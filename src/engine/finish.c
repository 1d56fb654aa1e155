/* The end of an operation on this rank: status, file pointer, statistics, everything it held given back. */
#include "engine/finish.h"

#include <stdio.h>
#include <string.h>

#include "base/status.h"
#include "engine/arrays.h"
#include "engine/counts.h"
#include "engine/direct.h"
#include "engine/file.h"
#include "engine/order.h"
#include "engine/plan.h"
#include "engine/plancache.h"
#include "engine/round.h"
#include "engine/stats.h"
#include "engine/step.h"

/* The placement's metrics (two-phase operations only: the direct path has no aggregators). */
static void placement_stats(colio_op_t *op)
{
    colio_op_stats *s = &op->stats;
    const colio_place_metrics_t *m = &op->plan.metrics;
    if (op->plan.aggs == NULL)
        return;
    snprintf(s->placement, sizeof s->placement, "%s", op->fh->cfg.place->name);
    s->hop_bytes = m->hop_bytes;
    s->max_link_bytes = m->max_link_bytes;
    s->agg_bytes_max = m->max_agg_bytes;
    s->agg_bytes_min = m->min_agg_bytes;
    s->predicted_cost = m->predicted_cost;
}

static void exchange_stats(colio_op_t *op)
{
    colio_op_stats *s = &op->stats;
    s->messages = op->meta.nmsgs + op->rnd.x.nmsgs;
    s->meta_messages += op->meta.nmsgs;
    s->max_requests = op->meta.max_reqs > op->rnd.x.max_reqs ? op->meta.max_reqs : op->rnd.x.max_reqs;
    if (op->kern_meta)
        snprintf(s->meta_kernel, sizeof s->meta_kernel, "%s", op->kern_meta->name);
    if (op->kern_data)
        snprintf(s->data_kernel, sizeof s->data_kernel, "%s", op->kern_data->name);
}

int colio_op_finish(colio_op_t *op, MPI_Status *status)
{
    colio_file *fh = op->fh;
    int code = op->err.code;
    int64_t moved = code == 0 ? op->acc.nbytes + op->early_bytes : 0;
    if (colio_status_wanted(status))
        MPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)moved);
    if (code == 0 && op->args.use_fp && !op->fp_done)
        fh->fp += moved / fh->view.etype_size;
    op->stats.bytes = moved;
    op->stats.pieces = op->acc.npieces + op->early_pieces;
    exchange_stats(op);
    placement_stats(op);
    colio_plancache_keep(op);
    int64_t held = colio_op_memory(op);
    op->stats.memory = held > op->stats.memory ? held : op->stats.memory;
    op->stats.time.total = colio_op_clock_at_done(op) - op->t_start;
    colio_stats_record(fh, &op->stats, op->args.api);
    colio_file_result(fh, &op->err);
    colio_order_leave(fh, op);
    colio_direct_free(op);
    if (op->planned) {
        colio_plan_detach(op);
        colio_round_free(op);
        colio_counts_free(op);
        colio_plan_free(op);
    } else {
        colio_arrays_give_unused(op);
    }
    colio_access_free(&op->acc);
    if (op->memflat)
        colio_flat_release(op->memflat, op->memflat_owned);
    op->memflat = NULL;
    return code;
}