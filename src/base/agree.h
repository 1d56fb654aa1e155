/* Blocking agreements among the ranks of a communicator, polled (used by base/error.c and api/file.c). */
#ifndef COLIO_BASE_AGREE_H
#define COLIO_BASE_AGREE_H

#include <mpi.h>

/*
 * A blocking MPI_Allreduce that does not hold the core while it waits:
 * MPICH busy-polls inside its blocking collectives, so with more ranks than
 * cores one rank spinning keeps the rank it waits for off the core (one
 * agreement cost tens of milliseconds at 4 ranks on 2 cores). This polls a
 * while, then yields between polls; with a core per rank it is the same.
 * Used for the blocking agreements of open, close and the other calls that
 * change the file (base/error.c, api/file.c).
 */
int colio_allreduce_yielding(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm);

#endif
