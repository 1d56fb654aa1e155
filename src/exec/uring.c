/*
 * The "uring" storage executor (exec/exec.h): a job's calls go to the kernel as
 * io_uring writes and reads on the store's own descriptor (store ops
 * raw_fd), all of them at once up to the ring's size; one reaper thread per
 * process sleeps in the kernel until completions come, finishes the jobs
 * and tells the engine (colio_exec_notify). No thread copies the bytes: the
 * kernel does the I/O (every request is marked IOSQE_ASYNC, so submitting
 * never runs a write in the caller's thread, which may be the program's).
 *
 * The rules of the "threads" executor hold: the jobs of one chain (one
 * operation) issue their calls one job at a time in submission order, and
 * once a call failed no later call of the chain is issued. A short transfer
 * (a signal, a request larger than the kernel takes at once, the end of
 * file for reads) is finished by the reaper with ordinary calls, as the
 * threads executor would. A job whose calls are not in increasing, disjoint
 * file order has them issued one at a time, in order (a later call over an
 * earlier one must land last). Jobs on a store without a descriptor (fault,
 * null, subfiled, posix with colio_lock_writes) are refused and go to the
 * fallback; that depends on the store only, so an operation's jobs (one
 * chain) all run on the same executor and keep their order.
 * Built only with liburing; io_uring_setup refused (seccomp, an old kernel,
 * kernel.io_uring_disabled) makes every job fall back.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include "exec/exec.h"

#include <errno.h>

#ifdef COLIO_HAVE_URING
#include <liburing.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <string.h>

#define RING_ENTRIES 128
#define MAX_REQUEST (1 << 30) /* bytes per request: a larger call is finished by the reaper */
#define TAG_STOP 1            /* user_data of the request that stops the reaper */
#define TAG_FIRST 2           /* user_data of slot s is s + TAG_FIRST */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t done;            /* a job finished */
    struct io_uring ring;
    int state;                      /* 0: not tried, 1: up, -errno: refused */
    pthread_t reaper;
    colio_exec_job_t *head, *tail;   /* taken and not finished, in submission order */
    int in_kernel;                  /* requests issued and not reaped */
    struct slot {
        colio_exec_job_t *job;       /* NULL: free */
        int64_t call;
    } slots[RING_ENTRIES];
    int free_slot[RING_ENTRIES], nfree;
} u = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static void *reaper_main(void *arg);

/* Under u.lock: the ring and its reaper, once per process; 0 or the refusal. */
static int ring_up(void)
{
    if (u.state != 0)
        return u.state > 0 ? 0 : u.state;
    int rc = io_uring_queue_init(RING_ENTRIES, &u.ring, 0);
    if (rc == 0) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 << 10);
        rc = -pthread_create(&u.reaper, &attr, reaper_main, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0)
            io_uring_queue_exit(&u.ring);
    }
    u.state = rc == 0 ? 1 : (rc < 0 ? rc : -EINVAL);
    for (int s = 0; s < RING_ENTRIES; s++)
        u.free_slot[s] = RING_ENTRIES - 1 - s;
    u.nfree = RING_ENTRIES;
    return rc;
}

/* Whether the calls are in increasing, disjoint file order (then they may run at once). */
static int calls_disjoint(const colio_exec_job_t *job)
{
    int64_t end = INT64_MIN;
    for (int64_t i = 0; i < job->ncalls; i++) {
        const colio_exec_call_t *c = &job->calls[i];
        if (c->len <= 0)
            continue;
        if (c->off < end)
            return 0;
        end = c->off + c->len;
    }
    return 1;
}

/* Under u.lock: whether a job of job's chain was taken before it and is not finished. */
static int chain_busy(const colio_exec_job_t *job)
{
    return colio_exec_chain_before(u.head, job);
}

