/*
 * Agreements in node-shared memory (colio_agreements=shm; coll.h). Among
 * ranks of one node an allreduce of a few words needs no message: each rank
 * stores its words in its own slot of a segment the node's ranks map
 * (MPI_Win_allocate_shared), then publishes the allreduce's number; it is
 * complete once every slot shows that number. At 2 ranks a 64-byte pwrite
 * followed by such an agreement cost 1.5-2.1 us here, against 2.2-3.2 with
 * one MPI_Allreduce (docs/PERFORMANCE.md, "Agreements in shared memory"):
 * the rendezvous is a cache line, not a message.
 *
 * One node: every rank combines all slots itself, in rank order (MPI's
 * order of a reduction), so every rank computes the same result. Several
 * nodes (two levels): each node's first rank combines its node's slots,
 * runs colio's p2p allreduce with the other nodes' first ranks (log2 of
 * the nodes, not of the ranks, in message latencies) and publishes the
 * result in its node's result slot, which the node's other ranks copy.
 * That regroups the reduction, so it is taken only for commutative
 * operations (colio's are); the others run as p2p over all ranks.
 *
 * Slots come in two rows used alternately by consecutive allreduces: a rank
 * can start allreduce k + 1 only after it saw allreduce k complete, which
 * needs every slot of its node at k, so no rank can write row k mod 2 again
 * (allreduce k + 2) while another still reads it (a first rank publishes
 * result k + 1 only once every rank of its node started k + 1, after
 * copying result k). The allreduces through one segment must therefore
 * start in the same order on every rank: the segment belongs to one
 * communicator, which only blocking calls use (nonblocking ones run on slot
 * communicators of their own, engine/progress.h), and a blocking call
 * completes each agreement before the next. Everything else (broadcasts,
 * gathers, allreduces on other communicators or too large for a slot) runs
 * as p2p.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_p2p.h"

/*
 * The object's state: p2p's schedules first (they run what the slots do not
 * carry, and the allreduce among the nodes' first ranks), then the
 * allreduce through the slots in flight.
 */
typedef struct shm_state {
    colio_p2p_state_t p2p;
    int64_t seq;                 /* the allreduce in flight's number (0: none) */
    int next;                    /* the first slot not yet seen at it */
    int stage;                   /* where it is (GATHER, LEADERS, RESULT) */
    int bytes;                   /* its words' bytes */
    unsigned tests;              /* unfinished tests of it: every 64th polls MPI */
    void *out;
    int count;
    MPI_Datatype type;
    MPI_Op op;
} shm_state_t;

_Static_assert(sizeof(shm_state_t) <= COLIO_COLL_STATE, "shm's state fits the object");

#define S(c) _Generic((c), const colio_coll_t *: (const shm_state_t *)(const void *)(c)->state, \
                      default: (shm_state_t *)(void *)(c)->state)

static void shm_init(colio_coll_t *c)
{
    colio_p2p_init(c);
    S(c)->seq = 0, S(c)->tests = 0;
}

static int shm_pending(const colio_coll_t *c) { return S(c)->seq != 0 || colio_p2p_pending(c); }

/* One rank's slot: the number of the allreduce its words belong to, then the words. */
typedef struct shm_slot {
    _Atomic int64_t seq;
    unsigned char data[COLIO_COLL_SHM_SLOT - sizeof(int64_t)];
} shm_slot_t;
_Static_assert(sizeof(shm_slot_t) == COLIO_COLL_SHM_SLOT, "one slot is COLIO_COLL_SHM_SLOT bytes");

/* One rank's staged bytes: the allreduce that names them, their place in the file, the bytes. */
typedef struct shm_stage {
    int64_t seq, off, len;
    unsigned char pad[64 - 3 * sizeof(int64_t)];
    unsigned char data[COLIO_COLL_SHM_STAGE];
} shm_stage_t;

static shm_stage_t *stage_of(const colio_coll_shm_t *s, int local)
{
    return (shm_stage_t *)((char *)s->slots + (size_t)(2 * s->nlocal + 2) * COLIO_COLL_SHM_SLOT) + local;
}

