/*
 * What colio keeps on a program's communicator, found again by every later
 * open on it (an attribute, freed with the communicator): which ranks share
 * a node, and the duplicate that files opened on it share.
 *
 * Sharing one duplicate instead of an MPI_Comm_dup per file is what makes
 * a reopen cost one agreement (docs/DESIGN.md, "What an open costs"). Only
 * blocking calls use it. It is safe because every point-to-point message of
 * an operation is received before its closing agreement completes on any
 * rank, nothing receives from any source or with any tag, MPI never lets
 * messages of one sender, tag and communicator overtake each other (tags
 * repeat between files: each file numbers its own operations), and blocking
 * collective calls reach the shared duplicate in the same order on every
 * rank. Nonblocking calls on different files may legally start in
 * different orders on different ranks, so a file's nonblocking slots come
 * from a duplicate of its own, handed out at its open: the cache keeps the
 * next one forming (MPI_Comm_idup on a parent used for nothing else, one at
 * a time, each completed at the next open), so an open waits for none.
 * Two cases keep a duplicate per file for everything: a program initialised
 * with MPI_THREAD_MULTIPLE (threads may then call collectives on different
 * files at once), and a file with a one-sided window (file.c).
 */
#ifndef COLIO_CORE_COMM_CACHE_H
#define COLIO_CORE_COMM_CACHE_H

#include <mpi.h>

#include "base/error.h"
#include "topo/topo.h"

typedef struct colio_comm_cache {
    colio_topo_t topo;     /* nodes of the communicator (no network model) */
    MPI_Comm shared;       /* the duplicate files share, or MPI_COMM_NULL where they may not */
    MPI_Comm nursery;      /* with shared: the parent of the spares, used by their MPI_Comm_idup only */
    MPI_Comm spare;        /* ... the next open's own duplicate, forming while spare_req is pending */
    MPI_Request spare_req;
    int refs;              /* the attribute's and each file's on shared */
} colio_comm_cache_t;

/* Local: what an earlier open kept on user_comm, or NULL (the same answer on every rank). */
colio_comm_cache_t *colio_comm_cache_find(MPI_Comm user_comm);
/*
 * Collective over comm, a fresh duplicate of user_comm the caller owns: the
 * nodes, and the cache kept on user_comm where every rank can keep it (one
 * allreduce). When files may share, comm itself becomes the shared
 * duplicate and *shared_p points at the cache (the caller holds a
 * reference); else *shared_p is NULL and the caller keeps comm.
 */
int colio_comm_cache_build(MPI_Comm user_comm, MPI_Comm comm, colio_topo_t *topo, colio_comm_cache_t **shared_p,
                           colio_err_t *err);
/*
 * Collective, at an open that shares (every rank at the same point): a
 * duplicate of the file's own for its nonblocking slots (the spare, waited
 * for: it formed since the last open), and the next spare started.
 */
int colio_comm_cache_spare(colio_comm_cache_t *c, MPI_Comm *own, colio_err_t *err);
/* A file's reference on the shared duplicate. */
MPI_Comm colio_comm_cache_take(colio_comm_cache_t *c);
/* Drop it; the last reference frees the duplicate. */
void colio_comm_cache_release(colio_comm_cache_t *c);

#endif
