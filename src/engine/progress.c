/* The progress engine: stepping every operation in flight, waiting, the progress thread (see progress.h). */
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include "engine/file.h"
#include "engine/progress.h"
#include "exec/exec.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;  /* the thread may have work */
static colio_progress_file_t *files;                             /* open files */
static pthread_t thread;
static int thread_running, thread_stop;
static int callers_waiting; /* threads stepping inside colio_progress_until (not blocked in MPI) */

void colio_progress_lock(void) { pthread_mutex_lock(&lock); }
void colio_progress_unlock(void) { pthread_mutex_unlock(&lock); }

colio_progress_file_t *colio_progress_files(void) { return files; }

void colio_progress_files_add(colio_progress_file_t *f)
{
    f->prev = NULL;
    f->next = files;
    if (files)
        files->prev = f;
    files = f;
}

void colio_progress_files_remove(colio_progress_file_t *f)
{
    if (f->prev)
        f->prev->next = f->next;
    else if (files == f)
        files = f->next;
    if (f->next)
        f->next->prev = f->prev;
    f->next = f->prev = NULL;
}

/* Step the operations of one file; those with an owner waiting for them (on_done) are handed back once done. */
static int progress_file(colio_file *fh)
{
    int moved = 0;
    colio_op_t *next;
    for (colio_op_t *op = fh->ops_head; op; op = next) {
        next = op->next; /* finishing removes op from the list */
        if (op->claimed)
            continue;
        moved += colio_op_advance(op);
        if (op->phase == COLIO_PH_DONE && op->on_done) {
            op->on_done(op);
            moved++;
        }
    }
    return moved;
}

int colio_progress_all(int threaded_only)
{
    int moved = 0;
    for (colio_progress_file_t *f = files; f; f = f->next)
        if (!threaded_only || f->threaded)
            moved += progress_file(f->fh);
    return moved;
}

/* Operations in flight that only a caller steps (files without a running thread), other than op. */
static int others_need_caller(const colio_op_t *target)
{
    for (colio_progress_file_t *f = files; f; f = f->next)
        if (!f->threaded || !thread_running)
            for (const colio_op_t *op = f->fh->ops_head; op; op = op->next)
                if (op != target && op->phase != COLIO_PH_DONE)
                    return 1;
    return 0;
}

int colio_progress_caller_needed(void) { return others_need_caller(NULL); }

/*
 * Whether the progress thread has operations to move besides target (a
 * caller's own): only then is it woken when callers stop stepping, so a
 * blocking call on a program with the thread (MPI_THREAD_MULTIPLE) does not
 * wake it, and have it take the rank's core, at every call's end (no
 * thread wake-up on a call's fast path).
 */
static int thread_work_besides(const colio_op_t *target)
{
    for (colio_progress_file_t *f = thread_running ? files : NULL; f; f = f->next)
        for (const colio_op_t *op = f->threaded ? f->fh->ops_head : NULL; op; op = op->next)
            if (op != target && op->phase != COLIO_PH_DONE)
                return 1;
    return 0;
}

/*
 * Block in MPI on target's own requests, the lock released; nobody steps it
 * meanwhile. The progress thread takes over the other operations of its
 * files for that time: one of them may be what another rank needs before
 * target can complete (an earlier operation's round, on another lane).
 */
static void block_on(colio_op_t *target)
{
    target->claimed = 1;
    if (--callers_waiting == 0 && thread_work_besides(target))
        pthread_cond_broadcast(&work_cv);
    pthread_mutex_unlock(&lock);
    colio_op_wait_phase(target);
    pthread_mutex_lock(&lock);
    callers_waiting++;
    target->claimed = 0;
}

/* Let other ranks (and other threads) move for a moment. */
static void pause_briefly(void)
{
    pthread_mutex_unlock(&lock);
    sched_yield();
    pthread_mutex_lock(&lock);
}

/*
 * While a caller waits here it steps every operation itself, and the
 * progress thread stands back: it is there to move operations while the
 * program computes, and two threads taking turns at the same requests only
 * fight over MPI's internal lock.
 */
