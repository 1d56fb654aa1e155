/* Looking up the MPI library's own MPI-IO functions (see real.h). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "mpiio/real.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static colio_real_t real;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *find(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn == NULL) {
        /* nothing sensible can follow: the program's file calls would go nowhere */
        fprintf(stderr, "libcolio_mpiio: %s not found after this library (%s); is it loaded before the MPI "
                        "library it was built for?\n", name, dlerror());
        abort();
    }
    return fn;
}

/*
 * MPICH 5 ships two ABIs: its own (libmpi.so, int handles) and the MPI-5
 * standard ABI (libmpi_abi.so, built with mpicc_abi: pointer handles). A
 * libcolio_mpiio built for one cannot read the other's handles, so it stops
 * the program at its first file call with a message naming the build to
 * use, rather than misread them (build/mpich5-abi is the standard-ABI build).
 */
static void require_same_abi(void)
{
    Dl_info where = {0};
    void *init = dlsym(RTLD_NEXT, "PMPI_Init"); /* the MPI library after this one: the program's */
    if (init == NULL || !dladdr(init, &where) || where.dli_fname == NULL)
        return; /* cannot tell: the lookups below say what is missing */
    int program_abi = strstr(where.dli_fname, "libmpi_abi") != NULL;
#ifdef MPI_ABI
    int built_abi = 1;
#else
    int built_abi = 0;
#endif
    if (program_abi == built_abi)
        return;
    fprintf(stderr, "libcolio_mpiio: this program calls %s (%s), but this libcolio_mpiio was built for %s; "
                    "use the libcolio_mpiio built with %s\n", where.dli_fname,
            program_abi ? "the MPI standard ABI" : "its MPI library's own ABI",
            built_abi ? "the MPI standard ABI (mpicc_abi)" : "its MPI library's own ABI (libmpi.so)",
            program_abi ? "mpicc_abi (scripts/build.sh mpich5-abi)" : "that MPI library's mpicc");
    abort();
}

static void resolve(void)
{
    require_same_abi();
#define COLIO_REAL_FIND_(name, params) real.name = (int(*) params)find("PMPI_" #name);
    COLIO_WRAPPED_FUNCS(COLIO_REAL_FIND_)
#undef COLIO_REAL_FIND_
}

const colio_real_t *colio_real(void)
{
    pthread_once(&once, resolve);
    return &real;
}
