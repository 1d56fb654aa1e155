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
    colio_lanes_form(fh);
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
