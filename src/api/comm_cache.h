/*
 * What colio keeps on a program's communicator, found again by every later
 * open on it (an attribute, freed with the communicator): which ranks share
 * a node, and the duplicate that files opened on it share.
 *
 * Sharing one duplicate instead of an MPI_Comm_dup per file is what makes
 * a reopen cost one agreement (docs/DESIGN.md, "What an open costs"). Only
 * blocking calls use it. It is safe because every point-to-point message of
 * an operation is received before its closing agreement completes on any
 * rank, nothing receives with any tag (the sparse counts step receives
from any source with its operation's own tag: src/engine/counts.c says why
that is safe here too), MPI never lets
 * messages of one sender, tag and communicator overtake each other (tags
 * repeat between files: each file numbers its own operations), and blocking
 * collective calls reach the shared duplicate in the same order on every
 * rank. Nonblocking calls on different files may legally start in
 * different orders on different ranks, so a file's nonblocking slots come
 * from a duplicate of its own, handed out at its open: a closed file's,
 * kept for the next open (each has a number, the same on every rank, and
 * the open's agreement checks that every rank took the same one: files
 * closed in different orders on different ranks leave the kept ones in
 * different orders), else the spare, which the cache keeps forming
 * (MPI_Comm_idup on a parent used for nothing else, one at a time, each
 * completed at the next open that needs it), so an open waits for none and
 * an open after a close makes none (a fresh duplicate per open was a third
 * of what colio adds to MPI_File_open).
 * Two cases keep a duplicate per file for everything: a program initialised
 * with MPI_THREAD_MULTIPLE (threads may then call collectives on different
 * files at once), and a file with a one-sided window (file.c); their files
 * still take their own duplicate for nonblocking slots from the cache.
 * (Under SMPI there are no duplicates at all, base/smpi_compat.h.)
 * Where some of the shared duplicate's ranks share a node, the cache also
 * keeps the slots in node-shared memory its blocking calls' agreements go
 * through (coll/coll_shm.c): blocking calls are the only ones on it, in
 * the same order on every rank, which is what the slots need.
 */
#ifndef COLIO_CORE_COMM_CACHE_H
#define COLIO_CORE_COMM_CACHE_H

#include <mpi.h>

#include "base/error.h"
#include "coll/coll.h"
#include "topo/topo.h"

#define COLIO_COMM_KEPT_MAX 8

typedef struct colio_comm_cache {
    colio_topo_t topo;     /* nodes of the communicator (no network model) */
    MPI_Comm shared;       /* the duplicate files share, or MPI_COMM_NULL where they may not */
    colio_coll_shm_t *shm; /* with shared, where some of its ranks share a node: &slots, else NULL */
    colio_coll_shm_t slots; /* ... its allreduces' slots in node-shared memory (coll/coll.h) */
    MPI_Comm nursery;      /* with shared: the parent of the spares, used by their MPI_Comm_idup only */
    MPI_Comm spare;        /* ... the next open's own duplicate, forming while spare_req is pending */
    MPI_Request spare_req;
    int64_t next_id;       /* the number the next spare taken gets (alike on every rank) */
    int nkept;             /* closed files' own duplicates, for later opens */
    struct colio_comm_kept {
        MPI_Comm comm;
        int64_t id;
    } kept[COLIO_COMM_KEPT_MAX];
    int refs;              /* the attribute's, each file's on shared, each file's own duplicate's */
} colio_comm_cache_t;

/* Local: what an earlier open kept on user_comm, or NULL (the same answer on every rank). */
colio_comm_cache_t *colio_comm_cache_find(MPI_Comm user_comm);
/*
 * Collective over comm, a fresh duplicate of user_comm the caller owns: the
 * nodes (with probe_net, the same on every rank, the network between them
 * measured: colio_topo_probe_net), and the cache kept on user_comm where every rank can keep it (one
 * allreduce). Where it is kept, *cache_p points at it (the caller holds a
 * reference, for its file's own duplicate). When files may share, comm
 * itself becomes the shared duplicate and *shared_p points at the cache
 * too (a second reference); else *shared_p is NULL and the caller keeps
 * comm.
 */
int colio_comm_cache_build(MPI_Comm user_comm, MPI_Comm comm, int probe_net, colio_topo_t *topo,
                           colio_comm_cache_t **shared_p, colio_comm_cache_t **cache_p, colio_err_t *err);
/* Local: the number of the kept duplicate an open would take (the highest), or -1 when none is kept. */
int64_t colio_comm_cache_proposal(colio_comm_cache_t *c);
/*
 * Collective, at an open that shares, after its agreement (every rank at the
 * same point, with the same id): the file's own duplicate for its
 * nonblocking slots, the kept one numbered id where every rank proposed it
 * (id >= 0), else the spare (waited for: it formed since the open that
 * started it) with the next spare started. Fails only when the spare's
 * MPI_Comm_idup failed.
 */
int colio_comm_cache_own(colio_comm_cache_t *c, int64_t id, MPI_Comm *own, int64_t *own_id, colio_err_t *err);
/* Local, at a close: keep a file's own duplicate for a later open (freed when the cache is full). */
void colio_comm_cache_keep(colio_comm_cache_t *c, MPI_Comm *own, int64_t own_id);
/* A file's reference on the shared duplicate. */
MPI_Comm colio_comm_cache_take(colio_comm_cache_t *c);
/* A reference on the cache itself (a file's own duplicate comes from it and goes back to it). */
colio_comm_cache_t *colio_comm_cache_hold(colio_comm_cache_t *c);
/* Drop either; the last reference frees the duplicates and the cache. */
void colio_comm_cache_release(colio_comm_cache_t *c);

#endif
