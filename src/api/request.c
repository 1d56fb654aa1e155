/*
 * Nonblocking collective calls and their requests (the engine that runs
 * them: engine/progress.h): initiation, test and wait, generalized MPI
 * requests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colio.h"
#include "base/grequest.h"
#include "base/retire.h"
#include "base/status.h"
#include "engine/file.h"
#include "engine/finish.h"
#include "engine/progress.h"
#include "engine/step.h"

#define REQUEST_MAGIC 0x636f6c72u /* "colr": a request not yet completed by the caller */

struct colio_request {
    colio_op_t op;       /* first: the engine knows requests by their operation */
    unsigned magic;      /* REQUEST_MAGIC until freed (then kept a while: base/retire.h) */
    colio_file *fh;
    colio_lane_t *lane;
    int done;            /* finished: code and status hold the outcome */
    int code;
    MPI_Status status;
    int has_mpi;         /* a generalized request stands for it (colio_request_get_mpi) */
    MPI_Request mreq;
    int refs;            /* holders: the caller (until colio_test/wait, or until completion once MPI
                            holds it) and, with has_mpi, MPI (until it calls greq_free) */
};

static colio_request *request_of(colio_op_t *op) { return (colio_request *)op; }

static colio_retire_t retired = COLIO_RETIRE_INIT;

/* Whether r is a live request: not a copy of one already completed and freed. */
static int live(const colio_request *r) { return r->magic == REQUEST_MAGIC; }

static void finish_request(colio_op_t *op);

/* ---- initiation ------------------------------------------------------------------------ */

/*
 * A request can only fail to exist when memory or MPI fail on this rank;
 * the other ranks have started the operation and would wait for it
 * forever, so the process stops with a message instead of hanging.
 */
static void cannot_start(colio_file *fh, const char *api, const char *why)
{
    fprintf(stderr, "colio: %s on %s: %s; aborting (the other ranks would wait forever)\n", api, fh->path, why);
    MPI_Abort(fh->comm, COLIO_ERR_NOMEM);
}

/*
 * Start the operation. A rank given no place for the request still takes
 * part, with the operation failing its arguments there (the other ranks
 * have started it and wait for its agreement), and completes it before
 * returning: every rank then has the same code and message.
 */
static int initiate(colio_file *fh, const colio_op_args_t *given, colio_request **req_p)
{
    if (!colio_file_valid(fh))
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: NULL or closed file handle", given->api);
    colio_op_args_t args = *given;
    colio_request *mine = NULL, **out = req_p ? req_p : &mine;
    char why[96];
    if (req_p == NULL) {
        snprintf(why, sizeof why, "NULL request pointer");
        args.refused = why;
    }
    *out = NULL;
    colio_request *r = calloc(1, sizeof *r);
    if (r == NULL)
        cannot_start(fh, args.api, "out of memory for a request");
    colio_progress_lock();
    colio_lane_t *s = colio_lane_take(fh);
    if (s == NULL)
        cannot_start(fh, args.api, "no communicator for the operation (out of memory or MPI_Comm_dup failed)");
    r->magic = REQUEST_MAGIC;
    r->fh = fh;
    r->lane = s;
    r->refs = 1;
    colio_op_init(&r->op, fh, &args);
    r->op.nonblocking = 1;
    r->op.on_done = finish_request;
    r->op.lane = s;
    r->op.comm = MPI_COMM_NULL; /* START waits until the lane has formed */
    s->user = &r->op;
    colio_op_advance(&r->op); /* INIT: the access is taken from the view and file pointer now */
    if (r->op.err.code == 0 && args.use_fp) {
        fh->fp += r->op.nbytes / fh->view.etype_size; /* MPI: the pointer moves at initiation */
        r->op.fp_done = 1;
    }
    colio_progress_all(0);
    if (fh->prog->threaded)
        colio_progress_thread_kick();
    colio_progress_unlock();
    *out = r;
    return req_p ? COLIO_SUCCESS : colio_wait(&mine, MPI_STATUS_IGNORE);
}

static int view_iop(colio_file *fh, colio_op_kind_t kind, const char *api, int use_fp, MPI_Offset offset,
                    const void *buf, MPI_Count count, MPI_Datatype memtype, colio_request **req)
{
    colio_op_args_t a = {.kind = kind, .api = api, .use_fp = use_fp, .offset = offset, .buf = (void *)buf,
                         .count = count, .memtype = memtype};
    return initiate(fh, &a, req);
}

int colio_iwrite_all(colio_file *fh, const void *buf, MPI_Count count, MPI_Datatype memtype, colio_request **req)
{
    return view_iop(fh, COLIO_OP_WRITE, "colio_iwrite_all", 1, 0, buf, count, memtype, req);
}

int colio_iread_all(colio_file *fh, void *buf, MPI_Count count, MPI_Datatype memtype, colio_request **req)
{
    return view_iop(fh, COLIO_OP_READ, "colio_iread_all", 1, 0, buf, count, memtype, req);
}

