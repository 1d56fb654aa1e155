/*
 * One collective data operation as a state machine. Every phase is a step
 * function that either finishes its work and moves to the next phase, or
 * posts nonblocking MPI requests and reports what it waits for. A blocking
 * call runs the steps and waits in between; the nonblocking API (later) runs
 * the same steps from test/wait, so there is one engine, not two.
 *
 * Phases (two-phase I/O after ROMIO's generic driver, Thakur & Choudhary):
 *   INIT          validate, flatten, list this rank's pieces      (local)
 *   START         a read waits for earlier writes before it looks at
 *                 the end of file                                   (engine/order.c);
 *                 a rank whose access is one piece moves it at once,
 *                 through DIRECT, before any agreement            (direct.c, "early"),
 *                 or, a small write, stages it for its node's first rank (stage.c)
 *   PROPOSE       post the SETUP agreement                         (Iallreduce)
 *   SETUP         agree on errors, global extent, end of file, path (Iallreduce)
 *   EOF           reads whose rank 0 moved its piece early and did not
 *                 look at the end of file, when others still have pieces:
 *                 rank 0's file size to everyone                   (Ibcast)
 *   STAGE         where ranks staged pieces: each node's first rank writes
 *                 its node's, then the call ends with FINAL          (stage.c)
 *   GATE          wait until no earlier operation in flight on the file
 *                 touches the same bytes (one of them a write)      (engine/order.c)
 *   DIRECT        each rank accesses its own pieces               (local I/O)
 *   PLAN          file domains, split pieces per file domain       (local)
 *   PATTERN       bytes per (rank, file domain) to every rank      (Iallgather, Iallgatherv)
 *                 then aggregators, placement metrics, counts      (Ialltoall)
 *   COUNTS_SENDERS / COUNTS_MSGS  the sparse counts step instead  (engine/counts.c)
 *   READY         allocate metadata and round buffers, agree       (Iallreduce)
 *   META          offset/length lists to aggregators               (exchange kernel)
 *   ROUND         per round: plan, data exchange, merge, storage I/O
 *   ROUND_FETCH   the round's storage read (reads, read-modify-write) in flight
 *   ROUND_XCHG    the round's data exchange in flight
 *   FINAL         agree on errors                                  (Iallreduce)
 *   ERRMSG        the failing rank's message to everyone          (Ibcast)
 * The collectives named in parentheses go through op->coll (coll/coll.h):
 * MPI's own, or colio's point-to-point schedules (colio_agreements=p2p).
 */
#ifndef COLIO_ENGINE_OP_H
#define COLIO_ENGINE_OP_H

#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "access/copy.h"
#include "access/coverage.h"
#include "access/split.h"
#include "coll/coll.h"
#include "base/error.h"
#include "base/hints.h"
#include "exchange/xchg.h"
#include "place/place.h"
#include "exec/exec.h"
#include "engine/strategy.h"

struct colio_file;
struct colio_plan_entry;

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
    COLIO_PH_PATTERN_COUNTS,
    COLIO_PH_PATTERN,
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

/*
 * The agreements' words (int64_t each; every one starts with the error key,
 * colio_err_key: MIN gives the most severe error of the lowest rank).
 * SETUP reduces its first COLIO_SETUP_MIN words by MIN and the rest by SUM
 * (setup_reduce in op.c); READY and FINAL are MIN throughout. A maximum
 * travels as the MIN of its negation (*_neg).
 */
typedef struct colio_setup_words {
    int64_t err_key;
    int64_t lo, hi_neg;           /* my extent [lo, hi) -> the global extent (INT64_MAX: no pieces) */
    int64_t eof_neg;              /* reads: -(file size) from rank 0, INT64_MAX elsewhere */
    int64_t direct;               /* direct_eligible: -1 pieces overlap, 0 no, 1 large pieces or none */
    int64_t plan_id, plan_id_neg; /* the stored plan proposed (plancache.h): the same everywhere when equal */
    int64_t plan_shift, plan_shift_neg; /* ... at this offset from it (INT64_MAX both: a rank with no pieces) */
    int64_t pieces_max_neg, bytes_max_neg, extent_max_neg; /* the busiest rank's (engine/strategy.h) */
    int64_t piece_meta;           /* 1: my pieces as two words each take no more room than my runs as four
                                     -> a record per piece when so on every rank, two words or one packed
                                     (access/split.h) */
    int64_t extent_sum, bytes_sum, pieces_sum; /* SUM: every rank's extent, bytes and pieces */
    int64_t staged_sum;           /* SUM: ranks whose piece waits in node-shared memory (stage.c) */
    int64_t runs_sum;             /* SUM: every rank's runs (strided runs hold several pieces: the cost model) */
} colio_setup_words_t;
#define COLIO_SETUP_MIN 13
#define COLIO_SETUP_WORDS 18

