/*
 * Asynchronous storage I/O with one helper thread per process (see aio.h).
 * One mutex guards the queue; a job's state is also published with an
 * atomic store so test() needs no lock, and wait() sleeps on a condition
 * variable that the helper broadcasts after each job. Jobs run one at a
 * time in submission order (a chain's later job sees an earlier failure).
 *
 * wait() on a job the helper has not started, with nothing running, runs
 * it in the caller instead of sleeping until the helper is scheduled: with
 * MPI ranks busy-polling every core (MPICH) or tiny rounds the helper may
 * get no CPU for a long time, and the caller would only sit idle.
 */
#include "store/aio.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { JOB_IDLE, JOB_QUEUED, JOB_DONE };

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, or the helper must stop */
    pthread_cond_t done; /* a job finished */
    colio_aio_job_t *head, *tail;
    pthread_t thread;
    int running, stopping, refs;
    int busy; /* a job is running (in the helper, or in a caller that took it over) */
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* no MPI_Wtime: the helper makes no MPI calls */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void colio_aio_job_reset(colio_aio_job_t *job, colio_aio_kind_t kind, const colio_store_ops_t *ops,
                         colio_store_t *st, int *chain_failed)
{
    job->kind = kind;
    job->ops = ops;
    job->st = st;
    job->ncalls = 0;
    job->chain_failed = chain_failed;
    job->rc = 0;
    job->failed_call = -1;
    job->skipped = 0;
    job->calls_made = job->bytes = 0;
    job->seconds = 0;
    job->ran_by_caller = 0;
    job->waited = 0;
    job->next = NULL;
    __atomic_store_n(&job->state, JOB_IDLE, __ATOMIC_RELAXED);
}

int colio_aio_job_add(colio_aio_job_t *job, char *buf, int64_t len, int64_t off)
{
    int64_t nlocal = (int64_t)(sizeof job->local / sizeof job->local[0]);
    if (job->cap == 0) {
        job->calls = job->local;
        job->cap = nlocal;
    }
    if (job->ncalls == job->cap) {
        int64_t cap = 2 * job->cap;
        colio_aio_call_t *c = job->calls == job->local ? malloc(sizeof *c * (size_t)cap)
                                                       : realloc(job->calls, sizeof *c * (size_t)cap);
        if (c == NULL)
            return -ENOMEM;
        if (job->calls == job->local)
            memcpy(c, job->local, sizeof job->local);
        job->calls = c;
        job->cap = cap;
    }
    job->calls[job->ncalls++] = (colio_aio_call_t){buf, len, off};
    return 0;
}

void colio_aio_job_free(colio_aio_job_t *job)
{
    if (job->calls != job->local)
        free(job->calls);
    job->calls = NULL;
    job->ncalls = job->cap = 0;
}

/* One call; reads short of len (end of file) read the rest as zeros. */
static int run_call(colio_aio_job_t *job, const colio_aio_call_t *c)
{
    job->calls_made++;
    if (job->kind == COLIO_AIO_WRITE) {
        job->bytes += c->len;
        return colio_store_pwrite(job->ops, job->st, c->buf, c->len, c->off);
    }
    int64_t got = 0;
    int rc = colio_store_pread(job->ops, job->st, c->buf, c->len, c->off, &got);
    job->bytes += got;
    if (rc == 0 && got < c->len)
        memset(c->buf + got, 0, (size_t)(c->len - got));
    return rc;
}

void colio_aio_job_run(colio_aio_job_t *job)
{
    if (job->chain_failed && *job->chain_failed) {
        job->skipped = 1;
        return;
    }
    double t0 = now();
    for (int64_t i = 0; i < job->ncalls; i++) {
        if (job->calls[i].len <= 0)
            continue;
        int rc = run_call(job, &job->calls[i]);
        if (rc != 0) {
            job->rc = rc;
            job->failed_call = i;
            if (job->chain_failed)
                *job->chain_failed = 1;
            break;
        }
    }
    job->seconds = now() - t0;
}

/* Under q.lock. */
static colio_aio_job_t *pop_head(void)
{
    colio_aio_job_t *job = q.head;
    q.head = job->next;
    if (q.head == NULL)
        q.tail = NULL;
    return job;
}

static void (*notify)(void); /* called by the helper after each job (colio_aio_set_notify) */

void colio_aio_set_notify(void (*fn)(void)) { __atomic_store_n(&notify, fn, __ATOMIC_RELEASE); }

