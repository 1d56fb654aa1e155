/*
 * MPI initialisation shared by the client programs: MPIIO_CLIENT_THREADS=
 * multiple asks for MPI_THREAD_MULTIPLE, under which libcolio_mpiio lets
 * colio's progress thread move nonblocking operations; otherwise MPI_Init,
 * and the interposer completes them inside the call.
 */
#ifndef COLIO_CLIENT_INIT_H
#define COLIO_CLIENT_INIT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static inline void client_init(int *argc, char ***argv)
{
    const char *threads = getenv("MPIIO_CLIENT_THREADS");
    int provided;
    if (threads && strcmp(threads, "multiple") == 0)
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(argc, argv);
}

#endif
