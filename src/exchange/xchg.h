/*
 * Exchange kernels: one sparse personalized exchange (all-to-many for
 * writes, many-to-all for reads, the metadata lists once per operation and
 * the data every round). Both sides know every message length beforehand.
 * A kernel is a const table of start / progress / cleanup steps, never one
 * blocking call, so blocking and nonblocking operations share it: start()
 * posts the first requests, progress() tests them and posts the next ones.
 * While a kernel is unfinished, x->reqs[0..x->nreqs) are the requests it
 * waits for: a blocking caller may MPI_Waitall them before progressing, or
 * MPI_Waitsome when x->wait_any says the kernel reacts to each completion.
 */
#ifndef COLIO_EXCHANGE_XCHG_H
#define COLIO_EXCHANGE_XCHG_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct colio_topo;

/*
 * One message: len bytes at buf, or, when type is a derived datatype, the
 * bytes (buf, 1, type) describes (then len is its size, at most 1 GiB), so
 * noncontiguous data moves without a staging copy. One-sided kernels also
 * need, on the origin side (the side that calls MPI_Put / MPI_Get), where
 * the bytes live at the peer: tdisp in the file's window (an address from
 * MPI_Get_address, the window is dynamic) and ttype, MPI_BYTE for len
 * contiguous bytes or a derived type (1 of it). Other kernels ignore both.
 */
typedef struct colio_xchg_msg {
    int peer;
    char *buf;
    int64_t len;       /* bytes, > 0 */
    MPI_Datatype type; /* MPI_BYTE: plain bytes */
    MPI_Aint tdisp;    /* one-sided origin side: target displacement */
    MPI_Datatype ttype; /* one-sided origin side: target datatype (MPI_BYTE: contiguous) */
} colio_xchg_msg_t;

/*
 * What every exchange of a file shares, built when hints are adopted
 * (exchange/ctx.c): the throttle, the rank list of the balanced spread-out
 * algorithm, the aggregators as receivers, and the local aggregators of the
 * two-layer method.
 */
typedef struct colio_xchg_ctx {
    int nprocs;
    int throttle;     /* colio_throttle: steps per window; 0 = unlimited */
    int *rank_list;   /* colio_rank_list: an ordering of all ranks */
    int *list_pos;    /* position of each rank in rank_list */
    int naggs;        /* |R| when aggregators receive */
    int *agg_index;   /* each rank's index among the aggregators in ascending rank order, or -1 */
    int *la_of;       /* TAM: the local aggregator of each rank (itself for a local aggregator) */
    int nla;          /* TAM: local aggregators in all */
    int *group_size;  /* TAM: ranks each local aggregator leads (itself included), 0 for the others */
    int64_t fault_nth;     /* tests (colio_fault=coalesce:N...): refuse the Nth TAM coalesce buffer, 0: never */
    int fault_rank;        /* ... on this rank, -1: on every rank */
    int64_t *fault_seen;   /* coalesce buffers taken so far */
} colio_xchg_ctx_t;

typedef struct colio_xchg colio_xchg_t;

/* Capabilities of a kernel. */
enum {
    /* One-sided: the engine exposes memory in the file's window (fh->cfg.win) and gives the
       origin side of every message its target (tdisp, ttype); the passive side's buffers are
       not touched by the engine while the exchange runs. Such a kernel has no requests
       (nreqs stays 0): callers poll progress(). */
    COLIO_XCHG_ONESIDED = 1,
    /* Relayed: messages may pass through other ranks' buffers (TAM's local aggregators), so a
       message's bytes are not copied straight between its two ends' memory. */
    COLIO_XCHG_RELAYED = 2,
};

typedef struct colio_xchg_ops {
    const char *name;
    const struct colio_hint_def *hints; /* the keys only this implementation reads ({0}-ended; NULL: none) */
    int caps; /* COLIO_XCHG_* */
    int (*start)(colio_xchg_t *x);
    int (*progress)(colio_xchg_t *x, int *done_p);
    void (*cleanup)(colio_xchg_t *x);
    /*
     * Optional (NULL: none). Requests beyond one per message (and per 1 GiB
     * piece) and scratch bytes one exchange of `rank` can need: the engine
     * reserves both before its agreement on allocation failures, so a kernel
     * never fails half-way through posting.
     */
    int64_t (*extra_requests)(const colio_xchg_ctx_t *c, int rank);
    size_t (*scratch_bytes)(const colio_xchg_ctx_t *c, int rank);
    /*
     * Optional (NULL: no). Whether `rank` takes part in every round of a
     * two-phase operation, not only in those it has messages in (a kernel
     * that forwards other ranks' messages, as TAM's local aggregators do).
     */
    int (*every_round)(const colio_xchg_ctx_t *c, int rank);
} colio_xchg_ops_t;

/* Tags one exchange may use: tag .. tag + COLIO_XCHG_TAGS - 1. */
#define COLIO_XCHG_TAGS 4

struct colio_xchg {
    /* inputs, set by the engine */
    MPI_Comm comm;
    int tag;
    int rank, nprocs;
    const struct colio_topo *topo;
    const colio_xchg_ctx_t *ctx;
    int to_aggs;                   /* receivers are the aggregators (else: any rank) */
    MPI_Win win;                   /* one-sided kernels: the file's window */
    int rma_get;                   /* one-sided: receivers get (origin = receiver), else senders put */
    const colio_xchg_msg_t *sends; /* sorted by peer, no self messages */
    int nsends;
    const colio_xchg_msg_t *recvs; /* sorted by peer, no self messages */
    int nrecvs;
    /* state, owned by the kernel */
    const colio_xchg_ops_t *ops;
    MPI_Request *reqs;
    int nreqs, cap;
    int wait_any;                  /* progress after any completion, not only after all */
    int *done_idx;                 /* room for cap indices (MPI_Waitsome), reserved with reqs */
    void *scratch;                 /* kernel bookkeeping (TAM headers, layouts), reserved by the engine */
    size_t scratch_cap;
    /* stepped kernels (exchange/sched.c): messages in step order, posted a window at a time */
    int64_t *order;                /* room for cap entries, reserved with reqs */
    int norder, next;
    int64_t window;                /* steps per window */
    int send_kind;
    void *priv;
    int rma_access, rma_exposed;   /* one-sided: access / exposure epoch open */
    /* statistics, accumulated over the exchanges of an operation */
    int64_t nmsgs;                 /* messages posted */
    int max_reqs;                  /* most requests in flight at once */
};