/* Under u.lock: job is done; unlink it and publish its results. */
static void finish(colio_exec_job_t *job)
{
    colio_exec_unlink(&u.head, &u.tail, job);
    if (job->t0 > 0)
        job->seconds = colio_exec_now() - job->t0;
    if (job->rc != 0 && job->chain_failed)
        *job->chain_failed = 1;
    __atomic_store_n(&job->state, COLIO_EXEC_DONE, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&u.done);
}

/* Under u.lock: one request for call i of job into the ring; 0 when the ring is full. */
static int issue_call(colio_exec_job_t *job, int64_t i)
{
    if (u.nfree == 0)
        return 0;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u.ring);
    if (sqe == NULL)
        return 0;
    const colio_exec_call_t *c = &job->calls[i];
    unsigned len = (unsigned)(c->len < MAX_REQUEST ? c->len : MAX_REQUEST);
    if (job->kind == COLIO_EXEC_WRITE)
        io_uring_prep_write(sqe, job->fd, c->buf, len, (uint64_t)c->off);
    else
        io_uring_prep_read(sqe, job->fd, c->buf, len, (uint64_t)c->off);
    sqe->flags |= IOSQE_ASYNC;
    int s = u.free_slot[--u.nfree];
    u.slots[s] = (struct slot){job, i};
    io_uring_sqe_set_data64(sqe, (uint64_t)s + TAG_FIRST);
    job->calls_made++;
    job->in_flight++;
    u.in_kernel++;
    return 1;
}

/* Under u.lock: issue what may go now, oldest job first; jobs with nothing left are finished. */
static void issue(void)
{
    colio_exec_job_t *next;
    for (colio_exec_job_t *job = u.head; job; job = next) {
        next = job->next;
        if (job->state == COLIO_EXEC_QUEUED) {
            if (chain_busy(job))
                continue;
            if (job->chain_failed && *job->chain_failed) {
                job->skipped = 1;
                finish(job);
                continue;
            }
            __atomic_store_n(&job->state, COLIO_EXEC_RUNNING, __ATOMIC_RELAXED);
            job->t0 = colio_exec_now();
        }
        while (job->rc == 0 && job->next_call < job->ncalls && !(job->serial && job->in_flight > 0)) {
            if (job->calls[job->next_call].len <= 0) {
                job->next_call++;
                continue;
            }
            if (!issue_call(job, job->next_call))
                break;
            job->next_call++;
        }
        if (job->in_flight == 0 && (job->rc != 0 || job->next_call == job->ncalls))
            finish(job);
    }
    io_uring_submit(&u.ring);
}

/* Record a failing call: the job keeps the first failing call's errno (lowest index). */
static void record_failure(colio_exec_job_t *job, int64_t i, int rc)
{
    if (job->failed_call < 0 || i < job->failed_call) {
        job->rc = rc;
        job->failed_call = i;
    }
}

/*
 * A request came back with res: count it; a short or interrupted one is
 * finished here with ordinary calls (the reaper, u.lock released, owns the
 * job's results meanwhile: nobody else writes them while a call is in flight).
 */
static void reaped(colio_exec_job_t *job, int64_t i, int res)
{
    const colio_exec_call_t *c = &job->calls[i];
    int64_t done = res > 0 ? res : 0;
    job->bytes += done;
    if (res < 0 && res != -EINTR && res != -EAGAIN) {
        record_failure(job, i, res);
        return;
    }
    if (done < c->len && !(job->kind == COLIO_EXEC_READ && res == 0 && c->len <= MAX_REQUEST)) {
        pthread_mutex_unlock(&u.lock);
        int rc = colio_exec_call_rest(job, c, done);
        pthread_mutex_lock(&u.lock);
        if (rc != 0)
            record_failure(job, i, rc);
    } else if (done < c->len) { /* a read at the end of file */
        colio_exec_read_ended(job, c, done);
    }
}

