/*
 * Staged small writes: a node's pieces written by its first rank.
 *
 * In IOR's segmented pattern every rank writes one small piece per call,
 * and the call's agreement lines the ranks up, so their writes reach the
 * file at the same moment and queue for its lock: at 16 ranks on one node
 * sixteen 64-byte pwrites of one tmpfs file took 11.7 us a call where one
 * took 0.6 (docs/PERFORMANCE.md, "The floor of a call that returns one
 * error on every rank"). Two-phase I/O solves this with messages and
 * rounds, which cost more than the writes. Here a rank whose access is one
 * piece of at most colio_stage_bytes copies it into its record in the
 * node-shared segment its agreements already use (coll/coll.h,
 * colio_coll_stage_*), the SETUP agreement counts the staged pieces, each
 * node's first rank writes its node's in one storage call per contiguous
 * stretch (an ordinary job through the executor path, exec/exec.h), and
 * the FINAL agreement gives every rank the result. Two ranks writing 64
 * bytes each: 1.64 -> 1.19 us a call in a stand-alone model of the two
 * schemes under Open MPI, 2.35 -> 1.87 under MPICH (PERFORMANCE.md).
 *
 * The same shape as ROMIO's two-phase I/O with one aggregator per node,
 * without its exchange: the "messages" are the agreement's own slots.
 * Only blocking calls stage (nonblocking ones agree on communicators of
 * their own), and only in automatic mode (romio_cb_write=enable asks for
 * two-phase I/O, disable for each rank's own writes, romio_no_indep_rw
 * for storage touched by aggregators only); a rank with
 * operations in flight on the same bytes does not, as its piece must land
 * after them.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/file.h"
#include "engine/order.h"
#include "engine/path.h"
#include "engine/path_staged.h"
#include "engine/step.h"

int colio_stage_fits(const colio_file *fh, const colio_coll_t *c, MPI_Comm comm, int64_t nbytes)
{
    const colio_hints_t *h = &fh->hints;
    return nbytes <= h->stage_bytes && h->cb_write == COLIO_AUTOMATIC && !h->no_indep_rw &&
           colio_coll_stage_seq(c, comm) != 0;
}

/* START: a write of one piece that fits the node's records, with nothing in flight on its bytes. */
static int qualifies(const colio_op_t *op)
{
    const colio_access_t *acc = &op->acc;
    if (op->args.kind != COLIO_OP_WRITE || op->err.code != 0 || acc->npieces != 1 ||
        !colio_stage_fits(op->fh, &op->coll, op->comm, acc->nbytes))
        return 0;
    return colio_order_may_access_range(op, colio_access_run(acc, 0).off, acc->end);
}

/* The piece into this rank's record; the rest of the call moves nothing of this rank's. */
static colio_phase_t enter(colio_op_t *op)
{
    colio_run_t r = colio_access_run(&op->acc, 0);
    colio_mem_gather(&op->mem, r.pos, r.len, colio_coll_stage_room(&op->coll));
    op->stage.off = r.off;
    op->early_bytes = op->acc.nbytes;
    op->early_pieces = 1;
    op->stage.staged = 1;
    colio_access_free(&op->acc);
    return COLIO_PH_PROPOSE;
}

/* Every rank notes the agreement's number among the node's records; a staged piece is marked in its own. */
static void propose(colio_op_t *op, const colio_proposal_t *p, colio_setup_words_t *w)
{
    w->staged.ranks = p->staged;
    if (op == NULL)
        return;
    op->stage.seq = colio_coll_stage_seq(&op->coll, op->comm);
    if (op->stage.staged)
        colio_coll_stage_mark(&op->coll, op->stage.seq, op->stage.off, op->early_bytes);
}

/* After SETUP: where some rank of the call staged, STAGE first. */
static colio_phase_t detour(colio_op_t *op, colio_phase_t next)
{
    if (op->agree_out.setup.staged.ranks == 0)
        return next;
    op->stage.after = next == COLIO_PH_DONE ? COLIO_PH_FINAL : next;
    return COLIO_PH_STAGE;
}

const colio_path_ops_t colio_path_staged = {
    .name = "staged",
    .at = COLIO_PATH_AT_START,
    .qualifies = qualifies,
    .enter = enter,
    .propose = propose,
    .detour = detour,
};

/* One staged piece on the node's first rank. */
typedef struct staged {
    int64_t off, len;
    const unsigned char *bytes;
} staged_t;

static int by_offset(const void *a, const void *b)
{
    const staged_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Nodes of up to this many ranks list their pieces on the stack (no allocation per call). */
enum { FEW_RANKS = 64 };

/* The node's pieces staged for allreduce seq into list (room for every rank of the node), in file order; their number. */
static int collect(const colio_coll_t *c, int64_t seq, staged_t *list)
{
    int k = 0;
    for (int local = 0; local < colio_coll_stage_ranks(c); local++) {
        staged_t *s = &list[k];
        colio_coll_staged(c, seq, local, &s->off, &s->len, &s->bytes);
        k += s->len > 0;
    }
    qsort(list, (size_t)k, sizeof *list, by_offset);
    return k;
}

/* One storage call per stretch of pieces that follow one another in the file, their bytes gathered. */
static int fill_job(colio_coll_t *c, const staged_t *list, int n, colio_exec_job_t *job)
{
    unsigned char *room = colio_coll_stage_gather(c);
    if (room == NULL)
        return -1;
    int64_t at = 0;
    for (int i = 0; i < n;) {
        int64_t start = at, off = list[i].off;
        int j = i;
        for (; j < n && (j == i || list[j].off == list[j - 1].off + list[j - 1].len); j++) {
            memcpy(room + at, list[j].bytes, (size_t)list[j].len);
            at += list[j].len;
        }
        if (colio_exec_job_add(job, (char *)room + start, at - start, off) != 0)
            return -1;
        i = j;
    }
    return 0;
}

int colio_stage_node_job(const colio_file *fh, colio_coll_t *c, int64_t seq, colio_exec_job_t *job)
{
    int ranks = colio_coll_stage_ranks(c), n = 0;
    staged_t few[FEW_RANKS], *list = ranks <= FEW_RANKS ? few : malloc(sizeof *list * (size_t)ranks);
    colio_exec_job_init(job, COLIO_EXEC_WRITE, fh->store, fh->st);
    if (list == NULL || fill_job(c, list, n = collect(c, seq, list), job) != 0)
        n = -1;
    if (list != few)
        free(list);
    return n;
}

/* The node's first rank: its node's staged pieces to storage, now (a blocking call has nothing else to do). */
static void write_staged(colio_op_t *op)
{
    colio_exec_job_t job;
    int n = colio_stage_node_job(op->fh, &op->coll, op->stage.seq, &job);
    if (n < 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory writing the node's staged pieces");
    } else if (n > 0) {
        int ran_here = !colio_op_submit_job(op, &job, 0);
        colio_op_fold_job(op, &job, ran_here); /* and its error, if any */
    }
    colio_exec_job_free(&job);
}

int colio_step_stage(colio_op_t *op)
{
    if (op->stage.seq != 0 && colio_coll_stage_leader(&op->coll))
        write_staged(op);
    op->phase = op->stage.after;
    return COLIO_STEP_NEXT;
}