typedef struct colio_ready_words {
    int64_t err_key;
    int64_t peers_neg;            /* the most peers one aggregator hears from */
    int64_t meta_bytes_neg;       /* the largest average metadata message */
    int64_t data_bytes_neg;       /* the largest average data message per round */
} colio_ready_words_t;

typedef struct colio_final_words {
    int64_t err_key;
    int64_t exchange_ns, exchange_ns_neg; /* the fastest and slowest rank's exchange time */
} colio_final_words_t;

typedef union colio_agree_words {
    int64_t err_key;              /* the first word of each */
    colio_setup_words_t setup;
    colio_ready_words_t ready;
    colio_final_words_t final;
} colio_agree_words_t;

#define COLIO_WORDS(type) ((int)(sizeof(type) / sizeof(int64_t)))

/*
 * Words per (sender, receiver) pair in the counts Ialltoall: runs and bytes
 * the sender has for the receiver; with the rma kernel also the sender's
 * collective buffer address (an aggregator's, to every rank) and the
 * address of the sender's run list for the receiver (to an aggregator), as
 * MPI_Get_address gives them for the file's dynamic window.
 */
#define COLIO_COUNT_WORDS 4
enum { COLIO_CW_RUNS, COLIO_CW_BYTES, COLIO_CW_CBUF, COLIO_CW_META };

/* Step results. */
enum { COLIO_STEP_NEXT = 0, COLIO_STEP_WAIT = 1 };

/* At an aggregator: one source's runs (received metadata, words per run: access/split.h). */
typedef struct colio_src_list {
    int64_t n;
    int words;
    int64_t base; /* packed records: the file offset their offsets count from (access/split.h) */
    const int64_t *meta;
    int64_t cur;
} colio_src_list_t;

/* Everything the two-phase plan needs across rounds. */
typedef struct colio_plan {
    colio_domains_t dom;
    int naggs;
    const int *aggs;            /* aggregator ranks, domain order */
    int my_agg;                 /* my aggregator index or -1 */
    int *aggs_owned;            /* aggs, when chosen for this pattern (else the file's) */
    const colio_xchg_ctx_t *xctx;    /* exchange context for these aggregators */
    colio_xchg_ctx_t *xctx_owned;    /* ... when built for aggs_owned */
    colio_place_metrics_t metrics;   /* of the placement (statistics) */
    int meta_words;             /* metadata words per run of every list, agreed at SETUP (access/split.h) */
    colio_agg_list_t *to_agg;   /* naggs */
    int64_t *send_counts;       /* COLIO_COUNT_WORDS per rank: runs and bytes I send to each rank */
    int64_t *recv_counts;       /* COLIO_COUNT_WORDS per rank: runs and bytes each rank sends me */
    colio_src_list_t *from_src; /* nprocs, aggregators only */
    int64_t *meta_pool;         /* storage of every from_src list */
    size_t meta_pool_cap;
    colio_xchg_msg_t *msgs;     /* room for nprocs + naggs messages */
    /* one-sided kernels (exchange/rma.c): memory attached to the file's window for this operation */
    int rma_meta, rma_data;     /* the metadata / data exchange is one-sided */
    void **attached;            /* room for naggs + 1 */
    int nattached;
} colio_plan_t;

/* One pending message slice of a round, on either side. */
typedef struct colio_slice {
    int peer;          /* rank */
    int list;          /* aggregator index (requester side) or source rank (aggregator side) */
    int64_t first, n;  /* runs [first, first+n) of that list */
    int64_t bytes, pieces;
    char *buf;         /* where the message lands or leaves from */
    int contig;        /* aggregator side: file-contiguous; requester side: stream-contiguous */
    int packed;        /* buf is in a packing buffer: pack before sending / unpack after receiving */
    unsigned aside;    /* requester side: packed only to keep MPI's copy off this slow shift (round.c) */
    MPI_Datatype type; /* MPI_BYTE, or a derived type over buf freed after the round */
    int64_t pack_off;  /* packed slices: offset in the packing buffer */
    MPI_Aint tdisp;    /* requester side, one-sided: where the slice lives in the aggregator's window */
    MPI_Datatype ttype; /* ... as MPI_BYTE (contiguous) or a derived type freed after the round */
} colio_slice_t;

