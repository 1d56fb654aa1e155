/* The state of the direct path (engine/direct.c): its storage jobs, the bounce buffer, the next piece. */
#ifndef COLIO_ENGINE_DIRECT_STATE_H
#define COLIO_ENGINE_DIRECT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/model.h"
#include "exec/exec.h"

/* Reads through a bounce buffer: bytes [boff, boff+len) of it go to stream position pos once read. */
typedef struct colio_direct_copy {
    int64_t pos, boff, len;
} colio_direct_copy_t;

typedef struct colio_direct_job {
    colio_exec_job_t job;
    int busy;                    /* submitted, not yet folded into the operation */
    int64_t seq;                 /* submission order: jobs are folded oldest first */
    int chain_failed;            /* the executor's, when the jobs overlap (colio_direct_t overlap) */
    int uses_bounce;             /* the job goes through the operation's bounce buffer */
    int64_t bounce_used;
    /* reads, once the job is done: a sieved chunk (pieces from (si, sk) up to (ei, ek) lie in
       bounce from file offset base), or single pieces to copy */
    int sieve;
    int64_t si, sk, ei, ek, base;
    colio_direct_copy_t *copies;
    int64_t ncopies, copies_cap;
} colio_direct_job_t;

typedef struct colio_direct {
    int started;
    int njobs;                   /* jobs[0..njobs) zeroed and in use so far: colio_op_init leaves them (1.6 KB),
                                    a job is zeroed when first needed (one for most calls) */
    /* COLIO_DIRECT_JOBS (engine/model.h) in flight, each at most cb_buffer_size bytes, one at a time
       through the bounce buffer, so the step fills one while the others run */
    colio_direct_job_t jobs[COLIO_DIRECT_JOBS];
    int64_t i, k, part;          /* next piece (run i, piece k) and its bytes already in jobs */
    int64_t plain_i, plain_k;    /* reads: pieces before (run, piece) were judged not worth sieving */
    char *bounce;                /* a sieved read's bytes (direct.c, bounce_bytes), taken when first needed; one
                                    job at a time uses it */
    size_t bounce_cap;
    int bounce_owner;            /* the job that uses it, or -1 */
    int64_t submitted;
    int chain_failed;            /* the executor's: a job failed, later ones make no call */
    int overlap;                 /* storage calls wait: jobs of pieces_per_job pieces run at once (direct.c) */
    int64_t pieces_per_job;
    int64_t eof_seen;            /* reads: the lowest offset where a job found the end of file */
    int64_t lists_memory;        /* colio_op_memory at the start: the lists do not change on this path */
} colio_direct_t;

#endif