int colio_iwrite_at_all(colio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype memtype,
                        colio_request **req)
{
    return view_iop(fh, COLIO_OP_WRITE, "colio_iwrite_at_all", 0, offset, buf, count, memtype, req);
}

int colio_iread_at_all(colio_file *fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype memtype,
                       colio_request **req)
{
    return view_iop(fh, COLIO_OP_READ, "colio_iread_at_all", 0, offset, buf, count, memtype, req);
}

static int list_iop(colio_file *fh, colio_op_kind_t kind, const char *api, MPI_Count n, const MPI_Offset *offsets,
                    const MPI_Offset *lengths, const void *buf, colio_request **req)
{
    colio_op_args_t a = {.kind = kind, .api = api, .list = 1, .buf = (void *)buf, .nlist = n,
                         .offsets = offsets, .lengths = lengths, .memtype = MPI_BYTE};
    return initiate(fh, &a, req);
}

int colio_iwrite_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[], const void *buf,
                          colio_request **req)
{
    return list_iop(fh, COLIO_OP_WRITE, "colio_iwrite_list_all", n, off, len, buf, req);
}

int colio_iread_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[], void *buf,
                         colio_request **req)
{
    return list_iop(fh, COLIO_OP_READ, "colio_iread_list_all", n, off, len, buf, req);
}

/* ---- completion ------------------------------------------------------------------------ */

/*
 * Drop one hold; the last frees. Atomic, without the engine's lock: MPI may
 * call greq_free from inside MPI_Grequest_complete (Open MPI, when the
 * program freed the request early), where that lock is already held.
 */
static void unref_request(colio_request *r)
{
    if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        r->magic = 0;
        colio_retire(&retired, r);
    }
}

/* A done request MPI holds: complete the generalized request, then drop the caller's hold (MPI owns it now). */
static void complete_mpi(colio_request *r)
{
    MPI_Grequest_complete(r->mreq);
    unref_request(r);
}

/* The engine's on_done: the operation reached DONE (lock held); finish it and complete its request. */
static void finish_request(colio_op_t *op)
{
    colio_request *r = request_of(op);
    r->code = colio_op_finish(op, &r->status);
    r->done = 1;
    r->lane->user = NULL;
    if (r->has_mpi)
        complete_mpi(r);
}

static int request_done(void *arg) { return ((colio_request *)arg)->done; }

/* Hand the outcome to the caller and free the request. */
static int release(colio_request **req, MPI_Status *status)
{
    colio_request *r = *req;
    if (colio_status_wanted(status))
        *status = r->status;
    int code = r->code;
    unref_request(r);
    *req = NULL;
    return code;
}

/* MPI_Status of a null request: empty. */
static void empty_status(MPI_Status *status)
{
    if (colio_status_wanted(status)) {
        memset(status, 0, sizeof *status);
        MPI_Status_set_elements_x(status, MPI_BYTE, 0);
    }
}

/*
 * Whether *req may be completed through colio (NULL: done at once); else
 * the reason, on the request's file, or for the calls on a set (in_set) on
 * colio_last_error(NULL).
 */
static int usable(colio_request **req, const char *api, int in_set)
{
    if (req == NULL)
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: NULL request pointer", api);
    if (*req != NULL && !live(*req))
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: not an active request (completed, or freed with its MPI request)",
                          api);
    if (*req != NULL && (*req)->has_mpi)
        return colio_fail(in_set ? NULL : (*req)->fh, COLIO_ERR_ARG,
                          "%s: the request is MPI's now (colio_request_get_mpi): complete it through MPI", api);
    return COLIO_SUCCESS;
}

int colio_wait(colio_request **req, MPI_Status *status)
{
    int rc = usable(req, "colio_wait", 0);
    if (rc != COLIO_SUCCESS)
        return rc;
    if (*req == NULL) {
        empty_status(status);
        return COLIO_SUCCESS;
    }
    colio_progress_lock();
    colio_progress_until(request_done, *req, &(*req)->op);
    int code = release(req, status);
    colio_progress_unlock();
    return code;
}

int colio_test(colio_request **req, int *flag, MPI_Status *status)
{
    int rc = usable(req, "colio_test", 0);
    if (rc != COLIO_SUCCESS)
        return rc;
    if (flag == NULL)
        return colio_fail(*req ? (*req)->fh : NULL, COLIO_ERR_ARG, "colio_test: NULL flag");
    if (*req == NULL) {
        *flag = 1;
        empty_status(status);
        return COLIO_SUCCESS;
    }
    colio_progress_lock();
    colio_progress_all(0);
    *flag = (*req)->done;
    int code = *flag ? release(req, status) : COLIO_SUCCESS;
    colio_progress_unlock();
    return code;
}

typedef struct {
    int n;
    colio_request **reqs;
} request_set_t;

