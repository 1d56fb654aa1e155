/*
 * Asynchronous storage I/O: a job is a list of pwrite or pread calls on one
 * open store, run in the background while the caller goes on (Seo et al.,
 * Sec. III: no step of a nonblocking operation waits for storage; TAPIOCA
 * Sec. 4.3 for pipelined rounds). Calls go through the store's ops
 * (colio_store_pwrite / colio_store_pread), so every backend, the
 * fault-injecting one included, works unchanged.
 *
 * Executors behind one ops table (registry in exec.c, hint colio_io_executor):
 * "threads" (exec/threads.c), a pool of helper pthreads per process
 * (colio_exec_threads, the colio_io_threads hint): the jobs of one chain (one
 * operation) run one at a time in submission order, jobs of different chains
 * at once; helpers start as jobs need them, sleep when idle and stop at
 * library teardown; they make no MPI calls. "uring" (exec/uring.c): the calls
 * go to the kernel through io_uring, all of a job's calls at once, one
 * thread reaps the completions; it takes only jobs on a store that lends its
 * descriptor (store ops raw_fd) and falls back to "threads" otherwise, or
 * where liburing or io_uring_setup is missing. "inline" (exec/inline.c)
 * refuses every job so the submitter runs it (the SMPI build).
 */
#ifndef COLIO_EXEC_EXEC_H
#define COLIO_EXEC_EXEC_H

#include <stdint.h>

#include "store/store.h"

typedef enum colio_exec_kind { COLIO_EXEC_WRITE, COLIO_EXEC_READ } colio_exec_kind_t;

/* A job's state (job->state; the executor's). */
enum { COLIO_EXEC_IDLE, COLIO_EXEC_QUEUED, COLIO_EXEC_RUNNING, COLIO_EXEC_DONE };

struct colio_exec_ops;

/* One storage call: len bytes between buf and the file at off. */
typedef struct colio_exec_call {
    char *buf;
    int64_t len, off;
} colio_exec_call_t;

typedef struct colio_exec_job {
    /* what to do (the submitter's; untouched by the helper) */
    colio_exec_kind_t kind;
    const colio_store_ops_t *ops;
    colio_store_t *st;
    colio_exec_call_t *calls;
    int64_t ncalls, cap;
    /*
     * Optional, shared by the jobs of one operation (a chain) and touched
     * only by the helper running the chain's job: set when one of them fails;
     * a later job finding it set makes no call (skipped), as storage I/O
     * stops after a failure. The jobs of a chain run one at a time, in order.
     */
    int *chain_failed;
    int keep_past_eof;    /* reads: leave the bytes past the end of file as they were (else zero them) */
    /* results, valid once the job is done */
    int rc;               /* 0 or the first failing call's negative errno */
    int64_t failed_call;  /* index of that call, -1 */
    int skipped;          /* chain_failed was set: no call made */
    int64_t calls_made;   /* storage calls issued (the failing one included) */
    int64_t bytes;        /* written (each call issued), or read (short reads past the end: the rest zero-filled) */
    int64_t eof_seen;     /* reads: the lowest file offset where a call found the end of file (INT64_MAX: none) */
    double seconds;       /* time spent in the calls */
    double ended;         /* colio_exec_job_run: the clock (colio_exec_now) when its last call returned */
    int ran_by_caller;    /* wait() ran it in the calling thread (the helper had not started it) */
    int waited;           /* the submitter blocked for it (its time counted as the submitter's io) */
    colio_exec_call_t local[4]; /* the first calls: a job of a few calls allocates nothing */
    /* queue state (the executor's) */
    const struct colio_exec_ops *exec; /* the executor that took it (colio_exec_submit), NULL: none */
    struct colio_exec_job *next;
    int state;
    int fd;                           /* uring: the store's descriptor */
    int serial;                       /* uring: calls overlap, issue them one at a time */
    int64_t next_call, in_flight;     /* uring: the first call not yet issued, calls in the kernel */
    double t0;                        /* uring: when its first call was issued */
} colio_exec_job_t;

