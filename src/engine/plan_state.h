/*
 * The state of a two-phase operation's plan (engine/plan.c, place_step.c,
 * counts.c): file domains, the lists to and from the aggregators, the
 * counts between them, and the plans a file keeps for reuse (plancache.h).
 */
#ifndef COLIO_ENGINE_PLAN_STATE_H
#define COLIO_ENGINE_PLAN_STATE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "access/split.h"
#include "exchange/xchg.h"
#include "place/place.h"

/*
 * Words per (sender, receiver) pair in the counts Ialltoall: runs and bytes
 * the sender has for the receiver; with the rma kernel also the sender's
 * collective buffer address (an aggregator's, to every rank) and the
 * address of the sender's run list for the receiver (to an aggregator), as
 * MPI_Get_address gives them for the file's dynamic window.
 */
#define COLIO_COUNT_WORDS 4
enum { COLIO_CW_RUNS, COLIO_CW_BYTES, COLIO_CW_CBUF, COLIO_CW_META };

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

/* The sparse counts step (engine/counts.c): INIT arrays, taken with the others (base/pool.h). */
#define COLIO_COUNTS_MSG_WORDS 5 /* a message: the sender's counts for one aggregator, its rank last */
typedef struct colio_counts_state {
    int64_t *senders;     /* naggs words in (I send to aggregator i), naggs out (ranks that send to it) */
    int64_t *msg;         /* room for nprocs + naggs messages: received first, then my sends */
    MPI_Request *reqs;    /* as many */
    int nreq, nrecv;
} colio_counts_state_t;

/* A plan kept for reuse (plancache.h). */
typedef struct colio_plan_entry {
    int64_t id;           /* > 0, the same on every rank */
    uint64_t hash;        /* colio_plan_hash of the key (moving it does not change it) */
    int hash_known;       /* hash is computed (lazily: colio_plancache_find) */
    int kind;
    int64_t nbytes, eof, glo, ghi;
    int64_t asked_ghi;    /* ghi before a read clipped it at eof (== ghi when it did not) */
    colio_access_key_t key; /* the access as the call asked (before clipping at the end of file) */
    colio_plan_t plan;    /* msgs unused */
    int64_t last_used;
    int busy;             /* borrowed, or proposed, by an operation in flight: not offered, not evicted */
} colio_plan_entry_t;

typedef struct colio_plancache {
    colio_plan_entry_t *e;
    int n, cap;
    int64_t clock;
} colio_plancache_t;

#endif
