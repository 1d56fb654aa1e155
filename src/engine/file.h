/* The file handle: everything colio keeps between calls on one open file (what the engine works on). */
#ifndef COLIO_ENGINE_FILE_H
#define COLIO_ENGINE_FILE_H

#include "access/access.h"
#include "coll/coll.h"
#include "base/pool.h"
#include "base/error.h"
#include "base/hints.h"
#include "engine/plan_state.h"
#include "exchange/xchg.h"
#include "place/place.h"
#include "store/cost.h"
#include "store/store.h"
#include "subfile/layout.h"
#include "topo/topo.h"

/*
 * What the hints select: plug-ins, the nodes as the hints see them
 * (colio_node_size emulates smaller nodes), the aggregators and the exchange
 * context. Rebuilt as a whole when hints change and swapped in only once
 * every rank has built its own, so a failure anywhere leaves the old one.
 */
/* A set of aggregators and the exchange context built for it. */
typedef struct colio_agg_set {
    int *aggs;                  /* aggregator ranks, domain order */
    int naggs;
    colio_xchg_ctx_t xctx;
} colio_agg_set_t;

typedef struct colio_config {
    const colio_place_ops_t *place;
    const colio_domain_ops_t *domain;
    const colio_xchg_ops_t *xchg_data, *xchg_meta; /* NULL: "auto", chosen per operation */
    const colio_coll_ops_t *coll;               /* the operations' agreements */
    colio_topo_t topo;
    colio_agg_set_t set;        /* the file's aggregators (placements that read the pattern: per call) */
    colio_agg_set_t wide;       /* every rank, for writes of small pieces on one node (place/common.c);
                                   naggs 0: none */
    MPI_Win win;                /* one-sided kernels: the file's dynamic window, when has_win */
    int has_win;
    /* subfiling with groups (subfile/groups.h): NULL/0 otherwise */
    int *group_of_rank;         /* nprocs */
    int *group_first;           /* nsub + 1 */
    int ngroups;
} colio_config_t;

/*
 * The small arrays every operation takes at INIT (sized by the ranks and the aggregators), kept in the
 * file's pool between operations (base/pool.h): one kind each; engine/op.c says where each lives.
 */
enum colio_array_kind {
    COLIO_ARR_SEND_COUNTS, COLIO_ARR_RECV_COUNTS, COLIO_ARR_TO_AGG, COLIO_ARR_FROM_SRC, COLIO_ARR_MSGS,
    COLIO_ARR_ATTACHED, COLIO_ARR_REQ_SLICES, COLIO_ARR_AGG_SLICES, COLIO_ARR_PAT_MINE, COLIO_ARR_PAT_COUNTS,
    COLIO_ARR_PAT_DISPLS, COLIO_ARR_CNT_SENDERS, COLIO_ARR_CNT_MSG, COLIO_ARR_CNT_REQS, COLIO_ARR_KINDS
};
_Static_assert(COLIO_ARR_KINDS <= COLIO_POOL_ARRAY_KINDS, "the pool keeps every kind");

#define COLIO_FILE_MAGIC 0x636f6c66u /* "colf": an open handle (cleared when it closes, base/retire.h) */

struct colio_file {
    unsigned magic;             /* COLIO_FILE_MAGIC while open */
    MPI_Comm comm;              /* colio's duplicate of the program's communicator, errors returned */
    struct colio_comm_cache *shared; /* comm is the duplicate files on that communicator share
                                        (api/comm_cache.h), or NULL: comm is the file's own */
    colio_coll_shm_t *agree_shm; /* the slots of blocking calls' agreements (coll.h): shared's, own_slots,
                                    or NULL (no node holds two ranks) */
    colio_coll_shm_t own_slots; /* without shared: the file's own slots, when has_own_slots */
    int has_own_slots, own_slots_node_size; /* ... made for this colio_node_size (api/file.c, own_slots) */
    struct colio_comm_cache *cache; /* where own came from and goes back to (a reference), or NULL */
    MPI_Comm own;               /* the file's own duplicate, parent of its nonblocking slots (MPI_COMM_NULL:
                                   none, they come from comm; only without a cache, e.g. under SMPI) */
    int64_t own_id;             /* its number in the cache (alike on every rank), -1 when none */
    int rank, nprocs;
    char *path;
    int amode;
    colio_hints_t hints;        /* identical on every rank (rank 0's) */
    const colio_store_ops_t *store;
    colio_config_t cfg;         /* selected by the hints */
    colio_store_t *st;
    int readable;               /* storage handle can read (read-modify-write possible) */
    colio_toggle_t lock_mode;   /* colio_lock_writes as at open (api/file.c, set_write_locks) */
    int64_t direct_min[2];      /* bytes from which writes [0] and reads [1] go O_DIRECT (INT64_MAX: none;
                                   api/file.c, set_direct_io) */
    colio_view_t view;
    int64_t fp;                 /* individual file pointer, in etypes */
    int64_t blksize;            /* the file system's block size (rank 0's st_blksize), 0 = unknown */
    colio_store_figures_t figures; /* what storage calls cost there (rank 0's, store/cost.h) */
    int64_t round_bytes[2][2];  /* [write][direct]: bytes per round, per sieved read (colio_file_choose_rounds) */
    colio_topo_t topo_mpi;      /* nodes as MPI reports them */
    colio_stats stats;
    colio_err_t last_err;
    int64_t op_seq;             /* operations started, for message tags and plan ids */
    struct colio_op *ops_head, *ops_tail; /* operations in flight, issue order (engine/order.c) */
    int nops;
    struct colio_progress_file *prog; /* its registration with the progress engine: lanes, progress mode (engine/lanes.c) */
    int64_t hints_gen;          /* bumped whenever hints change (plan reuse) */
    colio_pool_t bufs;      /* large buffers kept between operations */
    size_t arr_bytes[COLIO_ARR_KINDS]; /* each INIT array's bytes (engine/op.c) */
    int arr_bytes_for;          /* 1 + the aggregator count they are for; 0: not computed yet */
    colio_plancache_t plans;    /* exchange plans for reuse (colio_plan_cache) */
    const struct colio_exec_ops *exec; /* the executor it holds since its first job (exec/exec.h), or NULL */
    colio_subfile_layout_t sub; /* subfiling (api/subfiling.c): nsub == 0 for an ordinary file */
    int sub_creating;           /* this open makes the subfiled file (new layout) */
    int made_here;              /* rank 0 made PATH in this open (a failed open removes it again) */
    int no_handle;              /* colio_open was given no place for the handle: its checks fail */
    const colio_store_ops_t *base; /* the backend of the hints (under the subfiling store when subfiled) */
};

/* Whether fh is an open handle: not NULL, not closed (a copy kept past colio_close, base/retire.h). */
static inline int colio_file_valid(const colio_file *fh) { return fh != NULL && fh->magic == COLIO_FILE_MAGIC; }

/*
 * A public call's own failure (its arguments, a local query): the message
 * goes on the handle when fh is open, else to the thread's
 * (colio_err_thread_msg: colio_last_error(NULL)). Returns code.
 */
int colio_fail(colio_file *fh, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Record the outcome of a collective call on the handle and return its code. */
static inline int colio_file_result(colio_file *fh, const colio_err_t *err)
{
    if (err->code != 0)
        fh->last_err = *err;
    return err->code;
}

#endif