static int all_done(void *arg)
{
    const request_set_t *set = arg;
    for (int i = 0; i < set->n; i++)
        if (set->reqs[i] && !set->reqs[i]->done)
            return 0;
    return 1;
}

/* The first unfinished request of the set, for the engine to block on. */
static colio_op_t *first_pending(const request_set_t *set)
{
    for (int i = 0; i < set->n; i++)
        if (set->reqs[i] && !set->reqs[i]->done)
            return &set->reqs[i]->op;
    return NULL;
}

static int set_usable(int n, colio_request *reqs[], const char *api)
{
    if (n < 0)
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: negative count %d", api, n);
    if (n > 0 && reqs == NULL)
        return colio_fail(NULL, COLIO_ERR_ARG, "%s: NULL array of %d requests", api, n);
    for (int i = 0; i < n; i++) {
        int rc = usable(&reqs[i], api, 1);
        if (rc != COLIO_SUCCESS)
            return rc;
    }
    return COLIO_SUCCESS;
}

/* Release every request of the set; the first error wins (MPI_ERR_IN_STATUS style: each status says its own). */
static int release_all(int n, colio_request *reqs[], MPI_Status statuses[])
{
    int code = COLIO_SUCCESS;
    for (int i = 0; i < n; i++) {
        MPI_Status *st = colio_statuses_wanted(statuses) ? &statuses[i] : MPI_STATUS_IGNORE;
        int rc;
        if (reqs[i] == NULL) {
            empty_status(st);
            rc = COLIO_SUCCESS;
        } else {
            rc = release(&reqs[i], st);
        }
        if (colio_status_wanted(st))
            st->MPI_ERROR = rc;
        if (code == COLIO_SUCCESS)
            code = rc;
    }
    return code;
}

int colio_waitall(int n, colio_request *reqs[], MPI_Status statuses[])
{
    int rc = set_usable(n, reqs, "colio_waitall");
    if (rc != COLIO_SUCCESS)
        return rc;
    request_set_t set = {n, reqs};
    colio_progress_lock();
    while (!all_done(&set))
        colio_progress_until(all_done, &set, first_pending(&set));
    int code = release_all(n, reqs, statuses);
    colio_progress_unlock();
    return code;
}

int colio_testall(int n, colio_request *reqs[], int *flag, MPI_Status statuses[])
{
    int rc = set_usable(n, reqs, "colio_testall");
    if (rc != COLIO_SUCCESS)
        return rc;
    if (flag == NULL)
        return colio_fail(NULL, COLIO_ERR_ARG, "colio_testall: NULL flag");
    request_set_t set = {n, reqs};
    colio_progress_lock();
    colio_progress_all(0);
    *flag = all_done(&set);
    int code = *flag ? release_all(n, reqs, statuses) : COLIO_SUCCESS;
    colio_progress_unlock();
    return code;
}

/* ---- generalized requests ------------------------------------------------------------- */

static int greq_query(void *state, MPI_Status *status)
{
    colio_request *r = state;
    return colio_grequest_status(status, &r->status, colio_mpi_error_class(r->code));
}

/*
 * MPI frees the generalized request: after completion (MPI_Wait, MPI_Test),
 * or, if the program called MPI_Request_free early, possibly before the
 * operation ended (MPICH) or inside MPI_Grequest_complete (Open MPI). The
 * colio request lives on until the engine is done with it too.
 */
static int greq_free(void *state)
{
    unref_request(state);
    return MPI_SUCCESS;
}

int colio_request_get_mpi(colio_request *req, MPI_Request *mreq)
{
    if (req == NULL || !live(req))
        return colio_fail(NULL, COLIO_ERR_ARG, "colio_request_get_mpi: %s", req ? "not an active request" : "NULL request");
    if (mreq == NULL)
        return colio_fail(req->fh, COLIO_ERR_ARG, "colio_request_get_mpi: NULL MPI request pointer");
    colio_progress_lock();
    int code = COLIO_SUCCESS;
    if (req->has_mpi) {
        *mreq = req->mreq;
    } else if (!req->fh->prog->threaded || !colio_progress_thread_running()) {
        code = colio_fail(req->fh, COLIO_ERR_UNSUPPORTED,
                          "colio_request_get_mpi: needs colio_progress=thread (MPI_THREAD_MULTIPLE): "
                          "nothing else would complete the MPI request");
    } else if (MPI_Grequest_start(greq_query, greq_free, colio_grequest_no_cancel, req, &req->mreq) !=
               MPI_SUCCESS) {
        code = colio_fail(req->fh, COLIO_ERR_MPI, "colio_request_get_mpi: MPI_Grequest_start failed");
    } else {
        req->has_mpi = 1;
        __atomic_add_fetch(&req->refs, 1, __ATOMIC_ACQ_REL); /* MPI's hold, dropped by greq_free */
        *mreq = req->mreq;
        if (req->done)
            complete_mpi(req);
    }
    colio_progress_unlock();
    return code;
}
