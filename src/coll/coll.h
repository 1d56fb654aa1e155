/*
 * Collective agreements of an operation (hint colio_agreements): the few
 * small collectives every colio call makes besides its exchanges (error and
 * extent agreement, access pattern, counts, error message). Three
 * implementations a hint can name behind one table, and a fourth for
 * files of one rank:
 *
 *   mpi  MPI's nonblocking collectives (MPI_Iallreduce, ...): one request.
 *   p2p  colio's own schedules of point-to-point messages, stepped by
 *        colio_coll_test: recursive doubling (allreduce), binomial tree
 *        (bcast), Bruck (allgather, allgatherv, alltoall); log2(p) steps
 *        each. For MPI libraries whose nonblocking collectives do not
 *        progress or scale (SimGrid SMPI's are linear: p^2 messages), so a
 *        nonblocking colio operation still overlaps computation.
 *   shm  allreduces of a few words through slots in node-shared memory,
 *        where the object was given a segment (colio_coll_shm_create) and
 *        the allreduce runs on the segment's communicator; p2p otherwise
 *        (coll_shm.c).
 *   solo a communicator of one rank: each collective a copy of the rank's
 *        own words, complete at once (coll_solo.c); the file's
 *        configuration takes it for such files, whatever the hint names.
 *
 * Buffers are arrays of one contiguous predefined type (colio passes
 * MPI_INT64_T, MPI_INT and MPI_CHAR). A collective must complete (test
 * until done, or wait) before the next one starts on the same object; every
 * rank starts the same collectives in the same order, on objects with the
 * same tag (p2p's messages use it; no other message on the communicator
 * may).
 */
#ifndef COLIO_COLL_COLL_H
#define COLIO_COLL_COLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>


struct colio_coll_ops;
/* Bytes of one rank's slot in node-shared memory: 8 for the allreduce's number, the rest for its words. */
#define COLIO_COLL_SHM_SLOT 256
/* Bytes one rank may stage for its node's first rank beside an allreduce (colio_coll_stage). */
#define COLIO_COLL_SHM_STAGE 4096

/* Slots in node-shared memory for the allreduces of one communicator (coll_shm.c). */
typedef struct colio_coll_shm {
    MPI_Comm comm;        /* the only communicator whose allreduces use the slots */
    MPI_Win win;          /* the node's segment */
    void *slots;          /* two rows of nlocal slots, then two result slots, then nlocal staging records */
    unsigned char *gather; /* the node's first rank: room for every rank's staged bytes (malloc, lazily) */
    int local, nlocal;    /* this rank among its node's ranks, and their number */
    int two_level;        /* ranks on several nodes: the nodes' first ranks meet over leaders */
    MPI_Comm leaders;     /* two_level, on a node's first rank: the nodes' first ranks, else MPI_COMM_NULL */
    int64_t started;      /* allreduces started through the slots (the next one's number - 1) */
    int64_t fail_leaders_at; /* tests: the allreduce of this number fails among the nodes (0: none) */
    struct colio_coll_shm *next; /* the process's segments still allocated */
} colio_coll_shm_t;

/* Room for an implementation's own state in the object (each asserts that its state fits). */
#define COLIO_COLL_STATE 1024

typedef struct colio_coll {
    const struct colio_coll_ops *ops;
    int tag;                     /* the messages of colio's own schedules carry it */
    colio_coll_shm_t *shm;       /* node-shared slots the object may use (NULL: none) */
    _Alignas(16) unsigned char state[COLIO_COLL_STATE]; /* the implementation's own (coll_*.c) */
} colio_coll_t;

/* What a schedule does beyond the operations (colio_coll_ops_t caps). */
enum {
    COLIO_COLL_CAP_BRUCK = 1u << 0,      /* alltoall by colio's Bruck schedule (its message count) */
    COLIO_COLL_CAP_NODE_SLOTS = 1u << 1, /* allreduces through slots in node-shared memory, which also stage
                                            small writes (colio_coll_stage_*): a file keeps a segment */
};