/*
 * An aggregator's collective buffer and the storage job that may run on it.
 * Pipelined rounds (colio_pipeline=2, TAPIOCA Sec. 4.3) alternate between
 * two: a round's write, or the next round's read ahead, runs in the I/O
 * helper thread on one while the exchange of a round uses the other.
 */
typedef struct colio_round_buf {
    char *mem;
    size_t cap;
    int busy;                    /* job submitted, its results not yet folded into the operation */
    int ahead;                   /* reads: holds (or is reading) round `round` ahead of time */
    int64_t round;
    colio_exec_job_t job;
} colio_round_buf_t;

typedef struct colio_round {
    int64_t r;                   /* current round */
    int64_t rs, re;              /* my aggregator's extent in this round */
    char *cbuf;                  /* aggregator: collective buffer of this round (buf[cur].mem, round_size bytes) */
    size_t cbuf_cap;             /* bytes of all collective buffers (one, or two when pipelined) */
    colio_round_buf_t buf[2];    /* the collective buffers (only buf[0] unless pipelined) */
    int pipelined;               /* two buffers, storage I/O in the helper thread (round_pipe.c) */
    int cur;                     /* buffer of the aggregator's current (or next) round */
    int chain_failed;            /* the helper's: one of this operation's jobs failed, skip the rest */
    colio_round_buf_t *fetch;    /* the buffer whose read of this round (or of its holes) is in flight */
    char *pack;                  /* requester: the packing buffer of its messages */
    int64_t pack_size;
    size_t pack_cap;
    char *agg_pack;              /* aggregator: the packing buffer of its messages */
    int64_t agg_pack_size;
    char *aside;                 /* requester: messages kept off a slow shift from or to user memory (round.c) */
    int64_t aside_size;
    colio_slice_t *req_slices;   /* requester side, up to naggs */
    int nreq;
    colio_slice_t *agg_slices;   /* aggregator side, up to nprocs */
    int nagg;
    colio_coverage_t cov;        /* aggregator: bytes of the round asked for (first, last, covered, overlap) */
    int sieve;                   /* access [cov.first, cov.last) as one extent */
    int64_t pack_used;
    colio_xchg_t x;
} colio_round_t;

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
    /* COLIO_DIRECT_JOBS (engine/strategy.h) in flight, each at most cb_buffer_size bytes, one at a time
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

/* The sparse counts step (engine/counts.c): INIT arrays, taken with the others (base/pool.h). */
#define COLIO_COUNTS_MSG_WORDS 5 /* a message: the sender's counts for one aggregator, its rank last */
typedef struct colio_counts_state {
    int64_t *senders;     /* naggs words in (I send to aggregator i), naggs out (ranks that send to it) */
    int64_t *msg;         /* room for nprocs + naggs messages: received first, then my sends */
    MPI_Request *reqs;    /* as many */
    int nreq, nrecv;
} colio_counts_state_t;

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
    colio_phase_t after_gate;    /* GATE: the path SETUP chose */
    int64_t seq;                 /* operations started on the file before this one (same on every rank) */
    struct colio_op *next, *prev; /* the file's operations in flight, in issue order (engine/order.c) */
    MPI_Comm comm;               /* collectives and messages: the file's, or a nonblocking lane's
                                    (MPI_COMM_NULL until the lane formed: START waits for it) */
    struct colio_lane *lane;  /* nonblocking: its lane (engine/progress.h), NULL for blocking calls */
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
    int arr_naggs;               /* aggregators the INIT arrays were sized for (base/pool.h) */
    unsigned arr_kinds;          /* ... the kinds taken (or reserved in the file's cache: take_reserved_arrays) */
    int early;                   /* the access moves through DIRECT before SETUP (colio_direct_early) */
    int64_t early_bytes, early_pieces; /* ... what it moved; the access is then empty */
    int early_done;              /* ... and it did */
    int staged;                  /* this rank's one piece waits in node-shared memory (stage.c) */
    int64_t stage_off;           /* ... its place in the file (its length: early_bytes) */
    int64_t stage_seq;           /* the SETUP agreement's number among the node's slots (0: not through them) */
    colio_phase_t after_stage;   /* STAGE: where the call goes on (FINAL where nothing else moves) */
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
    double t_start;
    /* a clock reading a blocking operation hands on instead of reading again (op.c, timed_step) */
    double t_handoff;
    colio_handoff_t handoff;
} colio_op_t;

