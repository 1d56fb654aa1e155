/* Hints for the engines, memory measurement, a prefix sum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* Keys an MPI-IO implementation understands (the colio_* ones are colio's own). */
static int standard_key(const char *k) { return strncmp(k, "colio_", 6) != 0; }

MPI_Info bench_info(const char *hints, int standard_only)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (hints == NULL)
        return info;
    char *copy = strdup(hints), *save = NULL;
    for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        if (!standard_only || standard_key(kv))
            MPI_Info_set(info, kv, eq + 1);
    }
    free(copy);
    return info;
}

/* The value of key in "k=v;..." hints, or "" (into out). */
static void hint_value(const char *hints, const char *key, char *out, int len)
{
    MPI_Info info = bench_info(hints, 0);
    int found = 0;
    out[0] = '\0';
    MPI_Info_get(info, key, len - 1, out, &found);
    if (!found)
        out[0] = '\0';
    MPI_Info_free(&info);
}

int bench_stores_nothing(const char *hints)
{
    char mine[64], env[64]; /* COLIO_HINTS wins over the program's hints, in colio as here */
    hint_value(hints, "colio_backend", mine, sizeof mine);
    hint_value(getenv("COLIO_HINTS"), "colio_backend", env, sizeof env);
    return strcmp(env[0] ? env : mine, "null") == 0;
}

int bench_subfiles(const char *hints)
{
    char mine[64], env[64];
    hint_value(hints, "colio_subfiles", mine, sizeof mine);
    hint_value(getenv("COLIO_HINTS"), "colio_subfiles", env, sizeof env);
    const char *v = env[0] ? env : mine;
    return v[0] && strcmp(v, "none") != 0 && strcmp(v, "disable") != 0;
}

static int64_t status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long v = -1;
    size_t klen = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0) {
            sscanf(line + klen, " %lld", &v);
            break;
        }
    if (f)
        fclose(f);
    return v < 0 ? -1 : v * 1024;
}

/* Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0). */
void bench_rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

int64_t bench_rss_now(void) { return status_kib("VmRSS:"); }
int64_t bench_rss_peak(void) { return status_kib("VmHWM:"); }

/* Hillis-Steele scan: after the step of distance d, incl covers the 2d ranks ending at this one. */
int64_t bench_exscan_sum(int64_t v, MPI_Comm comm)
{
    int rank, nprocs;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    int64_t incl = v;
    for (int d = 1; d < nprocs; d <<= 1) {
        int to = rank + d < nprocs ? rank + d : MPI_PROC_NULL, from = rank >= d ? rank - d : MPI_PROC_NULL;
        int64_t got = 0;
        MPI_Sendrecv(&incl, 1, MPI_INT64_T, to, 0, &got, 1, MPI_INT64_T, from, 0, comm, MPI_STATUS_IGNORE);
        incl += got;
    }
    return incl - v;
}
