/*
 * Agreements in node-shared memory (colio_agreements=shm; coll.h). Where
 * every rank of a blocking call's communicator shares one node, an
 * allreduce of a few words needs no message: each rank stores its words in
 * its own slot of a segment all ranks map (MPI_Win_allocate_shared), then
 * publishes the allreduce's number; the allreduce is complete on a rank
 * once every slot shows that number, and each rank combines the slots in
 * rank order itself, so every rank computes the same result. At 2 ranks a
 * 64-byte pwrite followed by such an agreement cost 1.5-2.1 us here, against
 * 2.2-3.2 with one MPI_Allreduce (docs/PERFORMANCE.md, "Agreements in
 * shared memory"): the rendezvous is a cache line, not a message.
 *
 * Slots come in two rows used alternately by consecutive allreduces: a rank
 * can start allreduce k + 1 only after it saw every slot at k, so no rank
 * can write row k mod 2 again (allreduce k + 2) while another still reads
 * it. The allreduces through one segment must therefore start in the same
 * order on every rank: the segment belongs to one communicator, which only
 * blocking calls use (nonblocking ones run on slot communicators of their
 * own, engine/progress.h), and a blocking call completes each agreement
 * before the next. Everything else (broadcasts, gathers, allreduces on
 * other communicators or too large for a slot) runs as p2p.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

/* One rank's slot: the number of the allreduce its words belong to, then the words. */
#define SLOT_BYTES 256
typedef struct shm_slot {
    _Atomic int64_t seq;
    unsigned char data[SLOT_BYTES - sizeof(int64_t)];
} shm_slot_t;
_Static_assert(sizeof(shm_slot_t) == SLOT_BYTES, "one slot is SLOT_BYTES");

struct colio_coll_shm {
    MPI_Win win;
    MPI_Comm comm;        /* the only communicator whose allreduces use the slots */
    int rank, size;
    int64_t started;      /* allreduces started through the slots (the next one's number - 1) */
    shm_slot_t *slots;    /* 2 rows of size slots */
    struct colio_coll_shm *next; /* the process's segments whose window is still allocated */
};

/*
 * Segments still allocated at MPI_Finalize (those of communicators the
 * program never freed, such as MPI_COMM_WORLD's cache) give their windows
 * back first thing in it: Open MPI deletes communicators' attributes after
 * its one-sided component is gone, and MPI_COMM_SELF's are deleted before
 * anything else. Every rank holds the same segments, made in the same
 * order, and frees them in that order.
 */
static colio_coll_shm_t *live;
static int finalize_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static int free_windows_at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    pthread_mutex_lock(&live_lock);
    colio_coll_shm_t *s = live;
    live = NULL;
    pthread_mutex_unlock(&live_lock);
    for (; s; s = s->next)
        MPI_Win_free(&s->win);
    return MPI_SUCCESS;
}

/* Lock held. */
static void track(colio_coll_shm_t *s)
{
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_windows_at_finalize, &finalize_keyval, NULL) ==
            MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    colio_coll_shm_t **end = &live;
    while (*end)
        end = &(*end)->next;
    *end = s; /* in the order made, the order every rank frees them in */
}

/* Lock held: no longer freed at MPI_Finalize. Whether it was still there (its window allocated). */
static int untrack(colio_coll_shm_t *s)
{
    for (colio_coll_shm_t **p = &live; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return 1;
        }
    return 0;
}

static shm_slot_t *slot_of(const colio_coll_shm_t *s, int64_t seq, int rank)
{
    return &s->slots[(seq & 1) * s->size + rank];
}