/* Prepare op; it owns nothing yet. */
void colio_op_init(colio_op_t *op, struct colio_file *fh, const colio_op_args_t *args);
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
/* After SETUP: the record size of the call's lists (access/split.h), the same on every rank. */
static inline int colio_op_meta_words(const colio_op_t *op)
{
    return colio_meta_words_for((int)op->agree_out.setup.piece_meta, op->glo, op->ghi);
}
/* Whether the call's rounds may be pipelined: colio_pipeline=2, or automatic (0) where its storage calls wait
   (colio_strategy_pipelines); the same on every rank (the file's figures are rank 0's). plan.c */
int colio_op_pipelines(const colio_op_t *op);
/* After SETUP: the call's aggregators, the file's set or its wide set (every rank; place/common.c). */
const struct colio_agg_set *colio_op_agg_set(const colio_op_t *op);
/* Zero the rounds' state (op->rnd but the INIT arrays it holds): colio_op_init leaves it to PLAN. */
void colio_round_state_zero(colio_op_t *op);
/* Fill status, advance the file pointer, record statistics, free everything. */
int colio_op_finish(colio_op_t *op, MPI_Status *status);

/* ---- express calls (engine/express.h) ---- */
struct colio_express;
/* The tag of operation seq's agreements (their p2p messages). */
int colio_op_agreement_tag(int64_t seq);
/* The SETUP reduction (MIN of the first COLIO_SETUP_MIN words, SUM of the rest). */
MPI_Op colio_setup_op(void);
/* The SETUP words of a rank whose one piece already moved (early, or staged when staged): PROPOSE's for it. */
colio_setup_words_t colio_setup_words_moved(int64_t err_key, int staged);
/* Reserve the file's INIT arrays for the operation room may become (1), kept or made now; 0: out of memory. */
int colio_op_reserve_arrays(colio_op_t *room, struct colio_file *fh);
/* op, the operation the express call x turns into, where x->exit says, ready for the steps. */
void colio_op_resume(colio_op_t *op, struct colio_file *fh, const colio_op_args_t *args, struct colio_express *x);

/* Phase steps, one file per concern (op.c, plan.c, round_write.c, round_read.c, direct.c). */
int colio_step_init(colio_op_t *op);
int colio_step_start(colio_op_t *op);
int colio_step_propose(colio_op_t *op);
int colio_step_setup(colio_op_t *op);
int colio_step_eof(colio_op_t *op);
int colio_step_gate(colio_op_t *op);
int colio_step_direct(colio_op_t *op);
int colio_step_plan(colio_op_t *op);
int colio_step_pattern_counts(colio_op_t *op);
int colio_step_pattern(colio_op_t *op);
int colio_step_counts(colio_op_t *op);
int colio_step_counts_senders(colio_op_t *op);
int colio_step_counts_msgs(colio_op_t *op);
/* Whether this operation's counts step goes sparse (hint colio_counts); start it; free its state. */
int colio_counts_sparse(const colio_op_t *op);
/* At INIT, from the file alone (hints, ranks): whether the step may go sparse (then its arrays are taken). */
int colio_counts_may_be_sparse(const struct colio_file *fh);
void colio_counts_start(colio_op_t *op);
void colio_counts_free(colio_op_t *op);
int colio_step_ready(colio_op_t *op);
int colio_step_meta(colio_op_t *op);
int colio_step_round(colio_op_t *op);
int colio_step_round_fetch(colio_op_t *op);
int colio_step_round_xchg(colio_op_t *op);
int colio_step_final(colio_op_t *op);
int colio_step_final_wait(colio_op_t *op);
int colio_step_errmsg(colio_op_t *op);

