/*
 * One collective data operation as a state machine. Every phase is a step
 * function that either finishes its work and moves to the next phase, or
 * posts nonblocking MPI requests and reports what it waits for. A blocking
 * call runs the steps and waits in between; the nonblocking API runs the
 * same steps from test and wait, so there is one engine, not two. The
 * driver (op.c) holds the step table and runs it; each phase's steps live
 * with its state in a module of their own, and phases hand on to one
 * another only by setting op->phase.
 *
 * Phases (two-phase I/O after ROMIO's generic driver, Thakur & Choudhary):
 *   INIT          validate, flatten, list this rank's pieces       (init.c)
 *   START         a read waits for earlier writes before it looks at
 *                 the end of file (order.h); the chooser may send this
 *                 rank's piece on a path of its own before any agreement:
 *                 staged for its node's first rank, or early through
 *                 DIRECT (strategy.c, path_staged.c, path_early.c)
 *   PROPOSE       post the SETUP agreement                          (setup.c)
 *   SETUP         agree on errors, global extent, end of file; the
 *                 chooser picks direct or two-phase I/O          (setup.c, strategy.c)
 *   EOF           reads whose rank 0 moved its piece early and did not
 *                 look at the end of file, when others still have pieces:
 *                 rank 0's file size to everyone                     (setup.c)
 *   STAGE         where ranks staged pieces: each node's first rank writes
 *                 its node's                                   (path_staged.c)
 *   GATE          wait until no earlier operation in flight on the file
 *                 touches the same bytes (one of them a write)       (setup.c)
 *   DIRECT        each rank accesses its own pieces                 (direct.c)
 *   PLAN          file domains, split pieces per file domain          (plan.c)
 *   PLACE         the aggregators: at once, or from the pattern  (place_step.c)
 *   PATTERN_COUNTS / PATTERN  bytes per (rank, file domain) to every rank
 *   COUNTS_POST   expose one-sided memory, post the counts           (plan.c)
 *   COUNTS_SENDERS / COUNTS_MSGS  the sparse counts step instead   (counts.c)
 *   COUNTS        runs and bytes each rank sends each aggregator      (plan.c)
 *   READY         allocate metadata and round buffers, agree          (plan.c)
 *   META          offset/length lists to aggregators                  (plan.c)
 *   ROUND         per round: plan, data exchange, merge, storage I/O (round.c)
 *   ROUND_FETCH   the round's storage read (reads, read-modify-write) in flight
 *   ROUND_XCHG    the round's data exchange in flight
 *   FINAL         agree on errors                                    (final.c)
 *   ERRMSG        the failing rank's message to everyone             (final.c)
 * The collectives go through op->coll (coll/coll.h): MPI's own, or colio's
 * point-to-point or node-shared-memory schedules (colio_agreements).
 */
#ifndef COLIO_ENGINE_OP_H
#define COLIO_ENGINE_OP_H

#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "access/copy.h"
#include "access/coverage.h"
#include "access/split.h"
#include "base/charge.h"
#include "base/error.h"
#include "base/hints.h"
#include "coll/coll.h"
#include "engine/direct_state.h"
#include "engine/plan_state.h"
#include "engine/round_state.h"
#include "engine/words.h"
#include "exchange/xchg.h"
#include "exec/exec.h"
#include "place/place.h"

struct colio_file;
struct colio_plan_entry;
struct colio_path_ops;

typedef enum colio_op_kind { COLIO_OP_WRITE, COLIO_OP_READ } colio_op_kind_t;

/* What the caller asked for. */
typedef struct colio_op_args {
    colio_op_kind_t kind;
    const char *api;  /* public function name, for messages */
    int list;         /* explicit (offset, length) list instead of the view */
    int use_fp;       /* start at and advance the individual file pointer */
    int64_t offset;   /* etype offset in the view when !use_fp */
    void *buf;
    int64_t count;
    MPI_Datatype memtype;
    int64_t nlist;
    const MPI_Offset *offsets, *lengths;
    const char *refused; /* an argument the operation cannot take on this rank (INIT fails with it), or NULL */
} colio_op_args_t;

