/*
 * Shared by the generalized requests of src/api (colio_request_get_mpi) and
 * of the MPI-IO interposer (operations completed inside the call): what
 * their query and cancel callbacks report.
 */
#ifndef COLIO_BASE_GREQUEST_H
#define COLIO_BASE_GREQUEST_H

#include <mpi.h>

/* query_fn's status: the byte count of the finished operation's status, its MPI error class. */
static inline int colio_grequest_status(MPI_Status *out, const MPI_Status *done, int mpi_code)
{
    MPI_Count n = 0;
    MPI_Get_elements_x((MPI_Status *)done, MPI_BYTE, &n); /* SMPI's prototype lacks the const */
    MPI_Status_set_elements_x(out, MPI_BYTE, n);
    MPI_Status_set_cancelled(out, 0);
    out->MPI_SOURCE = MPI_UNDEFINED;
    out->MPI_TAG = MPI_UNDEFINED;
    out->MPI_ERROR = mpi_code;
    return mpi_code;
}

/* cancel_fn: collective I/O cannot be cancelled; MPI_Test_cancelled says false. */
static inline int colio_grequest_no_cancel(void *state, int complete)
{
    (void)state, (void)complete;
    return MPI_SUCCESS;
}

#endif