const colio_xchg_ops_t *colio_xchg_find(const char *name);
const char *colio_xchg_name(int i);
/* A kernel's needs and round rule, NULL-safe (see the ops above). */
int64_t colio_xchg_extra_requests(const colio_xchg_ops_t *k, const colio_xchg_ctx_t *c, int rank);
size_t colio_xchg_scratch_bytes(const colio_xchg_ops_t *k, const colio_xchg_ctx_t *c, int rank);
int colio_xchg_every_round(const colio_xchg_ops_t *k, const colio_xchg_ctx_t *c, int rank);

/* ---- the automatic choice (exchange/auto.c) ------------------------------------ */

/* What the choice looks at: the same on every rank (from one agreement and the topology). */
typedef struct colio_xchg_auto_in {
    int64_t peers;         /* senders to the busiest aggregator */
    int64_t msg_bytes;     /* average message of the exchange */
    int fanin;             /* colio_auto_fanin */
    int64_t msg_max;       /* colio_auto_msg_max */
    int64_t throttle_from; /* colio_auto_throttle_from */
} colio_xchg_auto_in_t;

/* The kernel `colio_exchange=auto` runs for one exchange; a pure function. */
const colio_xchg_ops_t *colio_xchg_auto(const colio_xchg_auto_in_t *in);
/* The kernels colio_xchg_auto may return (NULL-terminated): what the engine reserves for. */
const colio_xchg_ops_t *const *colio_xchg_auto_candidates(void);

/* ---- the per-file context (exchange/ctx.c) ------------------------------------ */

struct colio_hints;
/* Local and deterministic: every rank builds the same context. */
int colio_xchg_ctx_build(colio_xchg_ctx_t *c, const struct colio_topo *topo, const int *aggs, int naggs,
                         const struct colio_hints *h, colio_err_t *err);
void colio_xchg_ctx_free(colio_xchg_ctx_t *c);
/* colio_rank_list and colio_local_aggregators values: 0 when valid. */
int colio_rank_list_valid(const char *name);
int colio_local_aggs_valid(const char *spec);

/* ---- helpers for kernels ---------------------------------------------------- */

/*
 * Make room for n more requests in x->reqs (and as many entries of
 * x->order). The engine reserves, before its agreement on allocation
 * failures, as many requests as any exchange of the operation can need, so
 * kernels never fail here half-way through posting (which would leave peers
 * waiting).
 */
int colio_xchg_reserve(colio_xchg_t *x, int n);
/* At least bytes of x->scratch (kept across the exchanges of an operation). */
int colio_xchg_reserve_scratch(colio_xchg_t *x, size_t bytes);
/* Wait for some of x->reqs to complete (MPI_Waitsome, for kernels with wait_any). */
int colio_xchg_waitsome(colio_xchg_t *x);
/* Requests one message of len bytes needs (messages over 1 GiB go in pieces). */
int colio_xchg_chunks(int64_t len);
enum { COLIO_XCHG_RECV, COLIO_XCHG_SEND, COLIO_XCHG_SSEND };
/* Post one message as one or more Isend/Issend/Irecv of at most 1 GiB each, on tag x->tag + tagoff. */
int colio_xchg_post_tag(colio_xchg_t *x, const colio_xchg_msg_t *m, int kind, int tagoff);
static inline int colio_xchg_post(colio_xchg_t *x, const colio_xchg_msg_t *m, int kind)
{
    return colio_xchg_post_tag(x, m, kind, 0);
}
/* Every receive, then every send, in ascending rank order (ROMIO's way). */
int colio_xchg_post_all(colio_xchg_t *x, int send_kind);
/* MPI_Testall over x->reqs; *done_p when all completed (then nreqs = 0). */
int colio_xchg_testall(colio_xchg_t *x, int *done_p);
/* Forget the requests of a finished or abandoned exchange (a kernel's cleanup). */
void colio_xchg_reset(colio_xchg_t *x);
/* Record the requests in flight for the statistics. */
void colio_xchg_note_inflight(colio_xchg_t *x);
/* Free the request array and the scratch (the engine, at the end of an operation). */
void colio_xchg_free_reqs(colio_xchg_t *x);

/*
 * Stepped schedules (exchange/sched.c). A kernel gives every message a
 * step, computed identically by sender and receiver; messages go a window of
 * `window` consecutive steps at a time: the window's receives, then its
 * sends, then wait for all of them. Deadlock-free: the lowest (round, window)
 * any rank waits in has all its peers in that same window.
 */
typedef int64_t (*colio_step_fn)(const colio_xchg_t *x, int src, int dst);
int colio_sched_start(colio_xchg_t *x, colio_step_fn step, int64_t window, int send_kind);
int colio_sched_progress(colio_xchg_t *x, int *done_p);
/* Steps per window for the throttle hint (0: every step in one window). */
int64_t colio_sched_throttle_window(const colio_xchg_t *x);
/* Receiver index j in R and |R| for the exchange's direction. */
void colio_sched_receiver(const colio_xchg_t *x, int dst, int *j, int *nr);

#endif
