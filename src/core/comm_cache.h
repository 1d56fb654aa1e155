/*
 * What colio keeps on a program's communicator, found again by every later
 * open on it (an attribute, freed with the communicator): which ranks share
 * a node, and the duplicate that files opened on it share.
 *
 * Sharing one duplicate instead of an MPI_Comm_dup per file is what makes
 * a reopen cost one agreement (docs/DESIGN.md, "What an open costs"). It
 * is safe because every colio operation's point-to-point messages carry
 * tags of its own and end before its closing agreement completes anywhere,
 * MPI never lets messages of one sender and tag overtake each other, and
 * blocking collective calls reach the shared duplicate in the same order
 * on every rank. Two cases keep a duplicate per file: a program initialised
 * with MPI_THREAD_MULTIPLE (threads may then call collectives on different
 * files at once), and a file with a one-sided window (file.c).
 */
#ifndef COLIO_CORE_COMM_CACHE_H
#define COLIO_CORE_COMM_CACHE_H

#include <mpi.h>

#include "core/error.h"
#include "topo/topo.h"

typedef struct colio_comm_cache {
    colio_topo_t topo; /* nodes of the communicator (no network model) */
    MPI_Comm shared;   /* the duplicate files share, or MPI_COMM_NULL where they may not */
    int refs;          /* the attribute's and each file's on shared */
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
/* A file's reference on the shared duplicate. */
MPI_Comm colio_comm_cache_take(colio_comm_cache_t *c);
/* Drop it; the last reference frees the duplicate. */
void colio_comm_cache_release(colio_comm_cache_t *c);

#endif
