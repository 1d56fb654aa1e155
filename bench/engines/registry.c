/* The benchmark's engines: the only list of them. */
#include <stdio.h>
#include <string.h>

#include "../bench.h"

extern const bench_engine_t bench_engine_colio, bench_engine_mpiio, bench_engine_posix, bench_engine_ceiling,
    bench_engine_alltoallv, bench_engine_gio;

static const bench_engine_t *const engines[] = {
    &bench_engine_colio, &bench_engine_mpiio, &bench_engine_posix, &bench_engine_ceiling, &bench_engine_alltoallv,
#ifdef COLIO_BENCH_GIO
    &bench_engine_gio, /* where CMake found GIO (scripts/peers.sh) */
#endif
};

/* "colio:SPEC" is the colio engine with extra hints (see bench_engine_hints). */
const bench_engine_t *bench_engine_find(const char *name)
{
    if (strncmp(name, "colio:", 6) == 0)
        return name[6] ? &bench_engine_colio : NULL;
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
        if (strcmp(engines[i]->name, name) == 0)
            return engines[i];
    return NULL;
}

/*
 * The hints a run gets: --hints, then the engine name's own. "colio:K" with
 * K a kernel name runs colio with K for both exchanges; "colio:k=v+k=v" adds
 * those hints, so one run compares kernels or settings side by side.
 */
void bench_engine_hints(const char *engine, const char *hints, char *out, size_t len)
{
    const char *spec = strncmp(engine, "colio:", 6) == 0 ? engine + 6 : "";
    size_t n = (size_t)snprintf(out, len, "%s", hints ? hints : "");
    if (*spec == '\0' || n >= len)
        return;
    if (strchr(spec, '=') == NULL) {
        snprintf(out + n, len - n, "%scolio_exchange=%s;colio_meta_exchange=%s", n ? ";" : "", spec, spec);
        return;
    }
    char *start = out + n;
    snprintf(start, len - n, "%s%s", n ? ";" : "", spec);
    for (char *c = start; *c; c++)
        if (*c == '+')
            *c = ';';
}