/* The slot of the node's rank `local` in allreduce seq's row; local == nlocal: the node's result. */
static shm_slot_t *slot_of(const colio_coll_shm_t *s, int64_t seq, int local)
{
    shm_slot_t *slots = s->slots;
    return local < s->nlocal ? &slots[(seq & 1) * s->nlocal + local] : &slots[2 * s->nlocal + (seq & 1)];
}

/*
 * Segments still allocated at MPI_Finalize (those of communicators the
 * program never freed, such as MPI_COMM_WORLD's cache) are given back first
 * thing in it: Open MPI deletes communicators' attributes after its
 * one-sided component is gone, and MPI_COMM_SELF's are deleted before
 * anything else. Every rank holds the same segments, made in the same
 * order, and frees them in that order.
 */
static colio_coll_shm_t *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

/* Collective: the window over the node, the nodes' first ranks' communicator. */
static void release(colio_coll_shm_t *s)
{
    s->slots = NULL; /* allreduces still started on it (another library's callback at MPI_Finalize) go p2p */
    free(s->gather);
    s->gather = NULL;
    if (s->win != MPI_WIN_NULL)
        MPI_Win_free(&s->win);
    if (s->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&s->leaders);
}

#ifndef COLIO_SMPI /* SMPI makes no segments (colio_coll_shm_create) */
static int finalize_keyval = MPI_KEYVAL_INVALID;

static int free_at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    pthread_mutex_lock(&live_lock);
    colio_coll_shm_t *s = live;
    live = NULL;
    pthread_mutex_unlock(&live_lock);
    for (; s; s = s->next)
        release(s);
    return MPI_SUCCESS;
}

static void track(colio_coll_shm_t *s)
{
    pthread_mutex_lock(&live_lock);
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_at_finalize, &finalize_keyval, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    colio_coll_shm_t **end = &live;
    while (*end)
        end = &(*end)->next;
    *end = s; /* in the order made, the order every rank frees them in */
    s->next = NULL;
    pthread_mutex_unlock(&live_lock);
}

#endif

static void untrack(colio_coll_shm_t *s)
{
    pthread_mutex_lock(&live_lock);
    for (colio_coll_shm_t **p = &live; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

#ifndef COLIO_SMPI
/* The node's ranks: those sharing memory, or (node_size > 0) groups of node_size consecutive ranks among them. */
static int split_nodes(MPI_Comm comm, int rank, int node_size, MPI_Comm *node)
{
    int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    if (rc != MPI_SUCCESS || node_size <= 0)
        return rc;
    MPI_Comm real = *node; /* emulated nodes never span real ones: shared memory needs one */
    rc = MPI_Comm_split(real, rank / node_size, rank, node);
    MPI_Comm_free(&real);
    return rc;
}

static size_t segment_bytes(int nlocal)
{
    return (size_t)(2 * nlocal + 2) * COLIO_COLL_SHM_SLOT + (size_t)nlocal * sizeof(shm_stage_t);
}

/* Collective over the node: the node's first rank allocates the slots, two rows and two results. */
static int map_slots(colio_coll_shm_t *s, MPI_Comm node)
{
    MPI_Aint bytes = (MPI_Aint)segment_bytes(s->nlocal), size;
    void *mine;
    int disp;
    int rc = MPI_Win_allocate_shared(s->local == 0 ? bytes : 0, COLIO_COLL_SHM_SLOT, MPI_INFO_NULL, node, &mine,
                                     &s->win);
    if (rc != MPI_SUCCESS) {
        s->win = MPI_WIN_NULL;
        return rc;
    }
    rc = MPI_Win_shared_query(s->win, 0, &size, &disp, &s->slots);
    if (rc == MPI_SUCCESS && size < bytes)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && s->local == 0) { /* undefined until set; the caller's agreement orders this first */
        for (int i = 0; i < 2 * s->nlocal + 2; i++)
            atomic_store_explicit(&((shm_slot_t *)s->slots)[i].seq, 0, memory_order_relaxed);
        for (int i = 0; i < s->nlocal; i++)
            stage_of(s, i)->seq = 0;
    }
    atomic_thread_fence(memory_order_release);
    return rc;
}
#endif

int colio_coll_shm_create(MPI_Comm comm, int node_size, colio_coll_shm_t *s)
{
    memset(s, 0, sizeof *s);
    s->comm = comm, s->win = MPI_WIN_NULL, s->leaders = MPI_COMM_NULL;
#ifdef COLIO_SMPI
    (void)node_size;
    return MPI_ERR_OTHER; /* SMPI's ranks are threads of one process: p2p there (coll.c) */
#else
    /* every collective over comm on every rank, whatever failed before it; the window only where all went well */
    MPI_Comm node = MPI_COMM_NULL;
    int rank, bad = 0;
    MPI_Comm_rank(comm, &rank);
    if (split_nodes(comm, rank, node_size, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &s->local);
        MPI_Comm_size(node, &s->nlocal);
    } else {
        node = MPI_COMM_NULL, s->local = -1, bad = 1;
    }
    bad |= MPI_Comm_split(comm, s->local == 0 ? 0 : MPI_UNDEFINED, rank, &s->leaders) != MPI_SUCCESS;
    int mine[2] = {s->local == 0, bad}, sums[2] = {0, 1};
    int rc = MPI_Allreduce(mine, sums, 2, MPI_INT, MPI_SUM, comm);
    s->two_level = sums[0] > 1;
    if (!s->two_level && s->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&s->leaders); /* one node: nobody to meet */
    if (rc == MPI_SUCCESS && sums[1] != 0)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS)
        rc = map_slots(s, node); /* collective over the node, whose ranks all got here */
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    if (rc == MPI_SUCCESS)
        track(s);
    return rc;
#endif
}

