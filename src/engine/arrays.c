/*
 * The INIT arrays: the small arrays of a two-phase operation whose sizes
 * follow from the ranks and the aggregators alone (counts, lists per
 * aggregator, slices, messages), taken before any collective so that their
 * memory is agreed at SETUP like every other failure, and kept in the
 * file's pool between operations (base/pool.h). A call that turns out not
 * to plan (direct, early, staged, nothing to move) gives them back
 * untouched, and an express call only reserves them.
 */
#include "engine/arrays.h"

#include <assert.h>
#include <string.h>

#include "engine/file.h"
#include "engine/step.h"

/*
 * Ranks from which auto goes sparse, when the aggregators are at most a
 * quarter of them: from 16, where the alltoall's messages (9-12 a rank at
 * 16 ranks, Bruck) already outnumber a non-aggregator's sparse ones (an
 * agreement, then one message per aggregator it has pieces for). Counted,
 * not timed: no 16-core machine was lent when this was set (PERFORMANCE.md,
 * "Sparse counts by default from 16 ranks").
 */
#define COLIO_COUNTS_SPARSE_MIN 16

int colio_counts_may_be_sparse(const colio_file *fh)
{
    char mode = fh->hints.counts[0]; /* auto, dense or sparse (checked with the hints): the first letter says */
#ifdef COLIO_SMPI
    /* every file shares one communicator there and tags repeat between files (base/smpi_compat.h): sparse
       receives from any source only where asked, by a simulation with one file's operations in flight */
    return mode == 's';
#else
    return mode == 's' || (mode == 'a' && fh->nprocs >= COLIO_COUNTS_SPARSE_MIN);
#endif
}



/* Bytes of an INIT array of kind (base/pool.h) for this operation's ranks and aggregators. */
static size_t array_bytes_of(const colio_op_t *op, int kind)
{
    size_t np = (size_t)op->fh->nprocs, na = (size_t)op->arr_naggs;
    switch (kind) {
    case COLIO_ARR_SEND_COUNTS:
    case COLIO_ARR_RECV_COUNTS:
        return COLIO_COUNT_WORDS * np * sizeof(int64_t);
    case COLIO_ARR_TO_AGG:
        return na * sizeof(colio_agg_list_t);
    case COLIO_ARR_FROM_SRC:
        return np * sizeof(colio_src_list_t);
    case COLIO_ARR_MSGS:
        return (np + na) * sizeof(colio_xchg_msg_t);
    case COLIO_ARR_ATTACHED:
        return (na + 1) * sizeof(void *);
    case COLIO_ARR_REQ_SLICES:
        return na * sizeof(colio_slice_t);
    case COLIO_ARR_AGG_SLICES:
        return np * sizeof(colio_slice_t);
    case COLIO_ARR_PAT_MINE:
    case COLIO_ARR_CNT_SENDERS:
        return 2 * na * sizeof(int64_t);
    case COLIO_ARR_CNT_MSG:
        return COLIO_COUNTS_MSG_WORDS * (np + na) * sizeof(int64_t);
    case COLIO_ARR_CNT_REQS:
        return (np + na) * sizeof(MPI_Request);
    default: /* COLIO_ARR_PAT_COUNTS, COLIO_ARR_PAT_DISPLS */
        return np * sizeof(int);
    }
}

/* All of them, worked out once per file and aggregator count: a small call takes and gives all fourteen. */
static const size_t *array_sizes(const colio_op_t *op)
{
    colio_file *fh = op->fh;
    if (fh->arr_bytes_for != op->arr_naggs + 1) {
        for (int k = 0; k < COLIO_ARR_KINDS; k++)
            fh->arr_bytes[k] = array_bytes_of(op, k);
        fh->arr_bytes_for = op->arr_naggs + 1;
    }
    return fh->arr_bytes;
}

static size_t array_bytes(const colio_op_t *op, int kind) { return array_sizes(op)[kind]; }

void colio_op_give_array(colio_op_t *op, int kind, void *p)
{
    colio_pool_array_give(&op->fh->bufs, kind, p, array_bytes(op, kind));
}

/* Where each INIT array lives in the operation, indexed by its kind (base/pool.h's order). */
static void init_array_places(colio_op_t *op, void **places[COLIO_ARR_KINDS])
{
    colio_plan_t *p = &op->plan;
    void **all[] = {(void **)&p->send_counts, (void **)&p->recv_counts, (void **)&p->to_agg,
                    (void **)&p->from_src, (void **)&p->msgs, (void **)&p->attached,
                    (void **)&op->rnd.req_slices, (void **)&op->rnd.agg_slices, (void **)&op->pat_mine,
                    (void **)&op->pat_counts, (void **)&op->pat_displs, (void **)&op->counts.senders,
                    (void **)&op->counts.msg, (void **)&op->counts.reqs};
    _Static_assert(sizeof all / sizeof all[0] == COLIO_ARR_KINDS, "every INIT array, in base/pool.h's order");
    memcpy(places, all, sizeof all);
}