typedef struct colio_exec_ops {
    const char *name;
    const struct colio_hint_def *hints; /* the keys only this implementation reads ({0}-ended; NULL: none) */
    /* Queue the job; 0, or a negative errno when it cannot run (the job is then not queued). */
    int (*submit)(colio_exec_job_t *job);
    /* Never blocks: *done_p = 1 once the job's results are valid. */
    void (*test)(colio_exec_job_t *job, int *done_p);
    /* Block until the job is done (no spinning). */
    void (*wait)(colio_exec_job_t *job);
    /* Where submit refuses a job (not for this executor): the next one to try, or NULL. */
    const struct colio_exec_ops *fallback;
    /* Optional: a file starts using the executor, with up to `threads` helpers (colio_io_threads; files share
       them: the largest asked for); and stops (at close). Helpers outlive the files (exec/threads.c). */
    void (*hold)(int threads);
    void (*unhold)(void);
} colio_exec_ops_t;

extern const colio_exec_ops_t colio_exec_threads; /* "threads" (exec/threads.c) */
extern const colio_exec_ops_t colio_exec_uring;  /* "uring" (exec/uring.c) */
extern const colio_exec_ops_t colio_exec_inline; /* no helper: jobs run by the submitter (exec/inline.c) */

/* The registry: by hint name, NULL if none; iteration, NULL past the end. */
const colio_exec_ops_t *colio_exec_find(const char *name);
const char *colio_exec_name(int i);

/*
 * Hand job to ex, or to its fallbacks in turn: 0 when one took it
 * (job->exec), else a negative errno and job->exec NULL: the caller runs
 * the job itself (colio_exec_job_run).
 */
int colio_exec_submit(const colio_exec_ops_t *ex, colio_exec_job_t *job);
/* Whether job is done (one never submitted is); never blocks. */
int colio_exec_done(colio_exec_job_t *job);
/* Block until job is done (no spinning). */
void colio_exec_wait(colio_exec_job_t *job);

/* A job that never had calls, set up as colio_exec_job_reset does (no chain). */
void colio_exec_job_init(colio_exec_job_t *job, colio_exec_kind_t kind, const colio_store_ops_t *ops, colio_store_t *st);
/* Empty the call list and set what the next submission does (the list's memory is kept). */
void colio_exec_job_reset(colio_exec_job_t *job, colio_exec_kind_t kind, const colio_store_ops_t *ops,
                         colio_store_t *st, int *chain_failed);
/* Append one call; 0 or -ENOMEM. */
int colio_exec_job_add(colio_exec_job_t *job, char *buf, int64_t len, int64_t off);
/* Free the call list (the job must not be in flight). */
void colio_exec_job_free(colio_exec_job_t *job);
/* Run a job in the calling thread (what the helper does with it). */
void colio_exec_job_run(colio_exec_job_t *job);
/* One call from its byte done on, in the calling thread; reads past the end of file read zeros. 0 or -errno. */
int colio_exec_call_rest(colio_exec_job_t *job, const colio_exec_call_t *c, int64_t done);
/* A read call c that found the end of file after got bytes: note where, zero the rest (unless keep_past_eof). */
void colio_exec_read_ended(colio_exec_job_t *job, const colio_exec_call_t *c, int64_t got);
/* Queues of jobs linked by next, for executors: unlink job from [*head, *tail] (it must be there). */
void colio_exec_unlink(colio_exec_job_t **head, colio_exec_job_t **tail, colio_exec_job_t *job);
/* Whether a job of job's chain stands in the list from `from` before job (or in all of it if job is not there). */
int colio_exec_chain_before(const colio_exec_job_t *from, const colio_exec_job_t *job);
/* A monotonic clock in seconds (executors make no MPI calls). */
double colio_exec_now(void);

/*
 * A function the helper calls after each job it finished (no lock held), so
 * whoever waits for jobs by polling can react at once (the progress thread).
 * It must not call into the executor; NULL removes it.
 */
void colio_exec_set_notify(void (*fn)(void));
/* What executors call after each finished job, holding no lock. */
void colio_exec_notify(void);

/*
 * The executor a file's hint names (colio_io_executor; threads where unknown; inline under SMPI, where a
 * pthread is not a simulated process), and a file holding it and its fallbacks while it may submit jobs
 * (hold: up to `threads` helpers), or no longer.
 */
const colio_exec_ops_t *colio_exec_pick(const char *name);
void colio_exec_hold(const colio_exec_ops_t *ex, int threads);
void colio_exec_unhold(const colio_exec_ops_t *ex);

#endif
