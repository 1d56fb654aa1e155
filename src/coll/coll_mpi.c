/* Agreements as MPI's own nonblocking collectives (colio_agreements=mpi; coll.h). */
#include "coll/coll.h"

/* The object's state: the collective's request. */
typedef struct mpi_state {
    MPI_Request req;
} mpi_state_t;

_Static_assert(sizeof(mpi_state_t) <= COLIO_COLL_STATE, "the request fits the object");

static MPI_Request *req_of(colio_coll_t *c) { return &((mpi_state_t *)(void *)c->state)->req; }

static void mpi_init(colio_coll_t *c) { *req_of(c) = MPI_REQUEST_NULL; }

static int mpi_pending(const colio_coll_t *c) { return ((const mpi_state_t *)(const void *)c->state)->req != MPI_REQUEST_NULL; }

static int mpi_allreduce(colio_coll_t *c, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    return MPI_Iallreduce(in, out, n, t, op, comm, req_of(c));
}

static int mpi_bcast(colio_coll_t *c, void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    return MPI_Ibcast(buf, n, t, root, comm, req_of(c));
}

static int mpi_allgatherv(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                          const int *displs, MPI_Comm comm)
{
    if (counts == NULL)
        return MPI_Iallgather(in, n, t, out, n, t, comm, req_of(c));
    return MPI_Iallgatherv(in, n, t, out, counts, displs, t, comm, req_of(c));
}

static int mpi_alltoall(colio_coll_t *c, const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm)
{
    return MPI_Ialltoall(in, n, t, out, n, t, comm, req_of(c));
}

static int mpi_test(colio_coll_t *c, int *done_p) { return MPI_Test(req_of(c), done_p, MPI_STATUS_IGNORE); }

static int mpi_wait(colio_coll_t *c) { return MPI_Wait(req_of(c), MPI_STATUS_IGNORE); }

const colio_coll_ops_t colio_coll_mpi = {
    .name = "mpi",
    .init = mpi_init,
    .pending = mpi_pending,
    .allreduce = mpi_allreduce,
    .bcast = mpi_bcast,
    .allgatherv = mpi_allgatherv,
    .alltoall = mpi_alltoall,
    .test = mpi_test,
    .wait = mpi_wait,
};