/* Helpers shared by the steps. */
/* Fill the fixed inputs of an exchange; to_aggs: the aggregators receive. */
void colio_op_xchg_setup(colio_op_t *op, colio_xchg_t *x, int tag, const colio_xchg_ops_t *ops, int to_aggs);
int colio_op_fail(colio_op_t *op, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Record a failed storage call (negative errno) and stop further storage I/O. */
void colio_op_io_error(colio_op_t *op, int neg_errno, const char *what, int64_t off, int64_t len);
/*
 * Storage jobs (exec/exec.h), the one way steps reach storage: submit hands
 * a job to the I/O executor and returns 1, or runs it here and returns 0:
 * when the executor cannot take it, or when not in the background (a
 * blocking call that has nothing to do meanwhile: a nonblocking operation,
 * or pipelined rounds, ask for the background); a step whose job is not
 * done sets io_wait and returns COLIO_STEP_WAIT; fold records a done job's
 * statistics and error (ran_here: its time was the step's own).
 */
int colio_op_submit_job(colio_op_t *op, colio_exec_job_t *job, int background);
int colio_op_job_done(colio_op_t *op, colio_exec_job_t *job);
void colio_op_fold_job(colio_op_t *op, colio_exec_job_t *job, int ran_here);
/* Whether the step waits for a storage job (op->io_wait), and block until it is done. */
int colio_op_io_pending(const colio_op_t *op);
void colio_op_io_wait(colio_op_t *op);
/* Wait for the direct path's jobs still in flight (an abandoned operation) and free its buffers. */
void colio_direct_free(colio_op_t *op);
/*
 * Early direct access (direct.c): whether this rank may move its access
 * through DIRECT before the SETUP agreement, and once it did, record what it
 * moved and leave the rest of the operation an empty access.
 */
int colio_direct_early(const colio_op_t *op);
/* Whether a direct piece of n bytes at m (file offset off) copies slowly there and goes through a bounce buffer. */
int colio_direct_misaligned(colio_op_kind_t kind, const char *m, int64_t n, int64_t off);
/* START: whether this rank's one piece went to node-shared memory for its node's first rank (stage.c). */
int colio_stage_piece(colio_op_t *op);
/* Whether a one-piece write of nbytes on fh stages (hints, and an agreement c on comm through the node's slots). */
int colio_stage_fits(const struct colio_file *fh, const colio_coll_t *c, MPI_Comm comm, int64_t nbytes);
/* The node's first rank: job, reset, lists the node's pieces staged for allreduce seq; their number, -1: no memory. */
int colio_stage_node_job(const struct colio_file *fh, colio_coll_t *c, int64_t seq, colio_exec_job_t *job);
/* PROPOSE: name the staged piece for the SETUP agreement about to start. */
void colio_stage_mark(colio_op_t *op);
/* SETUP: go through STAGE first where some rank staged. */
void colio_stage_route(colio_op_t *op);
int colio_step_stage(colio_op_t *op);
void colio_direct_early_done(colio_op_t *op);
/* Give an INIT array of kind (base/pool.h) back to the file for the next operation. */
void colio_op_give_array(colio_op_t *op, int kind, void *p);
/*
 * After posting a collective on op->coll (rc: what the MPI call returned):
 * go on to phase next, or end the operation with the failure named what.
 * Returns COLIO_STEP_NEXT.
 */
int colio_op_posted(colio_op_t *op, int rc, const char *what, colio_phase_t next);
/* Post the error agreement (MIN of error keys); its result decides in phase next. */
int colio_op_post_agreement(colio_op_t *op, colio_phase_t next);
/* The same with agree_in's first nwords words reduced by MIN (callers fill all but the error key). */
int colio_op_post_agreement_n(colio_op_t *op, colio_phase_t next, int nwords);
/* Copies of one run's pieces (round.c): between the collective buffer (file layout of the
   round) and a packed buffer, and between the collective buffer and user memory. */
static inline void colio_round_cbuf_pack(const colio_op_t *op, const colio_run_t *r, char *packed)
{
    colio_copy_strided(packed, r->len, op->rnd.cbuf + (r->off - op->rnd.rs), r->stride, r->len, r->count);
}
static inline void colio_round_cbuf_unpack(colio_op_t *op, const colio_run_t *r, const char *packed)
{
    colio_copy_strided(op->rnd.cbuf + (r->off - op->rnd.rs), r->stride, packed, r->len, r->len, r->count);
}
void colio_round_cbuf_mem(colio_op_t *op, const colio_run_t *r, int to_cbuf);
/* All of the aggregator's own runs of this round between user memory and the collective buffer, poking
   the exchange every so often so MPI moves data meanwhile. */
void colio_round_own_runs(colio_op_t *op, int to_cbuf);
/* Data sieving choice for a round: whether holes this small (per the toggle) are read too. */
int colio_round_sieve_worth(const colio_op_t *op, colio_toggle_t toggle, int64_t max_avg_hole);
/*
 * Reads land at memory whose address equals their file offset modulo
 * COLIO_READ_ALIGN (docs/DESIGN.md, "Aligned reads"): a shift that is a
 * multiple of 64 is never one the kernel copies slowly (base/copy_shift.h).
 * Collective buffers and the direct path's bounce buffer are aligned to it
 * and have this much room besides.
 */
#define COLIO_READ_ALIGN 64
/* Bytes from the start of a round's collective buffer to where file offset rs goes (0 for writes). */
int64_t colio_round_read_shift(const colio_op_t *op, int64_t rs);
/*
 * fh->round_bytes, chosen whenever the hints or the storage figures are
 * (open, set_info): bytes of file per two-phase round ([write][0]) and of
 * the direct path's bounce buffer, a sieved read's size ([write][1]):
 * colio_round_size, else the cost model's choice
 * (colio_strategy_round_bytes), else, without a model, cb_buffer_size.
 * The same on every rank.
 */
struct colio_file;
void colio_file_choose_rounds(struct colio_file *fh);
/* Bytes of the buffers the operation holds now (statistics keep the largest seen). */
int64_t colio_op_memory(const colio_op_t *op);
/* Broadcast the agreed failing rank's message (key from an agreement). */
void colio_op_start_errmsg(colio_op_t *op, int64_t key);
/* Test the collective request in flight; *done_p when complete. */
int colio_op_test_coll(colio_op_t *op, int *done_p);
void colio_plan_free(colio_op_t *op);
/* After the split (plan.c): gather the pattern, or go straight to placing the aggregators. */
void colio_place_begin(colio_op_t *op);
/* With the aggregators known (place_step.c): expose one-sided memory, post the counts Ialltoall. */
void colio_plan_counts(colio_op_t *op);
/* Detach the operation's memory from the file's window (before its buffers are freed). */
void colio_plan_detach(colio_op_t *op);
/* The runs meta[first .. first+n) as one datatype over a buffer holding file offset base at 0. */
int colio_runs_type(const int64_t *meta, int words, int64_t from, int64_t first, int64_t n, int64_t base,
                    MPI_Datatype *t);
void colio_round_free(colio_op_t *op);

/* Kind-specific parts of a round (round_write.c, round_read.c): begin before
   the exchange starts (it may leave a storage read in flight: rnd.fetch),
   fetched once that read is done, end after the exchange completed. The
   aggregator's own pieces move while the exchange runs (colio_round_own_runs). */
void colio_round_write_begin(colio_op_t *op);
void colio_round_write_end(colio_op_t *op);
void colio_round_read_begin(colio_op_t *op);
void colio_round_read_fetched(colio_op_t *op);
void colio_round_read_end(colio_op_t *op);
/* Read [off, off+len) of the file into the current collective buffer at buf, as a job (rnd.fetch). */
void colio_round_fetch_add(colio_op_t *op, char *buf, int64_t len, int64_t off);
/* Hand the fetch job listed so far to the executor. */
void colio_round_fetch_submit(colio_op_t *op);
/* Whether the round's read is done and folded in (else op->io_wait is set). */
int colio_round_fetch_done(colio_op_t *op);
/* Let the exchange in flight progress (between chunks of local copying). */
void colio_round_poke(colio_op_t *op);
/*
 * Aggregator: decide where each source's message of the round lives: in
 * place in the collective buffer (one file run), described there by a
 * derived datatype, or in the packing buffer. in_place allows the
 * first two (not when requests of several ranks overlap in a write). The
 * staging buffer is grown once for the whole round before any pointer into
 * it is taken.
 */
void colio_round_place_agg_slices(colio_op_t *op, int in_place);

/* Pipelined rounds (round_pipe.c). */
/*
 * Before round r (INT64_MAX: the end of the rounds): whether the buffer the
 * round needs is free, its finished job folded in; 0 with op->io_wait set
 * when the step must wait. has_data: my aggregator has pieces in round r.
 */
int colio_round_pipe_ready(colio_op_t *op, int64_t r, int has_data);
/* Submit the job filled on buffer b (falls back to running it here). */
void colio_round_pipe_submit(colio_op_t *op, colio_round_buf_t *b);
/* Fill a job with the storage calls of a round: the covered extent in one call when whole, else one per run. */
int colio_round_job_fill(colio_exec_job_t *job, const colio_coverage_t *c, int whole, char *cbuf, int64_t rs);
/*
 * Reads: my aggregator's next round after the current one, its extent and
 * its coverage in rnd.cov, without moving any list; 0 when there is none.
 */
int colio_round_cover_next(colio_op_t *op, int64_t *r_p, int64_t *rs_p, int64_t *re_p);
/* Wait for every job in flight (an abandoned operation) and free the buffers. */
void colio_round_pipe_free(colio_op_t *op);

#endif