void colio_coll_shm_free(colio_coll_shm_t *s)
{
    untrack(s);
    release(s);
}

int colio_coll_shm_create_agreed(MPI_Comm comm, int node_size, int shared, colio_coll_shm_t *s)
{
    if (!shared)
        return 0;
    int ok = colio_coll_shm_create(comm, node_size, s) == MPI_SUCCESS, all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all)
        return 1;
    colio_coll_shm_free(s);
    return 0;
}

/* ---- allreduce through the slots -------------------------------------------------------- */

/* Where an allreduce in flight is (shm_state_t stage). */
enum {
    GATHER = 1, /* waiting for the node's slots (one node: every rank; else the node's first rank) */
    LEADERS,    /* the node's first rank: the p2p allreduce among nodes in flight */
    RESULT      /* the node's other ranks, several nodes: waiting for the node's result */
};

/* Whether this allreduce goes through the slots: c's segment, its communicator, words that fit, an order kept. */
static int fits_slots(const colio_coll_t *c, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int *bytes)
{
    int esize = 0, commutes = 1;
    if (c->shm == NULL || c->shm->slots == NULL || comm != c->shm->comm || n < 0 ||
        (esize = colio_coll_element_size(t)) <= 0 || n > (int)sizeof(((shm_slot_t *)0)->data) / esize)
        return 0;
    if (c->shm->two_level && (MPI_Op_commutative(op, &commutes) != MPI_SUCCESS || !commutes))
        return 0;
    *bytes = n * esize;
    return 1;
}

static int shm_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    int bytes;
    if (!fits_slots(c, n, t, op, comm, &bytes))
        return colio_coll_p2p.allreduce(c, in, out, n, t, op, comm);
    colio_coll_shm_t *s = c->shm;
    int64_t seq = ++s->started;
    shm_slot_t *mine = slot_of(s, seq, s->local);
    memcpy(mine->data, in, (size_t)bytes);
    atomic_store_explicit(&mine->seq, seq, memory_order_release);
    S(c)->seq = seq;
    S(c)->out = out, S(c)->count = n, S(c)->type = t, S(c)->op = op, S(c)->bytes = bytes;
    S(c)->next = 0;
    S(c)->stage = s->two_level && s->local != 0 ? RESULT : GATHER;
    return MPI_SUCCESS;
}

/* Have all the node's slots reached the allreduce in flight? Remembers the first that had not. */
static int node_arrived(colio_coll_t *c)
{
    const colio_coll_shm_t *s = c->shm;
    for (; S(c)->next < s->nlocal; S(c)->next++)
        if (atomic_load_explicit(&slot_of(s, S(c)->seq, S(c)->next)->seq, memory_order_acquire) != S(c)->seq)
            return 0;
    return 1;
}

