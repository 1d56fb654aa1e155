/*
 * Agreements of a file opened by one rank (coll.h): every collective over a
 * communicator of one is a copy of the rank's own contribution, complete at
 * once. colio_file_configure takes it for such files whatever
 * colio_agreements names; p2p's schedule asked MPI for the rank, the size
 * and the type's size first: a 64-byte express call's agreement took 451
 * of colio_express_run's 1,950 instructions at one rank, 123 as a copy
 * (docs/PERFORMANCE.md, "One rank's agreements").
 */
#include <string.h>

#include "coll/coll.h"

/* Bytes of n elements of t (colio_coll_element_size), or -1. */
static int64_t bytes_of(int n, MPI_Datatype t)
{
    int esize = colio_coll_element_size(t);
    return esize > 0 ? (int64_t)n * esize : -1;
}

/* out = in (in == MPI_IN_PLACE: out already holds it); overlapping buffers are the caller's own. */
static int copy(const void *in, void *out, int n, MPI_Datatype t)
{
    int64_t bytes = bytes_of(n, t);
    if (bytes < 0)
        return MPI_ERR_TYPE;
    if (in != MPI_IN_PLACE && in != out && bytes > 0)
        memmove(out, in, (size_t)bytes);
    return MPI_SUCCESS;
}

/* Nothing is ever in flight: every collective completes as it starts. */
static void solo_init(colio_coll_t *c) { (void)c; }

static int solo_pending(const colio_coll_t *c)
{
    (void)c;
    return 0;
}

static int solo_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    (void)c, (void)op, (void)comm; /* one contribution: the reduction is that contribution */
    return copy(in, out, n, t);
}

static int solo_bcast(colio_coll_t *c, void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    (void)c, (void)buf, (void)n, (void)t, (void)root, (void)comm;
    return MPI_SUCCESS;
}

static int solo_allgatherv(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                           const int *displs, MPI_Comm comm)
{
    (void)c, (void)comm, (void)counts; /* counts[0] is n: the rank's own */
    int64_t at = displs ? bytes_of(displs[0], t) : 0;
    if (at < 0)
        return MPI_ERR_TYPE;
    return copy(in, (char *)out + at, n, t);
}

static int solo_alltoall(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm)
{
    (void)c, (void)comm;
    return copy(in, out, n, t);
}

static int solo_test(colio_coll_t *c, int *done_p)
{
    (void)c;
    *done_p = 1;
    return MPI_SUCCESS;
}

static int solo_wait(colio_coll_t *c)
{
    (void)c;
    return MPI_SUCCESS;
}

const colio_coll_ops_t colio_coll_solo = {
    .name = "solo",
    .init = solo_init,
    .pending = solo_pending,
    .allreduce = solo_allreduce,
    .bcast = solo_bcast,
    .allgatherv = solo_allgatherv,
    .alltoall = solo_alltoall,
    .test = solo_test,
    .wait = solo_wait,
};
