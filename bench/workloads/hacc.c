/*
 * hacc: HACC-IO (Tessier et al. Sec. 5.3): 9 variables per particle, 38
 * bytes (7 floats, an int64 id, a 16-bit mask). Array of structures: each
 * rank's particles are one contiguous run; structure of arrays: one run per
 * variable, the ranks' runs side by side within each variable.
 */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

static const int var_size[9] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int64_t n = p->particles > 0 ? p->particles : pick(p->size, 5000, 50000, 100000); /* the same on every rank */
    int64_t before = n * rank, total = n * nprocs;
    if (bench_access_alloc(a, 9) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    if (p->aos) {
        bench_access_push(a, before * 38, n * 38);
    } else {
        int64_t var_off = 0;
        for (int v = 0; v < 9; v++) {
            bench_access_push(a, var_off + before * var_size[v], n * var_size[v]);
            var_off += total * var_size[v];
        }
    }
    snprintf(a->desc, sizeof a->desc, "%lld particles per rank, 38 B each, %s", (long long)n, p->aos ? "AoS" : "SoA");
    return 0;
}

const bench_workload_t bench_workload_hacc = {
    .name = "hacc",
    .help = "HACC-IO: 9 variables, 38 B per particle, 5k/50k/100k particles per rank (--particles, --layout aos|soa)",
    .generate = generate,
};
