/* INIT: validate the call and list this rank's pieces, from the view or the caller's list (local). */
#include "engine/init.h"

#include "engine/arrays.h"
#include "engine/file.h"
#include "engine/step.h"



/* ---- INIT: validate and list this rank's pieces -------------------------------- */

static int check_mode(colio_op_t *op)
{
    int amode = op->fh->amode;
    if (op->args.kind == COLIO_OP_WRITE && (amode & MPI_MODE_RDONLY))
        return colio_op_fail(op, COLIO_ERR_READONLY, "%s was opened read-only", op->fh->path);
    if (op->args.kind == COLIO_OP_READ && (amode & MPI_MODE_WRONLY))
        return colio_op_fail(op, COLIO_ERR_ACCESS, "%s was opened write-only", op->fh->path);
    return 0;
}

/* Memory side: flatten the memtype and describe the user's stream. */
static int init_memory(colio_op_t *op)
{
    const colio_op_args_t *a = &op->args;
    colio_file *fh = op->fh;
    if (a->count < 0)
        return colio_op_fail(op, COLIO_ERR_ARG, "negative count %lld", (long long)a->count);
    colio_err_t e;
    colio_err_clear(&e);
    int known = (op->memflat = colio_flat_named(a->memtype)) != NULL; /* valid, flattened before */
    op->memflat_owned = 0;
    if (!known && (colio_type_check(a->memtype, fh->comm, "memtype", &e) != 0 ||
                   colio_flat_get(a->memtype, &op->memflat, &op->memflat_owned, &e) != 0))
        return colio_op_fail(op, e.code, "%s", e.msg);
    const colio_flat_t *f = op->memflat;
    if (f->size > 0 && a->count > INT64_MAX / f->size)
        return colio_op_fail(op, COLIO_ERR_ARG, "count * type size overflows 64 bits");
    op->nbytes = a->count * f->size;
    /* NULL is MPI_BOTTOM: valid with a derived memtype of absolute addresses */
    if (op->nbytes > 0 && a->buf == NULL && colio_type_is_predefined(a->memtype))
        return colio_op_fail(op, COLIO_ERR_ARG, "NULL buffer with %lld bytes to move", (long long)op->nbytes);
    op->mem.base = a->buf;
    op->mem.flat = f;
    const colio_run_t *r0 = f->runs.n ? &f->runs.r[0] : NULL;
    if (f->runs.n == 1 && r0->count == 1 && (a->count == 1 || colio_flat_dense(f))) { /* the stream is one stretch */
        op->mem.base = colio_addr(a->buf, r0->off);
        op->mem.flat = NULL;
    }
    return 0;
}

int colio_init_access(colio_op_t *op)
{
    const colio_op_args_t *a = &op->args;
    colio_file *fh = op->fh;
    colio_err_t e;
    colio_err_clear(&e);
    if (a->list) {
        if (colio_access_from_list(a->nlist, a->offsets, a->lengths, &op->acc, &e) != 0)
            return colio_op_fail(op, e.code, "%s", e.msg);
        op->nbytes = op->acc.nbytes;
        op->mem.base = a->buf;
        if (op->nbytes > 0 && a->buf == NULL)
            return colio_op_fail(op, COLIO_ERR_ARG, "NULL buffer with %lld bytes to move", (long long)op->nbytes);
        return 0;
    }
    int rc = init_memory(op);
    if (rc != 0)
        return rc;
    if (op->nbytes % fh->view.etype_size != 0)
        return colio_op_fail(op, COLIO_ERR_TYPE, "%lld bytes is not a whole number of etypes (%lld bytes each)",
                             (long long)op->nbytes, (long long)fh->view.etype_size);
    int64_t start = a->use_fp ? fh->fp : a->offset;
    if (colio_access_from_view(&fh->view, start, op->nbytes, &op->acc, &e) != 0)
        return colio_op_fail(op, e.code, "%s", e.msg);
    return 0;
}

int colio_step_init(colio_op_t *op)
{
    if (op->args.refused)
        colio_op_fail(op, COLIO_ERR_ARG, "%s", op->args.refused);
    if (op->err.code == 0 && check_mode(op) == 0 && colio_init_access(op) == 0)
        colio_arrays_take(op);
    op->stats.work_runs += op->acc.n;
    if (op->err.code != 0)
        colio_access_free(&op->acc); /* take part with nothing to move */
    op->phase = COLIO_PH_START;
    return COLIO_STEP_NEXT;
}