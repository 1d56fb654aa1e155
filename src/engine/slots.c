/*
 * The engine's side of a file (see progress.h): its registration with the
 * progress engine, the progress mode its hints ask for, the slot
 * communicators of its nonblocking operations, and running blocking
 * operations and file calls to completion.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/file.h"
#include "engine/progress.h"

/* ---- the file's registration and slots --------------------------------------------- */

static int wants_thread(const colio_hints_t *h)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (strcmp(h->progress, "thread") == 0)
        return 1;
    return strcmp(h->progress, "auto") == 0 && level == MPI_THREAD_MULTIPLE;
}

int colio_nb_check_hints(const colio_hints_t *h, colio_err_t *err)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (strcmp(h->progress, "thread") == 0 && level != MPI_THREAD_MULTIPLE)
        return colio_err_set(err, COLIO_ERR_HINT,
                             "colio_progress=thread needs MPI_Init_thread with MPI_THREAD_MULTIPLE (this process has level %d)",
                             level);
    return COLIO_SUCCESS;
}

int colio_nb_file_open(colio_file *fh, colio_err_t *err)
{
    colio_nb_file_t *f = calloc(1, sizeof *f);
    if (f == NULL)
        return colio_err_set(err, COLIO_ERR_NOMEM, "colio_open: out of memory");
    f->fh = fh;
    fh->nb = f;
    colio_nb_lock();
    colio_nb_files_add(f);
    colio_nb_unlock();
    colio_nb_file_rehint(fh);
    return COLIO_SUCCESS;
}

void colio_nb_file_rehint(colio_file *fh)
{
    colio_nb_file_t *f = fh->nb;
    int t = wants_thread(&fh->hints);
    colio_nb_lock();
    if (t)
        colio_nb_thread_need();
    f->threaded = t;
    colio_nb_unlock();
}

void colio_nb_file_close(colio_file *fh)
{
    colio_nb_file_t *f = fh->nb;
    if (f == NULL)
        return;
    colio_nb_lock();
    colio_nb_files_remove(f);
    colio_nb_unlock();
    for (int i = 0; i < f->nslots; i++)
        if (f->slots[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&f->slots[i].comm);
    free(f->slots);
    free(f);
    fh->nb = NULL;
}

static int slot_is_free(void *arg) { return ((colio_nb_slot_t *)arg)->user == NULL; }

/*
 * Make sure the file has colio_max_outstanding slot communicators. They are
 * duplicated with the blocking MPI_Comm_dup at the first nonblocking call
 * (and when the hint grows) from a communicator of the file's own (never
 * the duplicate files share, core/comm_cache.h: first nonblocking calls on
 * different files may come in different orders on different ranks): every
 * rank makes that call at the same point, no other collective of the file
 * is pending then, and each later initiation stays local. (MPI_Comm_idup at each first use would keep even
 * the first call local, but Open MPI 4.1 posts the later rounds of its
 * context-id agreement from its progress engine, so they can interleave
 * with other collectives on the parent differently on different ranks.)
 */
static int ensure_slots(colio_file *fh, int want)
{
    colio_nb_file_t *f = fh->nb;
    if (want <= f->nslots)
        return 0;
    colio_nb_slot_t *grown = realloc(f->slots, sizeof *grown * (size_t)want);
    if (grown == NULL)
        return -1;
    f->slots = grown;
    for (int i = f->nslots; i < want; i++) {
        grown[i] = (colio_nb_slot_t){MPI_COMM_NULL, NULL};
        if (MPI_Comm_dup(fh->own != MPI_COMM_NULL ? fh->own : fh->comm, &grown[i].comm) != MPI_SUCCESS)
            return -1;
        MPI_Comm_set_errhandler(grown[i].comm, MPI_ERRORS_RETURN);
        f->nslots = i + 1;
    }
    return 0;
}

/*
 * The slot of the next nonblocking operation: n mod colio_max_outstanding,
 * the same on every rank; if its previous operation is still in flight,
 * progress until it completes (that is the bound on outstanding operations).
 */
colio_nb_slot_t *colio_nb_take_slot(colio_file *fh)
{
    colio_nb_file_t *f = fh->nb;
    int want = fh->hints.max_outstanding;
#ifdef COLIO_SMPI_NB_SLOTS
    want = COLIO_SMPI_NB_SLOTS; /* one communicator under SMPI (base/smpi_compat.h) */
#endif
    if (ensure_slots(fh, want) != 0)
        return NULL;
    colio_nb_slot_t *s = &f->slots[f->started++ % want];
    if (s->user)
        colio_nb_progress_until(slot_is_free, s, s->user);
    return s;
}

/* ---- blocking calls and file calls ---------------------------------------------------- */

static int op_done(void *arg) { return ((colio_op_t *)arg)->phase == COLIO_PH_DONE; }

void colio_nb_run(colio_op_t *op) { colio_nb_progress_until(op_done, op, op); }

static int file_idle(void *arg) { return ((colio_file *)arg)->nops == 0; }

void colio_nb_complete_all(colio_file *fh)
{
    while (fh->nops > 0)
        colio_nb_progress_until(file_idle, fh, fh->ops_head);
}
