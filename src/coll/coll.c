/* Registry of the agreement implementations (coll.h) and the one they share. */
#include "coll/coll.h"

#include <sched.h>
#include <string.h>

/* The only list of implementations: add one line per new one. */
static const colio_coll_ops_t *const registry[] = {
    &colio_coll_mpi,
    &colio_coll_p2p,
};

#define N_COLLS ((int)(sizeof registry / sizeof registry[0]))

const colio_coll_ops_t *colio_coll_find(const char *name)
{
    for (int i = 0; i < N_COLLS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *colio_coll_default_name(void)
{
#ifdef COLIO_SMPI
    return "p2p"; /* SMPI's nonblocking collectives are linear (core/smpi_compat.h, docs/SCALE.md) */
#else
    return "mpi";
#endif
}

void colio_coll_init(colio_coll_t *c, const colio_coll_ops_t *ops, int tag)
{
    memset(c, 0, sizeof *c);
    c->ops = ops;
    c->tag = tag;
    c->req = MPI_REQUEST_NULL;
}

int colio_coll_pending(const colio_coll_t *c) { return c->active || c->req != MPI_REQUEST_NULL; }

/* Polls before yielding: a few microseconds, longer than an agreement takes with a core per rank. */
#define COLIO_POLLS_BEFORE_YIELD 200

int colio_allreduce_yielding(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
#ifdef COLIO_SMPI
    return MPI_Allreduce(in, out, n, t, op, comm); /* simulated time: polling would only cost wall time */
#else
    MPI_Request req;
    int rc = MPI_Iallreduce(in, out, n, t, op, comm, &req), done = 0;
    for (int polls = 0; rc == MPI_SUCCESS && !done; polls++) {
        rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done && polls >= COLIO_POLLS_BEFORE_YIELD)
            sched_yield();
    }
    return rc;
#endif
}