/* The node's slots combined into to as MPI orders a reduction: its first rank's op (... op its last's). */
static int combine_node(const colio_coll_t *c, void *to)
{
    const colio_coll_shm_t *s = c->shm;
    int rc = MPI_SUCCESS;
    memcpy(to, slot_of(s, S(c)->seq, s->nlocal - 1)->data, (size_t)S(c)->bytes);
    for (int j = s->nlocal - 2; j >= 0 && rc == MPI_SUCCESS; j--)
        rc = colio_coll_reduce_local(slot_of(s, S(c)->seq, j)->data, to, S(c)->count, S(c)->type, S(c)->op);
    return rc;
}

/* The node's first rank: the node's words, combined, go to the allreduce among the nodes. */
static int start_leaders(colio_coll_t *c)
{
    const colio_coll_shm_t *s = c->shm;
    shm_slot_t *result = slot_of(s, S(c)->seq, s->nlocal); /* the node's part until the result replaces it */
    int rc = combine_node(c, result->data);
    if (rc == MPI_SUCCESS && S(c)->seq == s->fail_leaders_at)
        rc = MPI_ERR_OTHER; /* a test's failure among the nodes, set on every leader: nobody sends */
    if (rc == MPI_SUCCESS)
        rc = colio_coll_p2p.allreduce(c, result->data, S(c)->out, S(c)->count, S(c)->type, S(c)->op, s->leaders);
    S(c)->stage = LEADERS;
    return rc;
}

/*
 * The node's first rank: the result, for the node's other ranks, or (rc an
 * error: the allreduce among the nodes failed here) the news that there is
 * none, as the allreduce's number negated, so they return an error too.
 */
static int publish(colio_coll_t *c, int rc)
{
    shm_slot_t *result = slot_of(c->shm, S(c)->seq, c->shm->nlocal);
    if (rc == MPI_SUCCESS)
        memcpy(result->data, S(c)->out, (size_t)S(c)->bytes);
    atomic_store_explicit(&result->seq, rc == MPI_SUCCESS ? S(c)->seq : -S(c)->seq, memory_order_release);
    return rc;
}

/* As far as the slots (and the nodes' messages) allow, without blocking. *done_p: complete. */
static int advance(colio_coll_t *c, int *done_p)
{
    const colio_coll_shm_t *s = c->shm;
    int rc = MPI_SUCCESS;
    *done_p = 0;
    if (S(c)->stage == GATHER) {
        if (!node_arrived(c))
            return MPI_SUCCESS;
        if (!s->two_level) {
            rc = combine_node(c, S(c)->out);
            S(c)->seq = 0, *done_p = 1;
            return rc;
        }
        if ((rc = start_leaders(c)) != MPI_SUCCESS) {
            rc = publish(c, rc); /* the p2p schedule ended on this rank */
            S(c)->seq = 0, *done_p = 1;
            return rc;
        }
    }
    if (S(c)->stage == LEADERS) {
        int done = 0;
        rc = colio_coll_p2p.test(c, &done);
        if (rc == MPI_SUCCESS && !done)
            return MPI_SUCCESS;
        publish(c, rc);
    } else if (S(c)->stage == RESULT) {
        const shm_slot_t *result = slot_of(s, S(c)->seq, s->nlocal);
        int64_t seq = atomic_load_explicit(&result->seq, memory_order_acquire);
        if (seq != S(c)->seq && seq != -S(c)->seq)
            return MPI_SUCCESS;
        if (seq == S(c)->seq)
            memcpy(S(c)->out, result->data, (size_t)S(c)->bytes);
        else
            rc = MPI_ERR_OTHER; /* the node's first rank failed among the nodes */
    }
    S(c)->seq = 0, *done_p = 1;
    return rc;
}

/*
 * MPI moves messages only inside MPI calls: a rank waiting here for a peer
 * that still completes a receive from it (a large message's rendezvous)
 * must keep its own side moving.
 */