typedef enum colio_phase {
    COLIO_PH_INIT,
    COLIO_PH_START,
    COLIO_PH_PROPOSE,
    COLIO_PH_SETUP,
    COLIO_PH_EOF,
    COLIO_PH_STAGE,
    COLIO_PH_GATE,
    COLIO_PH_DIRECT,
    COLIO_PH_PLAN,
    COLIO_PH_PLACE,
    COLIO_PH_PATTERN_COUNTS,
    COLIO_PH_PATTERN,
    COLIO_PH_COUNTS_POST,
    COLIO_PH_COUNTS_SENDERS,
    COLIO_PH_COUNTS_MSGS,
    COLIO_PH_COUNTS,
    COLIO_PH_READY,
    COLIO_PH_META,
    COLIO_PH_ROUND,
    COLIO_PH_ROUND_FETCH,
    COLIO_PH_ROUND_XCHG,
    COLIO_PH_FINAL,
    COLIO_PH_FINAL_WAIT,
    COLIO_PH_ERRMSG,
    COLIO_PH_DONE,
    COLIO_PH_COUNT_
} colio_phase_t;

/* Step results. */
enum { COLIO_STEP_NEXT = 0, COLIO_STEP_WAIT = 1 };

/* Staged small writes (engine/path_staged.c). */
typedef struct colio_stage_state {
    int staged;                  /* this rank's one piece waits in node-shared memory */
    int64_t off;                 /* ... its place in the file (its length: op->early_bytes) */
    int64_t seq;                 /* the SETUP agreement's number among the node's slots (0: not through them) */
    colio_phase_t after;         /* STAGE: where the call goes on (FINAL where nothing else moves) */
} colio_stage_state_t;

/* Which clock reading an operation hands on (op.c): the start of a wait, its end, the operation's end. */
typedef enum colio_handoff {
    COLIO_HANDOFF_NONE,
    COLIO_HANDOFF_TO_WAIT,
    COLIO_HANDOFF_FROM_WAIT,
    COLIO_HANDOFF_AT_DONE,
} colio_handoff_t;

