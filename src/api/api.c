/* The public collective data calls: each builds an operation and runs it to completion. */
#include <stddef.h>

#include "engine/finish.h"
#include "engine/path_express.h"
#include "engine/step.h"
#include "engine/file.h"
#include "engine/op.h"
#include "engine/progress.h"

/* Blocking calls run in the engine too: operations in flight on the file progress meanwhile (engine/progress.h). */
static int run_blocking(colio_file *fh, const colio_op_args_t *args, MPI_Status *status)
{
    colio_op_t op;
    int code;
    if (colio_express_run(fh, args, status, &op, &code)) /* one piece: engine/path_express.h */
        return code;
    colio_progress_lock();
    colio_op_init(&op, fh, args);
    colio_progress_run(&op);
    code = colio_op_finish(&op, status);
    colio_progress_unlock();
    return code;
}

static int view_op(colio_file *fh, colio_op_kind_t kind, const char *api, int use_fp, MPI_Offset offset,
                   const void *buf, MPI_Count count, MPI_Datatype memtype, MPI_Status *status)
{
    if (!colio_file_valid(fh))
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: NULL or closed file handle", api);
    colio_op_args_t a = {.kind = kind, .api = api, .use_fp = use_fp, .offset = offset, .buf = (void *)buf,
                         .count = count, .memtype = memtype};
    return run_blocking(fh, &a, status);
}

int colio_write_all(colio_file *fh, const void *buf, MPI_Count count, MPI_Datatype memtype, MPI_Status *status)
{
    return view_op(fh, COLIO_OP_WRITE, "colio_write_all", 1, 0, buf, count, memtype, status);
}

int colio_read_all(colio_file *fh, void *buf, MPI_Count count, MPI_Datatype memtype, MPI_Status *status)
{
    return view_op(fh, COLIO_OP_READ, "colio_read_all", 1, 0, buf, count, memtype, status);
}

int colio_write_at_all(colio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                       MPI_Datatype memtype, MPI_Status *status)
{
    return view_op(fh, COLIO_OP_WRITE, "colio_write_at_all", 0, offset, buf, count, memtype, status);
}

int colio_read_at_all(colio_file *fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype memtype,
                      MPI_Status *status)
{
    return view_op(fh, COLIO_OP_READ, "colio_read_at_all", 0, offset, buf, count, memtype, status);
}

static int list_op(colio_file *fh, colio_op_kind_t kind, const char *api, MPI_Count n, const MPI_Offset *offsets,
                   const MPI_Offset *lengths, const void *buf)
{
    if (!colio_file_valid(fh))
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: NULL or closed file handle", api);
    colio_op_args_t a = {.kind = kind, .api = api, .list = 1, .buf = (void *)buf, .nlist = n,
                         .offsets = offsets, .lengths = lengths, .memtype = MPI_BYTE};
    return run_blocking(fh, &a, MPI_STATUS_IGNORE);
}

int colio_write_list_all(colio_file *fh, MPI_Count n, const MPI_Offset offsets[], const MPI_Offset lengths[],
                         const void *buf)
{
    return list_op(fh, COLIO_OP_WRITE, "colio_write_list_all", n, offsets, lengths, buf);
}

int colio_read_list_all(colio_file *fh, MPI_Count n, const MPI_Offset offsets[], const MPI_Offset lengths[],
                        void *buf)
{
    return list_op(fh, COLIO_OP_READ, "colio_read_list_all", n, offsets, lengths, buf);
}