static void keep_messages_moving(const colio_coll_shm_t *s)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag, MPI_STATUS_IGNORE);
}

/*
 * Not every unfinished test polls MPI: a blocking call tests once, then
 * waits (shm_wait polls on its own), and an Iprobe there cost the call
 * its length whenever the peer's slot came in during it.
 */
static int shm_test(colio_coll_t *c, int *done_p)
{
    if (S(c)->seq == 0)
        return colio_coll_p2p.test(c, done_p);
    int rc = advance(c, done_p);
    if (!*done_p && ++S(c)->tests % 64 == 0)
        keep_messages_moving(c->shm);
    return rc;
}

/* Spin briefly, poll MPI now and then, and give the core away once the wait is long (more ranks than cores). */
static void pause_spin(const colio_coll_shm_t *s, int spins)
{
    if (spins % 64 == 63)
        keep_messages_moving(s);
    if (spins > 2000)
        sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else
        __builtin_ia32_pause();
#endif
}

static int shm_wait(colio_coll_t *c)
{
    if (S(c)->seq == 0)
        return colio_coll_p2p.wait(c);
    const colio_coll_shm_t *s = c->shm;
    int done = 0, rc;
    for (int spins = 0; (rc = advance(c, &done)) == MPI_SUCCESS && !done; spins++)
        pause_spin(s, spins);
    return rc;
}

/* ---- bytes staged beside an allreduce ----------------------------------------------------
 * The record is written with plain stores before the allreduce's own slot
 * is released (shm_allreduce), and read by the node's first rank after it
 * acquired every slot of that allreduce: the slots order them. */

int64_t colio_coll_stage_seq(const colio_coll_t *c, MPI_Comm comm)
{
    const colio_coll_shm_t *s = c->shm;
    if (!(c->ops->caps & COLIO_COLL_CAP_NODE_SLOTS) || s == NULL || s->slots == NULL || comm != s->comm || s->nlocal < 2)
        return 0;
    return s->started + 1;
}

unsigned char *colio_coll_stage_room(const colio_coll_t *c) { return stage_of(c->shm, c->shm->local)->data; }

void colio_coll_stage_mark(const colio_coll_t *c, int64_t seq, int64_t off, int64_t len)
{
    shm_stage_t *r = stage_of(c->shm, c->shm->local);
    r->off = off, r->len = len, r->seq = seq;
}

int colio_coll_stage_leader(const colio_coll_t *c) { return c->shm != NULL && c->shm->local == 0; }

int colio_coll_stage_ranks(const colio_coll_t *c) { return c->shm->nlocal; }

void colio_coll_staged(const colio_coll_t *c, int64_t seq, int local, int64_t *off, int64_t *len,
                       const unsigned char **bytes)
{
    const shm_stage_t *r = stage_of(c->shm, local);
    int named = r->seq == seq;
    *off = named ? r->off : 0, *len = named ? r->len : 0, *bytes = r->data;
}

unsigned char *colio_coll_stage_gather(colio_coll_t *c)
{
    colio_coll_shm_t *s = c->shm;
    if (s->gather == NULL)
        s->gather = aligned_alloc(64, (size_t)s->nlocal * COLIO_COLL_SHM_STAGE); /* a multiple of 64 */
    return s->gather;
}

static int shm_bcast(colio_coll_t *c, void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    return colio_coll_p2p.bcast(c, buf, n, t, root, comm);
}

static int shm_allgatherv(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                          const int *displs, MPI_Comm comm)
{
    return colio_coll_p2p.allgatherv(c, in, n, t, out, counts, displs, comm);
}

static int shm_alltoall(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm)
{
    return colio_coll_p2p.alltoall(c, in, n, t, out, comm);
}

const colio_coll_ops_t colio_coll_shm = {
    .name = "shm",
    .caps = COLIO_COLL_CAP_BRUCK | COLIO_COLL_CAP_NODE_SLOTS,
    .init = shm_init,
    .pending = shm_pending,
    .allreduce = shm_allreduce,
    .bcast = shm_bcast,
    .allgatherv = shm_allgatherv,
    .alltoall = shm_alltoall,
    .test = shm_test,
    .wait = shm_wait,
};
