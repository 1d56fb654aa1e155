/* Blocking agreements, polled then yielding (see agree.h). */
#include "base/agree.h"

#include <sched.h>

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
