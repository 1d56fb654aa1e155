/*
 * Express calls (path_express.c): a blocking call of one contiguous piece on
 * this rank runs without the step machine where the agreed words allow,
 * and becomes an ordinary operation (path_express.c) where they ask
 * for more.
 */
#ifndef COLIO_ENGINE_PATH_EXPRESS_H
#define COLIO_ENGINE_PATH_EXPRESS_H

#include "engine/op.h"

/* Where an express call hands over to the step machine (the phase its operation resumes at). */
typedef enum colio_express_exit {
    COLIO_EXPRESS_AT_SETUP,      /* the SETUP agreement done (x->agreed), or failed (x->coll_rc) */
    COLIO_EXPRESS_AT_FINAL,      /* staged pieces written (x->stage_job on the node's first rank): FINAL next */
    COLIO_EXPRESS_AT_FINAL_WAIT, /* the FINAL agreement done and some rank failed (x->final_out), or it failed */
} colio_express_exit_t;

typedef struct colio_express {
    int64_t seq;                 /* the operation's number on the file (engine/order.h) */
    double t_start;
    colio_access_t acc;          /* this rank's one piece */
    char *mem;                   /* ... its bytes in the user's buffer */
    int64_t off, len;            /* ... its place in the file */
    int staged;                  /* ... copied into node-shared memory for the node's first rank (stage.c) */
    int64_t stage_seq;           /* the SETUP agreement's number among the node's slots (0: not through them) */
    colio_exec_job_t job;         /* the piece's storage call (not staged) */
    colio_exec_job_t stage_job;   /* the node's first rank: the node's staged pieces */
    int stage_job_ran, stage_failed; /* ... run (its results valid); it could not be listed (no memory) */
    colio_coll_t coll;           /* the agreements, as the operation's own would be (same tag, same slots) */
    MPI_Op setup_op;             /* colio_setup_op, created under the progress lock */
    colio_setup_words_t words, agreed;
    colio_final_words_t final_in, final_out;
    int coll_rc;                 /* the last agreement's MPI error (MPI_SUCCESS: none) */
    int coll_posted;             /* ... it was posted (its wait failed), else posting it failed */
    double t_meta;               /* seconds in agreements so far */
    double now;                  /* the latest reading of the operation's clock (each read once: ~9 ns a TSC read) */
    colio_express_exit_t exit;
} colio_express_t;

/*
 * Run a blocking call as an express call when it qualifies (1, *code set,
 * status filled, statistics recorded), else 0 having done nothing: the
 * caller runs the operation. op is the caller's room for the operation the
 * call may turn into. Takes and gives the progress lock (engine/progress.h).
 */
int colio_express_run(struct colio_file *fh, const colio_op_args_t *args, MPI_Status *status, colio_op_t *op,
                      int *code);

#endif