typedef struct colio_op {
    struct colio_file *fh;
    colio_op_args_t args;
    colio_phase_t phase;
    colio_phase_t after_gate;    /* GATE: the first phase of the path SETUP chose */
    const struct colio_path_ops *path; /* the call's path on this rank (engine/path.h): START's, then SETUP's */
    int64_t seq;                 /* operations started on the file before this one (same on every rank) */
    struct colio_op *next, *prev; /* the file's operations in flight, in issue order (engine/order.h) */
    MPI_Comm comm;               /* collectives and messages: the file's, or a nonblocking lane's
                                    (MPI_COMM_NULL until the lane formed: START waits for it) */
    struct colio_lane *lane;  /* nonblocking: its lane (engine/lanes.h), NULL for blocking calls */
    int nonblocking;             /* finished by whoever sees it done, not by its caller */
    void (*on_done)(struct colio_op *op); /* nonblocking: its owner's hook, called once it is DONE (lock held) */
    int claimed;                 /* a thread blocks in MPI on its requests: nobody else steps it */
    int fp_done;                 /* the individual file pointer already moved (at initiation) */
    colio_err_t err;             /* this rank's first error */
    int io_failed;               /* stop storage I/O, keep communicating */
    int coll_failed;             /* an agreement failed here (MPI's error, recorded): its words mean nothing */
    int tag_meta, tag_data, tag_counts;
    colio_counts_state_t counts; /* the sparse counts step in flight (engine/counts.c) */
    const colio_xchg_ops_t *kern_meta, *kern_data; /* kernels of this operation (auto resolved at READY) */
    /* INIT */
    colio_access_t acc;
    colio_memmap_t mem;
    colio_flat_t *memflat;
    int memflat_owned;
    int64_t nbytes;              /* requested bytes */
    int arr_naggs;               /* aggregators the INIT arrays were sized for (engine/arrays.h) */
    unsigned arr_kinds;          /* ... the kinds taken (or reserved in the file's cache) */
    int early;                   /* the access moves through DIRECT before SETUP (engine/path_early.c) */
    int64_t early_bytes, early_pieces; /* ... what it moved; the access is then empty */
    int early_done;              /* ... and it did */
    colio_stage_state_t stage;   /* staged small writes (engine/path_staged.c) */
    /* collectives in flight */
    colio_coll_t coll;           /* the agreement in flight (its p2p messages carry coll.tag) */
    colio_agree_words_t agree_in, agree_out; /* the agreement in flight's words */
    int64_t err_key;
    int64_t eof;                 /* reads: file size at the start */
    int64_t eof_sent;            /* EOF: rank 0's file size, or the size query's negative errno */
    int64_t glo, ghi;            /* global extent */
    int64_t asked_ghi;           /* ... its end as asked, before a read clips it at the end of file */
    colio_plan_t plan;
    int planned;                 /* PLAN ran: teardown beyond the INIT arrays (colio_op_finish) */
    struct colio_plan_entry *reuse; /* the stored plan this call borrows (plancache.h), or NULL */
    struct colio_plan_entry *pinned; /* the stored plan this call proposed, until SETUP agrees */
    int64_t reuse_shift;         /* the agreed offset of this call's access from the borrowed plan's */
    colio_access_key_t key;      /* the access as asked, kept to store the plan for reuse */
    int key_ok;                  /* key holds the whole access (a copy may fail) */
    int key_cut;                 /* a read cut at the end of file: only a copy made before is its key */
    uint64_t key_hash;           /* colio_plan_hash of the access as asked, when key_hashed */
    int key_hashed;
    colio_round_t rnd;
    colio_direct_t dir;          /* DIRECT */
    colio_exec_job_t *io_wait;    /* the storage job the step waits for (then no MPI request), or NULL */
    colio_xchg_t meta;
    /* PATTERN: bytes per file domain, gathered (place_step.c) */
    int64_t *pat_mine;           /* (domain, bytes) pairs of this rank, room for naggs */
    int pat_n, pat_words_mine;
    int *pat_counts, *pat_displs; /* words per rank */
    int64_t *pat_all;
    /* statistics */
    colio_op_stats stats;
    colio_charged_t charged;     /* the work in stats already charged as simulated computation (base/charge.h) */
    double t_start;
    /* a clock reading a blocking operation hands on instead of reading again (engine/op.c, timed_step) */
    double t_handoff;
    colio_handoff_t handoff;
} colio_op_t;

/* ---- the driver (op.c) ---- */
/* Run one step of the current phase. */
int colio_op_step(colio_op_t *op);
/* Run steps until the operation waits or is done; returns how many phases it passed. */
int colio_op_advance(colio_op_t *op);
/* Block until the current phase of op can move (its requests, or its storage job). */
void colio_op_wait_phase(colio_op_t *op);
/* Whether the current phase waits for MPI requests or a storage job (else for another operation). */
int colio_op_blocks_on_own(colio_op_t *op);
/* Whether the current phase waits for messages (an exchange or an agreement), which only MPI calls move. */
int colio_op_waits_on_messages(colio_op_t *op);
/* Requests the current phase waits for. */
void colio_op_waitset(colio_op_t *op, MPI_Request **reqs, int *n);
/* Blocking: run every step to completion. Returns the agreed code. */
int colio_op_run(colio_op_t *op);
/* The operation's end on its clock: the reading the last step handed on, else now. */
double colio_op_clock_at_done(colio_op_t *op);

#endif
