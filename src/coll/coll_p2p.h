/*
 * The state of colio's point-to-point schedules (coll_p2p.c), inside
 * colio_coll_t's state: coll_shm.c runs them for everything its slots do
 * not carry, so its own state begins with this one.
 */
#ifndef COLIO_COLL_COLL_P2P_H
#define COLIO_COLL_COLL_P2P_H

#include "coll/coll.h"

/* Messages a schedule step has in flight at most (a binomial bcast sends log2(p) at once). */
#define COLIO_P2P_MAXREQ 64
/* Scratch a schedule finds in the object itself (an operation's agreements: no allocation per call). */
#define COLIO_P2P_SMALL 256

typedef struct colio_p2p_state {
    int (*step)(colio_coll_t *c); /* consume the last step's messages, post the next ones */
    int active, phase;
    MPI_Comm comm;
    int rank, size;
    int nreq;
    MPI_Request reqs[COLIO_P2P_MAXREQ];
    const void *in;
    void *out;
    int count, esize, root;
    MPI_Datatype type;
    MPI_Op op;
    const int *counts, *displs;  /* allgatherv (NULL: count elements from every rank) */
    int dist, pof2, rem, newrank, reduce_from;
    char *tmp;                   /* scratch of the schedule (small, or allocated), given up when it completes */
    int64_t *off;
    _Alignas(16) char small[COLIO_P2P_SMALL];
} colio_p2p_state_t;

_Static_assert(sizeof(colio_p2p_state_t) + 64 <= COLIO_COLL_STATE, "the schedules' state, and shm's beside it, fit");

static inline colio_p2p_state_t *colio_p2p_state(colio_coll_t *c) { return (colio_p2p_state_t *)(void *)c->state; }
static inline const colio_p2p_state_t *colio_p2p_state_c(const colio_coll_t *c)
{
    return (const colio_p2p_state_t *)(const void *)c->state;
}

/* p2p's init and pending (shm's build on them). */
void colio_p2p_init(colio_coll_t *c);
int colio_p2p_pending(const colio_coll_t *c);

#endif
