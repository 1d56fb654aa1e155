/*
 * The "threads" storage executor: a pool of helper threads per process (see
 * exec/exec.h). One mutex guards the queue; a job's state is also published with
 * an atomic store so test() needs no lock, and wait() sleeps on a condition
 * variable that the helpers broadcast after each job.
 *
 * Jobs of one chain (one operation: the same chain_failed word) run one at
 * a time in submission order, so a chain's later job sees an earlier
 * failure and makes no call; jobs of different chains run at once on
 * different helpers (several operations in flight: the engine's issue-order
 * rules, engine/order.c, already keep operations with overlapping byte
 * ranges from reaching storage together). Helpers start as jobs need them,
 * up to n (hold: the colio_io_threads hint of the files using it), and sleep on a
 * condition variable when idle: storage calls mostly wait, so a helper
 * costs CPU only while it copies.
 *
 * wait() on a job no helper has started, when it may run, runs it in the
 * caller instead of sleeping until a helper is scheduled: with MPI ranks
 * busy-polling every core (MPICH) or tiny rounds a helper may get no CPU
 * for a long time, and the caller would only sit idle.
 */
#include "base/hints.h"
#include "exec/exec.h"

#include <errno.h>
#include <pthread.h>


#define MAX_HELPERS 64

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued or a chain became free, or the helpers must stop */
    pthread_cond_t done; /* a job finished */
    colio_exec_job_t *head, *tail; /* queued, in submission order */
    colio_exec_job_t *running;     /* running (in a helper, or in a caller that took it over) */
    pthread_t threads[MAX_HELPERS];
    int nthreads, idle, want, stopping, refs;
    int queued; /* jobs in the queue */
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER,
       .want = 1};

/* Under q.lock: whether a job of job's chain is running or queued before it (then it must wait). */
static int chain_busy(const colio_exec_job_t *job)
{
    return colio_exec_chain_before(q.running, job) || colio_exec_chain_before(q.head, job);
}

/* Under q.lock: unlink job from the queue and count it running. */
static void take(colio_exec_job_t *job)
{
    colio_exec_unlink(&q.head, &q.tail, job);
    q.queued--;
    job->next = q.running;
    q.running = job;
    __atomic_store_n(&job->state, COLIO_EXEC_RUNNING, __ATOMIC_RELAXED);
}

/* Under q.lock: the first queued job that may run now, or NULL. */
static colio_exec_job_t *next_runnable(void)
{
    for (colio_exec_job_t *j = q.head; j; j = j->next)
        if (!chain_busy(j))
            return j;
    return NULL;
}

/* Under q.lock: publish the results; its chain's next job may start. */
static void finish(colio_exec_job_t *job)
{
    colio_exec_unlink(&q.running, NULL, job);
    __atomic_store_n(&job->state, COLIO_EXEC_DONE, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&q.done);
    if (q.head)
        pthread_cond_signal(&q.work);
}

/* Under q.lock: run job outside the lock, then finish it. */
static void run_unlocked(colio_exec_job_t *job)
{
    pthread_mutex_unlock(&q.lock);
    colio_exec_job_run(job);
    pthread_mutex_lock(&q.lock);
    finish(job);
}

static void *helper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&q.lock);
    for (;;) {
        colio_exec_job_t *job = next_runnable();
        if (job == NULL) {
            if (q.stopping && q.head == NULL)
                break; /* nothing left to run */
            q.idle++;
            pthread_cond_wait(&q.work, &q.lock);
            q.idle--;
            continue;
        }
        take(job);
        run_unlocked(job);
        pthread_mutex_unlock(&q.lock); /* the hook may take locks of its own */
        colio_exec_notify();
        pthread_mutex_lock(&q.lock);
    }
    pthread_mutex_unlock(&q.lock);
    return NULL;
}

