/*
 * Checks shared by the self-checking client programs written for colio's
 * drop-in tests (one translation unit each): CHECK counts a failure with the
 * case and line, MPI_OK ends the run at an MPI error (the collective calls
 * after it could not match up), client_result combines the ranks' failures,
 * client_through_colio tells whether the interposer is there.
 */
#ifndef COLIO_CLIENT_CHECK_H
#define COLIO_CLIENT_CHECK_H

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int client_rank, client_failures;
static const char *client_case = "setup";

#define CHECK(cond, ...)                                                                                      \
    do {                                                                                                      \
        if (!(cond)) {                                                                                        \
            fprintf(stderr, "[rank %d] case %s, line %d: ", client_rank, client_case, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                                                     \
            fputc('\n', stderr);                                                                              \
            client_failures++;                                                                                \
        }                                                                                                     \
    } while (0)

static inline void client_mpi_ok(int rc, const char *call, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "[rank %d] case %s, line %d: %s failed: %s\n", client_rank, client_case, line, call, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
}
#define MPI_OK(call) client_mpi_ok((call), #call, __LINE__)

/* Whether libcolio_mpiio takes this process's MPI-IO calls (preloaded or linked, COLIO_DISABLE unset). */
static inline int client_through_colio(void)
{
    const char *off = getenv("COLIO_DISABLE");
    return dlsym(RTLD_DEFAULT, "colio_mpiio_interposer") != NULL && !(off && *off && strcmp(off, "0") != 0);
}

/* Every rank's failures added up; rank 0 prints the verdict. Returns the exit code. */
static inline int client_result(const char *name)
{
    int all = 0, n = 0;
    MPI_Allreduce(&client_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (client_rank == 0)
        printf("%s on %d ranks: %s\n", name, n, all ? "FAIL" : "PASS");
    return all ? 1 : 0;
}

#endif