void colio_progress_until(int (*done)(void *), void *arg, colio_op_t *target)
{
    callers_waiting++;
    for (;;) {
        colio_progress_all(0);
        if (done(arg))
            break;
        if (target && target->phase != COLIO_PH_DONE && !target->claimed && colio_op_blocks_on_own(target) &&
            !others_need_caller(target))
            block_on(target);
        else
            pause_briefly();
    }
    if (--callers_waiting == 0 && thread_work_besides(target))
        pthread_cond_broadcast(&work_cv); /* the thread's turn again */
}

/* ---- the progress thread ------------------------------------------------------------ */

/* Operations of files with the thread in flight (the thread has work). */
static int threaded_ops_in_flight(void)
{
    for (colio_progress_file_t *f = files; f; f = f->next)
        if (f->threaded && f->fh->nops > 0)
            return 1;
    return 0;
}

/*
 * How long the thread may sleep between polls. Messages cannot wake it,
 * and a large message moves only while both sides make MPI calls (MPICH's
 * shared-memory pipeline copies a cell per call): an operation in an
 * exchange or an agreement is polled at most POLL_MESSAGES_US apart, or its
 * exchange would crawl through the program's whole computation and finish
 * in the wait. Operations that wait for storage are woken by the executor's
 * completions, so a longer sleep there costs nothing.
 */
enum { POLL_MESSAGES_US = 16, POLL_IDLE_US = 128 };

/* Lock held. */
static unsigned poll_limit_us(void)
{
    for (colio_progress_file_t *f = files; f; f = f->next)
        for (colio_op_t *op = f->threaded ? f->fh->ops_head : NULL; op; op = op->next)
            if (!op->claimed && colio_op_waits_on_messages(op))
                return POLL_MESSAGES_US;
    return POLL_IDLE_US;
}

/* Sleep between polls, growing from a yield to poll_limit_us() while nothing moves; storage completions end it early. */
static void thread_backoff(unsigned *us)
{
    if (*us == 0) {
        pthread_mutex_unlock(&lock);
        sched_yield();
        pthread_mutex_lock(&lock);
        *us = 1;
        return;
    }
    unsigned limit = poll_limit_us();
    if (*us > limit)
        *us = limit;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += (long)*us * 1000;
    if (until.tv_nsec >= 1000000000L)
        until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&work_cv, &lock, &until);
    if (*us < limit)
        *us *= 2;
}

/* The I/O helper finished a job: a round may move (the mutex is not needed to signal). */
static void storage_job_done(void) { pthread_cond_broadcast(&work_cv); }

static void *thread_main(void *unused)
{
    (void)unused;
    prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: Linux's default 50 us slack would stretch every short poll */
    unsigned us = 0;
    pthread_mutex_lock(&lock);
    while (!thread_stop) {
        if (callers_waiting == 0 && colio_progress_all(1) > 0)
            us = 0;
        if (callers_waiting > 0 || !threaded_ops_in_flight()) {
            pthread_cond_wait(&work_cv, &lock);
            us = 0;
            continue;
        }
        thread_backoff(&us);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int colio_progress_thread_running(void) { return thread_running; }

/*
 * The thread, once started, sleeps while no file needs it and lives until
 * MPI_Finalize, which runs the delete callback of an attribute on
 * MPI_COMM_SELF first (MPI's hook for libraries): there it is stopped
 * before MPI goes away. Starting one thread per open file would cost a
 * thread creation and join for every open and close.
 */
static int stop_at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    pthread_mutex_lock(&lock);
    thread_stop = 1;
    pthread_cond_broadcast(&work_cv);
    pthread_mutex_unlock(&lock);
    colio_exec_set_notify(NULL);
    pthread_join(thread, NULL);
    thread_running = 0;
    return MPI_SUCCESS;
}

static void start_thread(void)
{
    int key = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_at_finalize, &key, NULL) != MPI_SUCCESS)
        return;
    thread_stop = 0;
    if (pthread_create(&thread, NULL, thread_main, NULL) != 0)
        return;
    thread_running = 1;
    colio_exec_set_notify(storage_job_done);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
}

/* Lock held. A failure to start the thread leaves progress to the callers (still correct). */
void colio_progress_thread_need(void)
{
    if (!thread_running)
        start_thread();
}

/* New work for the thread (lock held). */
void colio_progress_thread_kick(void) { pthread_cond_broadcast(&work_cv); }
