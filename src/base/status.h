/*
 * The statuses the public calls fill. A NULL status is MPI_STATUS_IGNORE
 * (and a NULL array MPI_STATUSES_IGNORE): Open MPI defines the ignore
 * values as NULL and MPICH does not, so a program that passes NULL works
 * the same under both (include/colio.h).
 */
#ifndef COLIO_BASE_STATUS_H
#define COLIO_BASE_STATUS_H

#include <mpi.h>

static inline int colio_status_wanted(const MPI_Status *st) { return st != NULL && st != MPI_STATUS_IGNORE; }
static inline int colio_statuses_wanted(const MPI_Status *st) { return st != NULL && st != MPI_STATUSES_IGNORE; }

#endif
