/*
 * SimGrid SMPI portability layer, force-included in every translation unit
 * of the COLIO_SMPI build (cmake/smpi.cmake) and in no other build. Each
 * entry works around a gap of SMPI 3.32 found by running colio on it; the
 * rest of colio stays written against the MPI standard.
 */
#ifndef COLIO_CORE_SMPI_COMPAT_H
#define COLIO_CORE_SMPI_COMPAT_H

#include <mpi.h>

/*
 * MPI_Test on MPI_REQUEST_NULL with MPI_STATUS_IGNORE returns without setting
 * *flag (with a status it sets it); the standard says flag = true. colio's
 * state machines test requests that have already completed, so the flag was
 * left at whatever the caller's variable held and the operation never moved.
 */
static inline int colio_smpi_test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (req != NULL && *req == MPI_REQUEST_NULL && flag != NULL) {
        MPI_Status ignored;
        return MPI_Test(req, flag, status == MPI_STATUS_IGNORE ? &ignored : status);
    }
    return MPI_Test(req, flag, status);
}
#define MPI_Test colio_smpi_test

#endif
