/* The benchmark's engines: the only list of them. */
#include <string.h>

#include "../bench.h"

extern const bench_engine_t bench_engine_colio, bench_engine_mpiio, bench_engine_posix, bench_engine_ceiling;

static const bench_engine_t *const engines[] = {&bench_engine_colio, &bench_engine_mpiio, &bench_engine_posix,
                                                &bench_engine_ceiling};

const bench_engine_t *bench_engine_find(const char *name)
{
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
        if (strcmp(engines[i]->name, name) == 0)
            return engines[i];
    return NULL;
}
