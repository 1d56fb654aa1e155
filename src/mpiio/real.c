/* Looking up the MPI library's own MPI-IO functions (see real.h). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "mpiio/real.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

static void resolve(void)
{
#define COLIO_REAL_FIND_(name, params) real.name = (int(*) params)find("PMPI_" #name);
    COLIO_WRAPPED_FUNCS(COLIO_REAL_FIND_)
#undef COLIO_REAL_FIND_
}

const colio_real_t *colio_real(void)
{
    pthread_once(&once, resolve);
    return &real;
}