static void *reaper_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct io_uring_cqe *cqe;
        int rc = io_uring_wait_cqe(&u.ring, &cqe);
        if (rc == -EINTR)
            continue;
        if (rc != 0)
            break; /* the ring is gone */
        uint64_t tag = io_uring_cqe_get_data64(cqe);
        int res = cqe->res;
        io_uring_cqe_seen(&u.ring, cqe);
        if (tag == TAG_STOP)
            break;
        pthread_mutex_lock(&u.lock);
        int s = (int)(tag - TAG_FIRST);
        colio_exec_job_t *job = u.slots[s].job;
        int64_t call = u.slots[s].call;
        u.slots[s].job = NULL;
        u.free_slot[u.nfree++] = s;
        u.in_kernel--;
        reaped(job, call, res);
        job->in_flight--;
        int was_done = job->state == COLIO_EXEC_DONE;
        issue(); /* finishes job when it has nothing left; frees ring space for others */
        int now_done = !was_done && __atomic_load_n(&job->state, __ATOMIC_RELAXED) == COLIO_EXEC_DONE;
        pthread_mutex_unlock(&u.lock);
        if (now_done)
            colio_exec_notify();
    }
    return NULL;
}

static int uring_submit(colio_exec_job_t *job)
{
    int fd = job->ops->raw_fd ? job->ops->raw_fd(job->st) : -1;
    if (fd < 0)
        return -EOPNOTSUPP;
    pthread_mutex_lock(&u.lock);
    int rc = ring_up();
    if (rc == 0) {
        job->fd = fd;
        job->serial = !calls_disjoint(job);
        job->next_call = job->in_flight = 0;
        job->t0 = 0;
        job->next = NULL;
        __atomic_store_n(&job->state, COLIO_EXEC_QUEUED, __ATOMIC_RELAXED);
        if (u.tail)
            u.tail->next = job;
        else
            u.head = job;
        u.tail = job;
        issue();
    }
    pthread_mutex_unlock(&u.lock);
    return rc;
}

static void uring_test(colio_exec_job_t *job, int *done_p)
{
    *done_p = __atomic_load_n(&job->state, __ATOMIC_ACQUIRE) == COLIO_EXEC_DONE;
}

static void uring_wait(colio_exec_job_t *job)
{
    pthread_mutex_lock(&u.lock);
    while (__atomic_load_n(&job->state, __ATOMIC_ACQUIRE) != COLIO_EXEC_DONE)
        pthread_cond_wait(&u.done, &u.lock);
    pthread_mutex_unlock(&u.lock);
}

/*
 * Library teardown: the reaper stops at a no-op request, then the ring goes.
 * The wait for it is bounded (a tool that does not model io_uring, such as
 * valgrind, never completes the request): past it the reaper and the ring
 * are left to the process's exit.
 */
__attribute__((destructor)) static void uring_teardown(void)
{
    pthread_mutex_lock(&u.lock);
    int up = u.state == 1;
    if (up) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&u.ring);
        if (sqe == NULL) {
            io_uring_submit(&u.ring);
            sqe = io_uring_get_sqe(&u.ring);
        }
        if (sqe) {
            io_uring_prep_nop(sqe);
            io_uring_sqe_set_data64(sqe, TAG_STOP);
            io_uring_submit(&u.ring);
        } else {
            up = 0; /* no room to stop it: leave the reaper be */
        }
    }
    pthread_mutex_unlock(&u.lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    if (up && pthread_timedjoin_np(u.reaper, NULL, &until) == 0) {
        io_uring_queue_exit(&u.ring);
        u.state = 0;
    }
}

#else /* no liburing: every job falls back */

static int uring_submit(colio_exec_job_t *job)
{
    (void)job;
    return -ENOSYS;
}

static void uring_test(colio_exec_job_t *job, int *done_p)
{
    (void)job;
    *done_p = 1;
}

static void uring_wait(colio_exec_job_t *job) { (void)job; }

#endif

const colio_exec_ops_t colio_exec_uring = {
    .name = "uring",
    .submit = uring_submit,
    .test = uring_test,
    .wait = uring_wait,
    .fallback = &colio_exec_threads,
};