typedef struct colio_coll_ops {
    const char *name;
    unsigned caps;
    /* The implementation's state in c->state: made idle (before each operation's first collective), and
       whether a collective is in flight (started and not yet seen complete) */
    void (*init)(colio_coll_t *c);
    int (*pending)(const colio_coll_t *c);
    int (*allreduce)(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
    int (*bcast)(colio_coll_t *c, void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm);
    /* in: n elements of this rank; out: counts[j] elements of rank j at displs[j] (NULL: n at j * n) */
    int (*allgatherv)(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                      const int *displs, MPI_Comm comm);
    int (*alltoall)(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm);
    int (*test)(colio_coll_t *c, int *done_p);
    int (*wait)(colio_coll_t *c);
} colio_coll_ops_t;

extern const colio_coll_ops_t colio_coll_mpi;
extern const colio_coll_ops_t colio_coll_p2p;
extern const colio_coll_ops_t colio_coll_shm;
/* A communicator of one rank: each collective a copy, complete at once (coll_solo.c). Not named in the
   registry (colio_agreements cannot pick it); colio_file_configure takes it for one-rank files. */
extern const colio_coll_ops_t colio_coll_solo;

/* Bytes of one t, or 0; the engine's agreements (all of MPI_INT64_T) need not ask MPI. */
int colio_coll_element_size(MPI_Datatype t);

/* The implementation named name ("mpi", "p2p", "shm"; never "solo"), or NULL. */
const colio_coll_ops_t *colio_coll_find(const char *name);

/*
 * inout = in op inout, as MPI_Reduce_local, without MPI where colio knows
 * the function: MIN, MAX and SUM of MPI_INT64_T (the engine's agreements)
 * and colio's own ops named by colio_coll_local_op. A small call's SETUP
 * agreement spent a tenth of its combining in MPI_Reduce_local's entry.
 */
int colio_coll_reduce_local(const void *in, void *inout, int n, MPI_Datatype t, MPI_Op op);
/* op (made by colio with MPI_Op_create, never freed) runs fn: colio_coll_reduce_local may call fn itself. At most 8. */
void colio_coll_local_op(MPI_Op op, MPI_User_function *fn);

/* The implementation used when colio_agreements is not set: p2p under SimGrid SMPI, else shm. */
const char *colio_coll_default_name(void);

/*
 * An idle object using ops, its p2p messages tagged tag (a test returns done
 * at once), shm's allreduces on shm's communicator through shm (NULL: none).
 */
void colio_coll_init(colio_coll_t *c, const colio_coll_ops_t *ops, int tag, colio_coll_shm_t *shm);

/*
 * Collective over comm: the slots shm's allreduces on comm use, one
 * segment per node (the ranks sharing memory, or with node_size > 0 groups
 * of node_size consecutive ranks among them, for tests), with the nodes' first ranks'
 * communicator where there are several. Fails (an MPI error code) alike on
 * every rank when a split fails, alike on the ranks of a node when the
 * window does. The caller agrees on comm whether every rank made
 * its segment: if so, that agreement orders the slots' zeroing before
 * their first use; if not, every rank frees what it made. Segments are
 * freed, collectively, before comm (or at MPI_Finalize, by themselves).
 */
int colio_coll_shm_create(MPI_Comm comm, int node_size, colio_coll_shm_t *seg);
void colio_coll_shm_free(colio_coll_shm_t *seg);
/*
 * The same with that agreement: 1 where every rank made its node's segment
 * (kept), 0 where some rank did not (freed everywhere) or shared is 0 (no
 * node holds two ranks of comm, as the topology says alike on every rank:
 * nothing made).
 */
int colio_coll_shm_create_agreed(MPI_Comm comm, int node_size, int shared, colio_coll_shm_t *seg);

/* Is a collective in flight on c (started and not yet seen complete)? */
int colio_coll_pending(const colio_coll_t *c);

/*
 * Bytes handed to the node's first rank beside an allreduce (engine/stage.c):
 * a rank stores up to COLIO_COLL_SHM_STAGE bytes and their file offset in its
 * staging record of c's segment before the allreduce that names them starts;
 * the node's first rank reads them once that allreduce completed, and must
 * be done before its next allreduce starts (the records have one row: a rank
 * stages again only after the next allreduce, which waits for that rank).
 *
 * colio_coll_stage_seq: the number the next allreduce on comm will have,
 * the same on the node's ranks, or 0 where it will not go through the
 * slots (another communicator, no segment, or one rank on the node: then
 * nothing is staged). colio_coll_stage_room: this rank's record's bytes, to
 * fill before colio_coll_stage_mark names them (len bytes at off) for
 * allreduce seq. colio_coll_staged: on the node's first rank, the bytes
 * the node's rank `local` (below colio_coll_stage_ranks) staged for seq
 * (len 0: none). colio_coll_stage_gather: the first rank's room for all of
 * them, or NULL when out of memory.
 */
int64_t colio_coll_stage_seq(const colio_coll_t *c, MPI_Comm comm);
unsigned char *colio_coll_stage_room(const colio_coll_t *c);
void colio_coll_stage_mark(const colio_coll_t *c, int64_t seq, int64_t off, int64_t len);
int colio_coll_stage_leader(const colio_coll_t *c);
int colio_coll_stage_ranks(const colio_coll_t *c);
void colio_coll_staged(const colio_coll_t *c, int64_t seq, int local, int64_t *off, int64_t *len,
                       const unsigned char **bytes);
unsigned char *colio_coll_stage_gather(colio_coll_t *c);

static inline int colio_coll_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op,
                                       MPI_Comm comm)
{
    return c->ops->allreduce(c, in, out, n, t, op, comm);
}
static inline int colio_coll_bcast(colio_coll_t *c, void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    return c->ops->bcast(c, buf, n, t, root, comm);
}
static inline int colio_coll_allgather(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm)
{
    return c->ops->allgatherv(c, in, n, t, out, NULL, NULL, comm);
}
static inline int colio_coll_allgatherv(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out,
                                        const int *counts, const int *displs, MPI_Comm comm)
{
    return c->ops->allgatherv(c, in, n, t, out, counts, displs, comm);
}
static inline int colio_coll_alltoall(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out,
                                      MPI_Comm comm)
{
    return c->ops->alltoall(c, in, n, t, out, comm);
}
/*
 * Point-to-point messages (sends and receives) one rank's alltoall over p
 * ranks takes: colio's Bruck schedule (p2p's, which shm runs too) one of
 * each per step, MPI's counted as the pairwise exchange MPI libraries use
 * for small alltoalls (statistics).
 */
static inline int64_t colio_coll_alltoall_messages(const colio_coll_t *c, int p)
{
    int64_t steps = 0;
    for (int v = 1; v < p; v *= 2)
        steps++;
    return (c->ops->caps & COLIO_COLL_CAP_BRUCK) ? 2 * steps : 2 * (int64_t)(p - 1);
}
static inline int colio_coll_test(colio_coll_t *c, int *done_p) { return c->ops->test(c, done_p); }
static inline int colio_coll_wait(colio_coll_t *c) { return c->ops->wait(c); }

#endif
