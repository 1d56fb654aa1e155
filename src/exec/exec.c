/*
 * Storage jobs and the executors that run them (exec/exec.h): the job's call list,
 * running it in the calling thread, the registry of executors and the
 * dispatch that takes an executor's fallbacks when it cannot take a job.
 */
#include "exec/exec.h"

#include "base/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

double colio_exec_now(void) { return colio_clock_wall(); } /* never MPI_Wtime: executors make no MPI calls */

void colio_exec_job_reset(colio_exec_job_t *job, colio_exec_kind_t kind, const colio_store_ops_t *ops,
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
    job->keep_past_eof = 0;
    job->eof_seen = INT64_MAX;
    job->seconds = 0;
    job->ended = 0;
    job->t0 = 0;
    job->ran_by_caller = 0;
    job->waited = 0;
    job->exec = NULL;
    job->next = NULL;
    __atomic_store_n(&job->state, COLIO_EXEC_IDLE, __ATOMIC_RELAXED);
}

void colio_exec_job_init(colio_exec_job_t *job, colio_exec_kind_t kind, const colio_store_ops_t *ops, colio_store_t *st)
{
    job->calls = NULL;
    job->ncalls = job->cap = 0;
    colio_exec_job_reset(job, kind, ops, st, NULL);
}

int colio_exec_job_add(colio_exec_job_t *job, char *buf, int64_t len, int64_t off)
{
    int64_t nlocal = (int64_t)(sizeof job->local / sizeof job->local[0]);
    if (job->cap == 0) {
        job->calls = job->local;
        job->cap = nlocal;
    }
    if (job->ncalls == job->cap) {
        int64_t cap = 2 * job->cap;
        colio_exec_call_t *c = job->calls == job->local ? malloc(sizeof *c * (size_t)cap)
                                                       : realloc(job->calls, sizeof *c * (size_t)cap);
        if (c == NULL)
            return -ENOMEM;
        if (job->calls == job->local)
            memcpy(c, job->local, sizeof job->local);
        job->calls = c;
        job->cap = cap;
    }
    job->calls[job->ncalls++] = (colio_exec_call_t){buf, len, off};
    return 0;
}

void colio_exec_job_free(colio_exec_job_t *job)
{
    if (job->calls != job->local)
        free(job->calls);
    job->calls = NULL;
    job->ncalls = job->cap = 0;
}

int colio_exec_call_rest(colio_exec_job_t *job, const colio_exec_call_t *c, int64_t done)
{
    char *buf = c->buf + done;
    int64_t len = c->len - done, off = c->off + done;
    if (job->kind == COLIO_EXEC_WRITE) {
        job->bytes += len;
        return colio_store_pwrite(job->ops, job->st, buf, len, off);
    }
    int64_t got = 0;
    int rc = colio_store_pread(job->ops, job->st, buf, len, off, &got);
    job->bytes += got;
    if (rc == 0 && got < len)
        colio_exec_read_ended(job, c, done + got);
    return rc;
}

void colio_exec_read_ended(colio_exec_job_t *job, const colio_exec_call_t *c, int64_t got)
{
    if (c->off + got < job->eof_seen)
        job->eof_seen = c->off + got;
    if (!job->keep_past_eof) /* the rest reads as zeros */
        memset(c->buf + got, 0, (size_t)(c->len - got));
}

void colio_exec_job_run(colio_exec_job_t *job)
{
    double t0 = colio_exec_now();
    if (job->chain_failed && *job->chain_failed) {
        job->skipped = 1;
        job->ended = t0;
        return;
    }
    for (int64_t i = 0; i < job->ncalls; i++) {
        if (job->calls[i].len <= 0)
            continue;
        job->calls_made++;
        int rc = colio_exec_call_rest(job, &job->calls[i], 0);
        if (rc != 0) {
            job->rc = rc;
            job->failed_call = i;
            if (job->chain_failed)
                *job->chain_failed = 1;
            break;
        }
    }
    job->ended = colio_exec_now();
    job->seconds = job->ended - t0;
}

void colio_exec_unlink(colio_exec_job_t **head, colio_exec_job_t **tail, colio_exec_job_t *job)
{
    colio_exec_job_t **pp = head, *prev = NULL;
    while (*pp != job)
        prev = *pp, pp = &(*pp)->next;
    *pp = job->next;
    if (tail && *tail == job)
        *tail = prev;
    job->next = NULL;
}

int colio_exec_chain_before(const colio_exec_job_t *from, const colio_exec_job_t *job)
{
    if (job->chain_failed == NULL)
        return 0;
    for (const colio_exec_job_t *e = from; e && e != job; e = e->next)
        if (e->chain_failed == job->chain_failed)
            return 1;
    return 0;
}

/* ---- after each finished job ---------------------------------------------------- */

static void (*notify)(void); /* colio_exec_set_notify */

void colio_exec_set_notify(void (*fn)(void)) { __atomic_store_n(&notify, fn, __ATOMIC_RELEASE); }

void colio_exec_notify(void)
{
    void (*fn)(void) = __atomic_load_n(&notify, __ATOMIC_ACQUIRE);
    if (fn)
        fn();
}

/* ---- the executors -------------------------------------------------------------- */

static const colio_exec_ops_t *const executors[] = {&colio_exec_threads, &colio_exec_uring, &colio_exec_inline};

const colio_exec_ops_t *colio_exec_find(const char *name)
{
    for (size_t i = 0; i < sizeof executors / sizeof executors[0]; i++)
        if (strcmp(executors[i]->name, name) == 0)
            return executors[i];
    return NULL;
}

const char *colio_exec_name(int i)
{
    return i >= 0 && (size_t)i < sizeof executors / sizeof executors[0] ? executors[i]->name : NULL;
}

const colio_exec_ops_t *colio_exec_pick(const char *name)
{
#ifdef COLIO_SMPI
    (void)name;
    return &colio_exec_inline;
#else
    const colio_exec_ops_t *ex = colio_exec_find(name);
    return ex ? ex : &colio_exec_threads;
#endif
}

void colio_exec_hold(const colio_exec_ops_t *ex, int threads)
{
    for (; ex; ex = ex->fallback)
        if (ex->hold)
            ex->hold(threads);
}

void colio_exec_unhold(const colio_exec_ops_t *ex)
{
    for (; ex; ex = ex->fallback)
        if (ex->unhold)
            ex->unhold();
}

int colio_exec_submit(const colio_exec_ops_t *ex, colio_exec_job_t *job)
{
    int rc = -ENOSYS;
    for (; ex; ex = ex->fallback) {
        job->exec = ex;
        rc = ex->submit(job);
        if (rc == 0)
            return 0;
    }
    job->exec = NULL;
    return rc;
}

int colio_exec_done(colio_exec_job_t *job)
{
    int done = 1;
    if (job->exec)
        job->exec->test(job, &done);
    return done;
}

void colio_exec_wait(colio_exec_job_t *job)
{
    if (job->exec)
        job->exec->wait(job);
}
