/* Operations in flight on one file and the order between them (see order.h). */
#include "engine/order.h"

#include "engine/file.h"

int64_t colio_order_next(colio_file *fh) { return fh->op_seq++; }

void colio_order_join(colio_file *fh, colio_op_t *op, int64_t seq)
{
    op->seq = seq;
    op->next = NULL;
    op->prev = fh->ops_tail;
    if (fh->ops_tail)
        fh->ops_tail->next = op;
    else
        fh->ops_head = op;
    fh->ops_tail = op;
    fh->nops++;
}

void colio_order_leave(colio_file *fh, colio_op_t *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else if (fh->ops_head == op)
        fh->ops_head = op->next;
    else
        return; /* not in the list */
    if (op->next)
        op->next->prev = op->prev;
    else
        fh->ops_tail = op->prev;
    op->next = op->prev = NULL;
    fh->nops--;
}

/* Completed everywhere: its FINAL agreement (or an earlier one that ended it) completed here. */
static int completed(const colio_op_t *e) { return e->phase == COLIO_PH_DONE; }

/* Whether e's global extent is known (SETUP agreed it; an early direct access runs before SETUP). */
static int extent_known(const colio_op_t *e) { return e->phase > COLIO_PH_SETUP && !e->early; }

int colio_order_may_start(const colio_op_t *op)
{
    if (op->args.kind != COLIO_OP_READ)
        return 1;
    for (const colio_op_t *e = op->prev; e; e = e->prev)
        if (e->args.kind == COLIO_OP_WRITE && !completed(e))
            return 0;
    return 1;
}

static int conflicts(const colio_op_t *e, const colio_op_t *op, int64_t lo, int64_t hi)
{
    if (completed(e))
        return 0;
    if (op->fh->cfg.has_win)
        return 1; /* one window per file: one-sided epochs of two operations cannot interleave */
    if (e->args.kind == COLIO_OP_READ && op->args.kind == COLIO_OP_READ)
        return 0;
    if (!extent_known(e))
        return 1;
    return e->glo < hi && lo < e->ghi;
}

int colio_order_may_access_range(const colio_op_t *op, int64_t lo, int64_t hi)
{
    for (const colio_op_t *e = op->prev; e; e = e->prev)
        if (conflicts(e, op, lo, hi))
            return 0;
    return 1;
}

int colio_order_may_access(const colio_op_t *op) { return colio_order_may_access_range(op, op->glo, op->ghi); }