/* Under q.lock: publish the results, let the next job start. */
static void finish(colio_aio_job_t *job)
{
    q.busy = 0;
    __atomic_store_n(&job->state, JOB_DONE, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&q.done);
    if (q.head)
        pthread_cond_signal(&q.work);
}

static void *helper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&q.lock);
    for (;;) {
        while ((q.head == NULL || q.busy) && !q.stopping)
            pthread_cond_wait(&q.work, &q.lock);
        if (q.head == NULL)
            break; /* stopping, and nothing left to run */
        if (q.busy) { /* stopping while a caller runs a job: the rest after it */
            pthread_cond_wait(&q.work, &q.lock);
            continue;
        }
        colio_aio_job_t *job = pop_head();
        q.busy = 1;
        pthread_mutex_unlock(&q.lock);
        colio_aio_job_run(job);
        pthread_mutex_lock(&q.lock);
        finish(job);
        void (*fn)(void) = __atomic_load_n(&notify, __ATOMIC_ACQUIRE);
        if (fn) { /* outside q.lock: the hook may take locks of its own */
            pthread_mutex_unlock(&q.lock);
            fn();
            pthread_mutex_lock(&q.lock);
        }
    }
    pthread_mutex_unlock(&q.lock);
    return NULL;
}

/* Under q.lock. */
static int start_helper(void)
{
    if (q.running)
        return 0;
    q.stopping = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 << 10); /* storage calls need little: no 8 MiB mapping per start */
    int rc = pthread_create(&q.thread, &attr, helper_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return -rc;
    q.running = 1;
    return 0;
}

static int thread_submit(colio_aio_job_t *job)
{
    pthread_mutex_lock(&q.lock);
    int rc = start_helper();
    if (rc == 0) {
        job->next = NULL;
        __atomic_store_n(&job->state, JOB_QUEUED, __ATOMIC_RELAXED);
        if (q.tail)
            q.tail->next = job;
        else
            q.head = job;
        q.tail = job;
        pthread_cond_signal(&q.work);
    }
    pthread_mutex_unlock(&q.lock);
    return rc;
}

static void thread_test(colio_aio_job_t *job, int *done_p)
{
    *done_p = __atomic_load_n(&job->state, __ATOMIC_ACQUIRE) == JOB_DONE;
}

static void thread_wait(colio_aio_job_t *job)
{
    pthread_mutex_lock(&q.lock);
    while (__atomic_load_n(&job->state, __ATOMIC_ACQUIRE) != JOB_DONE) {
        if (q.head == job && !q.busy) { /* next in line and nothing running: take it over */
            pop_head();
            q.busy = 1;
            job->ran_by_caller = 1;
            pthread_mutex_unlock(&q.lock);
            colio_aio_job_run(job);
            pthread_mutex_lock(&q.lock);
            finish(job);
            break;
        }
        pthread_cond_wait(&q.done, &q.lock);
    }
    pthread_mutex_unlock(&q.lock);
}

const colio_aio_ops_t colio_aio_thread = {
    .name = "thread",
    .submit = thread_submit,
    .test = thread_test,
    .wait = thread_wait,
};

/* Join the helper once its queue is empty. */
static void stop_helper(void)
{
    pthread_mutex_lock(&q.lock);
    if (!q.running) {
        pthread_mutex_unlock(&q.lock);
        return;
    }
    q.stopping = 1;
    pthread_cond_signal(&q.work);
    pthread_t t = q.thread;
    pthread_mutex_unlock(&q.lock);
    pthread_join(t, NULL);
    pthread_mutex_lock(&q.lock);
    q.running = 0;
    q.stopping = 0;
    pthread_mutex_unlock(&q.lock);
}

/*
 * Files that use the helper hold a reference while open. The last release
 * no longer stops it: an idle helper waits on a condition variable at no
 * cost, while a program that opens, writes and closes a file per step
 * would otherwise start and join a thread every time. It stops when the
 * library is unloaded or the process exits (aio_teardown).
 */
void colio_aio_acquire(void)
{
    pthread_mutex_lock(&q.lock);
    q.refs++;
    pthread_mutex_unlock(&q.lock);
}

void colio_aio_release(void)
{
    pthread_mutex_lock(&q.lock);
    q.refs--;
    pthread_mutex_unlock(&q.lock);
}

/* Library teardown (unload or exit) with files still open: no thread outlives the code it runs. */
__attribute__((destructor)) static void aio_teardown(void) { stop_helper(); }
