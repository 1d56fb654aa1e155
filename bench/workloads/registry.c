/* The benchmark's workloads: the only list of them. */
#include <string.h>

#include "../bench.h"

extern const bench_workload_t bench_workload_interleaved, bench_workload_random, bench_workload_cube,
    bench_workload_collperf, bench_workload_flash, bench_workload_btio, bench_workload_hacc, bench_workload_e3sm,
    bench_workload_ior, bench_workload_lattice;

static const bench_workload_t *const workloads[] = {
    &bench_workload_interleaved, &bench_workload_random, &bench_workload_cube, &bench_workload_collperf,
    &bench_workload_flash,       &bench_workload_btio,   &bench_workload_hacc, &bench_workload_e3sm,
    &bench_workload_ior,         &bench_workload_lattice,
};

const bench_workload_t *bench_workload_find(const char *name)
{
    for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++)
        if (strcmp(workloads[i]->name, name) == 0)
            return workloads[i];
    return NULL;
}

const bench_workload_t *bench_workload_at(int i)
{
    return i >= 0 && i < (int)(sizeof workloads / sizeof *workloads) ? workloads[i] : NULL;
}