int colio_coll_shm_create(MPI_Comm comm, colio_coll_shm_t **seg_p)
{
    *seg_p = NULL;
#ifdef COLIO_SMPI
    (void)comm;
    return MPI_ERR_OTHER; /* SMPI's ranks are threads of one process: p2p there (coll.c) */
#else
    colio_coll_shm_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return MPI_ERR_NO_MEM;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->size);
    s->comm = comm;
    MPI_Aint bytes = s->rank == 0 ? (MPI_Aint)2 * s->size * SLOT_BYTES : 0;
    void *mine;
    int rc = MPI_Win_allocate_shared(bytes, SLOT_BYTES, MPI_INFO_NULL, comm, &mine, &s->win);
    if (rc != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    MPI_Aint size;
    int disp;
    rc = MPI_Win_shared_query(s->win, 0, &size, &disp, &s->slots);
    if (rc != MPI_SUCCESS || size < (MPI_Aint)2 * s->size * SLOT_BYTES) {
        MPI_Win_free(&s->win);
        free(s);
        return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    }
    if (s->rank == 0) /* the window's memory starts undefined; the caller's agreement orders this before any use */
        for (int i = 0; i < 2 * s->size; i++)
            atomic_store_explicit(&s->slots[i].seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    pthread_mutex_lock(&live_lock);
    track(s);
    pthread_mutex_unlock(&live_lock);
    *seg_p = s;
    return MPI_SUCCESS;
#endif
}

void colio_coll_shm_free(colio_coll_shm_t *s)
{
    if (s == NULL)
        return;
    pthread_mutex_lock(&live_lock);
    int allocated = untrack(s);
    pthread_mutex_unlock(&live_lock);
    if (allocated)
        MPI_Win_free(&s->win);
    free(s);
}

/* ---- allreduce through the slots -------------------------------------------------------- */

/* Whether this allreduce goes through the slots: c's segment, its communicator, words that fit. */
static int fits_slots(const colio_coll_t *c, int n, MPI_Datatype t, MPI_Comm comm, int *bytes)
{
    int esize = 0;
    if (c->shm == NULL || comm != c->shm->comm || n < 0 || MPI_Type_size(t, &esize) != MPI_SUCCESS)
        return 0;
    *bytes = n * esize;
    return esize > 0 && n <= (int)sizeof(((shm_slot_t *)0)->data) / esize;
}

static int shm_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    int bytes;
    if (!fits_slots(c, n, t, comm, &bytes))
        return colio_coll_p2p.allreduce(c, in, out, n, t, op, comm);
    colio_coll_shm_t *s = c->shm;
    int64_t seq = ++s->started;
    shm_slot_t *mine = slot_of(s, seq, s->rank);
    memcpy(mine->data, in, (size_t)bytes);
    atomic_store_explicit(&mine->seq, seq, memory_order_release);
    c->shm_seq = seq;
    c->out = out, c->count = n, c->type = t, c->op = op;
    c->shm_next = 0;
    return MPI_SUCCESS;
}

/*
 * Every slot at c->shm_seq: combine them as MPI orders a reduction, rank 0's
 * words op (rank 1's op (... op rank p-1's)), from the last rank down.
 */
static int combine(colio_coll_t *c)
{
    const colio_coll_shm_t *s = c->shm;
    int64_t seq = c->shm_seq;
    int rc = MPI_SUCCESS, esize = 0;
    MPI_Type_size(c->type, &esize);
    memcpy(c->out, slot_of(s, seq, s->size - 1)->data, (size_t)c->count * (size_t)esize);
    for (int j = s->size - 2; j >= 0 && rc == MPI_SUCCESS; j--)
        rc = MPI_Reduce_local(slot_of(s, seq, j)->data, c->out, c->count, c->type, c->op);
    c->shm_seq = 0;
    return rc;
}

/* Have all slots reached the allreduce in flight? Remembers the first that had not. */
static int all_arrived(colio_coll_t *c)
{
    const colio_coll_shm_t *s = c->shm;
    for (; c->shm_next < s->size; c->shm_next++)
        if (atomic_load_explicit(&slot_of(s, c->shm_seq, c->shm_next)->seq, memory_order_acquire) != c->shm_seq)
            return 0;
    return 1;
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

static int shm_test(colio_coll_t *c, int *done_p)
{
    if (c->shm_seq == 0)
        return colio_coll_p2p.test(c, done_p);
    *done_p = all_arrived(c);
    if (!*done_p) {
        keep_messages_moving(c->shm);
        return MPI_SUCCESS;
    }
    return combine(c);
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
    if (c->shm_seq == 0)
        return colio_coll_p2p.wait(c);
    for (int spins = 0; !all_arrived(c); spins++)
        pause_spin(c->shm, spins);
    return combine(c);
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
    .allreduce = shm_allreduce,
    .bcast = shm_bcast,
    .allgatherv = shm_allgatherv,
    .alltoall = shm_alltoall,
    .test = shm_test,
    .wait = shm_wait,
};
