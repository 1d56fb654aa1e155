/*
 * The engine's side of a file (see progress.h): its registration with the
 * progress engine, the progress mode its hints ask for, the lane
 * communicators of its nonblocking operations, and running blocking
 * operations and file calls to completion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/file.h"
#include "engine/progress.h"

/* ---- the file's registration and lanes --------------------------------------------- */

static int wants_thread(const colio_hints_t *h)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (strcmp(h->progress, "thread") == 0)
        return 1;
    return strcmp(h->progress, "auto") == 0 && level == MPI_THREAD_MULTIPLE;
}

int colio_progress_check_hints(const colio_hints_t *h, colio_err_t *err)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (strcmp(h->progress, "thread") == 0 && level != MPI_THREAD_MULTIPLE)
        return colio_err_set(err, COLIO_ERR_HINT,
                             "colio_progress=thread needs MPI_Init_thread with MPI_THREAD_MULTIPLE (this process has level %d)",
                             level);
    return COLIO_SUCCESS;
}

int colio_progress_file_open(colio_file *fh, colio_err_t *err)
{
    colio_progress_file_t *f = calloc(1, sizeof *f);
    if (f == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "colio_open: out of memory");
    f->fh = fh;
    f->forming = -1;
    fh->prog = f;
    colio_progress_lock();
    colio_progress_files_add(f);
    colio_progress_unlock();
    colio_progress_file_rehint(fh);
    return COLIO_SUCCESS;
}

void colio_progress_file_rehint(colio_file *fh)
{
    colio_progress_file_t *f = fh->prog;
    int t = wants_thread(&fh->hints);
    colio_progress_lock();
    if (t)
        colio_progress_thread_need();
    f->threaded = t;
    colio_progress_unlock();
}

void colio_progress_file_close(colio_file *fh)
{
    colio_progress_file_t *f = fh->prog;
    if (f == NULL)
        return;
    colio_progress_lock();
    colio_progress_files_remove(f);
    colio_progress_unlock();
    for (int i = 0; i < f->nlanes; i++) {
        if (f->lanes[i].forming != MPI_REQUEST_NULL) /* an operation-less duplicate still forming */
            MPI_Wait(&f->lanes[i].forming, MPI_STATUS_IGNORE);
        if (f->lanes[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&f->lanes[i].comm);
    }
    free(f->lanes);
    free(f);
    fh->prog = NULL;
}

static int lane_is_free(void *arg) { return ((colio_lane_t *)arg)->user == NULL; }

/* Room for want lanes (no communicator yet). Lock held; no operation of the file is in flight when it grows. */
static int lanes_room(colio_progress_file_t *f, int want)
{
    if (want <= f->nlanes)
        return 0;
    colio_lane_t *grown = realloc(f->lanes, sizeof *grown * (size_t)want);
    if (grown == NULL)
        return -1;
    for (int i = f->nlanes; i < want; i++)
        grown[i] = (colio_lane_t){MPI_COMM_NULL, MPI_REQUEST_NULL, NULL};
    f->lanes = grown;
    f->nlanes = want;
    return 0;
}

/*
 * Start duplicating the next lane's communicator from the file's own.
 * Without one (the communicator's cache could not be kept, or SMPI, where
 * the "duplicate" is the communicator itself) the lane is made at once with
 * a blocking MPI_Comm_dup of the file's communicator: an idup there could
 * start at different points on different ranks among the file's other
 * collectives. (Then two files' first nonblocking calls must not cross.)
 */
static void lane_dup_start(colio_file *fh, colio_lane_t *s)
{
    s->forming = MPI_REQUEST_NULL;
    if (fh->own == MPI_COMM_NULL) {
        if (fh->cache || MPI_Comm_dup(fh->comm, &s->comm) != MPI_SUCCESS)
            fh->prog->lost = 1; /* with a cache the own duplicate did not form at open (api/file.c, take_own) */
        return;
    }
    if (MPI_Comm_idup(fh->own, &s->comm, &s->forming) != MPI_SUCCESS)
        fh->prog->lost = 1;
}

/*
 * Move the file's lane duplicates along: one MPI_Comm_idup at a time, in
 * lane order, from the file's own duplicate, a communicator used for
 * nothing else (api/comm_cache.h). Every rank starts them in the same
 * order, so they pair alike; one at a time because Open MPI 4.1 runs the
 * later rounds of an idup's context-id agreement from its progress engine,
 * where several at once could pair differently on different ranks. Never
 * a blocking duplicate: two files' first nonblocking calls may come in
 * different orders on different ranks, and each would wait for the other.
 * (A file without its own duplicate, which only a failed cache leaves,
 * duplicates from its communicator; then a nonblocking call must not cross
 * another file's first one.)
 */
static void lanes_form(colio_file *fh)
{
    colio_progress_file_t *f = fh->prog;
    int64_t want = f->started < f->want ? f->started : f->want; /* the lanes taken: alike on every rank */
    while (!f->lost) {
        if (f->forming >= 0) {
            colio_lane_t *s = &f->lanes[f->forming];
            int done = 1;
            if (s->forming != MPI_REQUEST_NULL && MPI_Test(&s->forming, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                f->lost = 1, done = 0;
            if (!done)
                return;
            MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
            f->nformed++;
            f->forming = -1;
        }
        if (f->nformed >= want)
            return;
        f->forming = f->nformed;
        lane_dup_start(fh, &f->lanes[f->forming]);
    }
}

int colio_lane_formed(colio_op_t *op)
{
    colio_progress_file_t *f = op->fh->prog;
    int k = (int)(op->lane - f->lanes);
    if (k >= f->nformed)
        lanes_form(op->fh);
    if (k < f->nformed) {
        op->comm = op->lane->comm;
        return 1;
    }
    return f->lost ? -1 : 0;
}

void colio_lane_lost(colio_op_t *op)
{
    fprintf(stderr, "colio: %s on %s: the communicator of a nonblocking operation could not be duplicated "
            "(MPI_Comm_idup failed); aborting (the other ranks would wait forever)\n", op->args.api, op->fh->path);
    MPI_Abort(op->fh->comm, COLIO_ERR_MPI);
}

/*
 * The lane of the next nonblocking operation: n mod colio_max_outstanding,
 * the same on every rank; if its previous operation is still in flight,
 * progress until it completes (that is the bound on outstanding
 * operations). Its communicator may still be forming (colio_lane_formed).
 */
colio_lane_t *colio_lane_take(colio_file *fh)
{
    colio_progress_file_t *f = fh->prog;
    int want = fh->hints.max_outstanding;
#ifdef COLIO_SMPI_NB_SLOTS
    want = COLIO_SMPI_NB_SLOTS; /* one communicator under SMPI (base/smpi_compat.h) */
#endif
    if (lanes_room(f, want) != 0 || f->lost)
        return NULL;
    f->want = want;
    colio_lane_t *s = &f->lanes[f->started++ % want];
    if (s->user)
        colio_progress_until(lane_is_free, s, s->user);
    lanes_form(fh);
    return s;
}

/* ---- blocking calls and file calls ---------------------------------------------------- */

static int op_done(void *arg) { return ((colio_op_t *)arg)->phase == COLIO_PH_DONE; }

void colio_progress_run(colio_op_t *op) { colio_progress_until(op_done, op, op); }

static int file_idle(void *arg) { return ((colio_file *)arg)->nops == 0; }

void colio_progress_complete_file(colio_file *fh)
{
    while (fh->nops > 0)
        colio_progress_until(file_idle, fh, fh->ops_head);
}