/* Under q.lock, before queueing a job: one more helper when the queue would hold more jobs than idle helpers. */
static int start_helper(void)
{
    if (q.queued + 1 <= q.idle || q.nthreads >= q.want || q.nthreads >= MAX_HELPERS)
        return 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 << 10); /* storage calls need little: no 8 MiB mapping per start */
    int rc = pthread_create(&q.threads[q.nthreads], &attr, helper_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return q.nthreads > 0 ? 0 : -rc; /* with one helper at least, jobs still run */
    q.nthreads++;
    return 0;
}


static int thread_submit(colio_exec_job_t *job)
{
    pthread_mutex_lock(&q.lock);
    int rc = start_helper();
    if (rc == 0) {
        job->next = NULL;
        __atomic_store_n(&job->state, COLIO_EXEC_QUEUED, __ATOMIC_RELAXED);
        if (q.tail)
            q.tail->next = job;
        else
            q.head = job;
        q.tail = job;
        q.queued++;
        pthread_cond_signal(&q.work);
    }
    pthread_mutex_unlock(&q.lock);
    return rc;
}

static void thread_test(colio_exec_job_t *job, int *done_p)
{
    *done_p = __atomic_load_n(&job->state, __ATOMIC_ACQUIRE) == COLIO_EXEC_DONE;
}

static void thread_wait(colio_exec_job_t *job)
{
    pthread_mutex_lock(&q.lock);
    while (__atomic_load_n(&job->state, __ATOMIC_ACQUIRE) != COLIO_EXEC_DONE) {
        if (job->state == COLIO_EXEC_QUEUED && !chain_busy(job)) { /* may run and no helper took it: run it here */
            take(job);
            job->ran_by_caller = 1;
            run_unlocked(job);
            break;
        }
        pthread_cond_wait(&q.done, &q.lock);
    }
    pthread_mutex_unlock(&q.lock);
}

static void thread_hold(int n);
static void thread_unhold(void);

static const colio_hint_def_t threads_hints[] = {
    {"colio_io_threads", COLIO_HINT_INT, COLIO_HINT_FIELD(io_threads), 1, 64, NULL, "4",
     "threads per process that run storage jobs of nonblocking and pipelined operations; the jobs of one "
     "operation run in order, those of different operations (several in flight, byte ranges apart) at once, "
     "so slow storage calls overlap; idle threads sleep, and the largest value any open file asks for holds"},
    {0},
};

const colio_exec_ops_t colio_exec_threads = {
    .name = "threads",
    .hints = threads_hints,
    .submit = thread_submit,
    .test = thread_test,
    .wait = thread_wait,
    .hold = thread_hold,
    .unhold = thread_unhold,
};

/* Join the helpers once the queue is empty. */
static void stop_helpers(void)
{
    pthread_mutex_lock(&q.lock);
    int n = q.nthreads;
    q.stopping = 1;
    pthread_cond_broadcast(&q.work);
    pthread_mutex_unlock(&q.lock);
    for (int i = 0; i < n; i++)
        pthread_join(q.threads[i], NULL);
    pthread_mutex_lock(&q.lock);
    q.nthreads = 0;
    q.stopping = 0;
    pthread_mutex_unlock(&q.lock);
}

/*
 * Files that use the helper hold a reference while open. The last release
 * no longer stops it: an idle helper waits on a condition variable at no
 * cost, while a program that opens, writes and closes a file per step
 * would otherwise start and join a thread every time. It stops when the
 * library is unloaded or the process exits (exec_teardown).
 */
static void thread_hold(int n)
{
    pthread_mutex_lock(&q.lock);
    q.refs++;
    if (n > q.want) /* files share the pool: the largest asked for */
        q.want = n < MAX_HELPERS ? n : MAX_HELPERS;
    pthread_mutex_unlock(&q.lock);
}

static void thread_unhold(void)
{
    pthread_mutex_lock(&q.lock);
    q.refs--;
    pthread_mutex_unlock(&q.lock);
}

/* Library teardown (unload or exit) with files still open: no thread outlives the code it runs. */
__attribute__((destructor)) static void exec_teardown(void) { stop_helpers(); }