/* The kinds to take: the sparse counts step's arrays only where that step may run. */
static unsigned init_array_kinds(const colio_file *fh)
{
    unsigned all = (1u << COLIO_ARR_KINDS) - 1, sparse_only = all & ~((1u << COLIO_ARR_CNT_SENDERS) - 1);
    return colio_counts_may_be_sparse(fh) ? all : all & ~sparse_only;
}

/* What names the INIT arrays' kinds and sizes in the file's cache (their sizes follow from arr_naggs). */
static uint64_t init_arrays_key(const colio_op_t *op)
{
    return (uint64_t)op->arr_kinds << 32 | (uint32_t)(op->arr_naggs + 1);
}

/*
 * Arrays whose size depends only on nprocs and naggs, taken before any
 * collective (kept between calls): their memory too is agreed at SETUP.
 * The set the call before gave back unused is only reserved here, and
 * taken once the call turns out to need it (colio_arrays_take_reserved): a
 * direct or early call never touches it.
 */
void colio_arrays_shape(colio_op_t *op)
{
    const colio_config_t *c = &op->fh->cfg;
    op->arr_naggs = c->set.naggs > c->wide.naggs ? c->set.naggs : c->wide.naggs;
    op->arr_kinds = init_array_kinds(op->fh);
}

int colio_arrays_take(colio_op_t *op)
{
    colio_arrays_shape(op);
    const size_t *sizes = array_sizes(op);
    if (colio_pool_array_reserve_set(&op->fh->bufs, init_arrays_key(op), op))
        return 0;
    void **places[COLIO_ARR_KINDS];
    init_array_places(op, places);
    if (colio_pool_array_take_set(&op->fh->bufs, op->arr_kinds, sizes, places))
        return colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for %d ranks", op->fh->nprocs);
    return 0;
}

/*
 * The reserved INIT arrays, taken for a call that plans. They cannot be
 * missing: while reserved no other operation takes them (base/pool.h).
 */
void colio_arrays_take_reserved(colio_op_t *op)
{
    if (!colio_pool_array_release_set(&op->fh->bufs, op))
        return;
    void **places[COLIO_ARR_KINDS];
    init_array_places(op, places);
    int missing = colio_pool_array_take_set(&op->fh->bufs, op->arr_kinds, array_sizes(op), places);
    assert(!missing);
    (void)missing;
}

/*
 * An operation that never planned (direct, early, nothing to move, failed
 * before PLAN) holds only the INIT arrays, unwritten (only steps from PLAN
 * on write them): give them back as they are, without the two-phase
 * teardown, which is most of a small call's closing cost, and without
 * zeroing them again at the next call's INIT.
 */
void colio_arrays_give_unused(colio_op_t *op)
{
    if (op->arr_kinds == 0) /* INIT failed before it took or reserved any */
        return;
    if (colio_pool_array_release_set(&op->fh->bufs, op)) /* reserved, never taken: the set stays whole in the cache */
        return;
    void **places[COLIO_ARR_KINDS];
    init_array_places(op, places);
    colio_pool_array_give_unused_set(&op->fh->bufs, COLIO_ARR_KINDS, op->arr_kinds, init_arrays_key(op), array_sizes(op), places);
}

/* ---- an express call that needs the steps (engine/express.h) ------------------------ */

int colio_arrays_reserve(colio_op_t *room, colio_file *fh)
{
    room->fh = fh;
    colio_arrays_shape(room);
    uint64_t key = init_arrays_key(room);
    if (colio_pool_array_reserve_set(&fh->bufs, key, room))
        return 1;
    /* none kept (a file's first call, another aggregator count): taken and kept unused, as a call that
       never planned gives them back (colio_arrays_give_unused), so the reservation cannot fail later */
    void **places[COLIO_ARR_KINDS];
    init_array_places(room, places);
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        *places[k] = NULL; /* room is not an operation yet: the kinds not taken must read as none */
    int missing = colio_pool_array_take_set(&fh->bufs, room->arr_kinds, array_sizes(room), places);
    colio_pool_array_give_unused_set(&fh->bufs, COLIO_ARR_KINDS, room->arr_kinds, key, array_sizes(room), places); /* also what it got */
    return !missing && colio_pool_array_reserve_set(&fh->bufs, key, room);
}