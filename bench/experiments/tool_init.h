/*
 * MPI initialisation shared by the measuring tools: the environment
 * variable env set to "multiple" asks for MPI_THREAD_MULTIPLE (as programs
 * that want colio's progress thread do); otherwise MPI_Init.
 */
#ifndef COLIO_TOOL_INIT_H
#define COLIO_TOOL_INIT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static inline void tool_mpi_init(int *argc, char ***argv, const char *env)
{
    const char *threads = getenv(env);
    int provided = 0;
    if (threads && strcmp(threads, "multiple") == 0)
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(argc, argv);
}

#endif
