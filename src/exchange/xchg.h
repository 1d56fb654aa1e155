/*
 * Exchange kernels: one sparse personalized exchange (all-to-many for
 * writes, many-to-all for reads, the metadata lists once per operation and
 * the data every round). Both sides know every message length beforehand.
 * A kernel is a const table of start / progress / cleanup steps, never one
 * blocking call, so blocking and nonblocking operations share it: start()
 * posts the first requests, progress() tests them and posts the next ones.
 * While a kernel is unfinished, x->reqs[0..x->nreqs) are the requests it
 * waits for, so a blocking caller may MPI_Waitall them before progressing.
 */
#ifndef COLIO_EXCHANGE_XCHG_H
#define COLIO_EXCHANGE_XCHG_H

#include <mpi.h>
#include <stdint.h>

#include "core/error.h"

struct colio_topo;

/*
 * One message: len bytes at buf, or, when type is a derived datatype, the
 * bytes (buf, 1, type) describes (then len is its size, at most 1 GiB), so
 * noncontiguous data moves without a staging copy.
 */
typedef struct colio_xchg_msg {
    int peer;
    char *buf;
    int64_t len;       /* bytes, > 0 */
    MPI_Datatype type; /* MPI_BYTE: plain bytes */
} colio_xchg_msg_t;

typedef struct colio_xchg colio_xchg_t;

typedef struct colio_xchg_ops {
    const char *name;
    int (*start)(colio_xchg_t *x);
    int (*progress)(colio_xchg_t *x, int *done_p);
    void (*cleanup)(colio_xchg_t *x);
} colio_xchg_ops_t;

struct colio_xchg {
    /* inputs, set by the engine */
    MPI_Comm comm;
    int tag;
    int rank, nprocs;
    const struct colio_topo *topo;
    const colio_xchg_msg_t *sends; /* sorted by peer, no self messages */
    int nsends;
    const colio_xchg_msg_t *recvs; /* sorted by peer, no self messages */
    int nrecvs;
    /* state, owned by the kernel */
    const colio_xchg_ops_t *ops;
    MPI_Request *reqs;
    int nreqs, cap;
    void *priv;
};

const colio_xchg_ops_t *colio_xchg_find(const char *name);
const char *colio_xchg_name(int i);

/* ---- helpers for kernels ---------------------------------------------------- */

/*
 * Make room for n more requests in x->reqs. The engine reserves, before
 * its agreement on allocation failures, as many requests as any exchange of
 * the operation can need, so kernels never fail here half-way through
 * posting (which would leave peers waiting).
 */
int colio_xchg_reserve(colio_xchg_t *x, int n);
/* Requests one message of len bytes needs (messages over 1 GiB go in pieces). */
int colio_xchg_chunks(int64_t len);
/* Post one message as one or more Isend/Issend/Irecv of at most 1 GiB each. */
int colio_xchg_post(colio_xchg_t *x, const colio_xchg_msg_t *m, int kind);
enum { COLIO_XCHG_RECV, COLIO_XCHG_SEND, COLIO_XCHG_SSEND };
/* MPI_Testall over x->reqs; *done_p when all completed (then nreqs = 0). */
int colio_xchg_testall(colio_xchg_t *x, int *done_p);
/* Free the request array (the engine, at the end of an operation). */
void colio_xchg_free_reqs(colio_xchg_t *x);

#endif
