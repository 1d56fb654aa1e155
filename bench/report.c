/* colio-bench output: an IOR-like table on stdout and a JSON document for scripts and plots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

#define MIB (1024.0 * 1024.0)

static const bench_run_t *find(const bench_run_t *runs, int n, const bench_run_t *like, const char *engine)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(runs[i].workload, like->workload) && !strcmp(runs[i].size, like->size) &&
            !strcmp(runs[i].op, like->op) && !strcmp(runs[i].engine, engine) && runs[i].verified && runs[i].repeats)
            return &runs[i];
    return NULL;
}

static double bandwidth(const bench_run_t *r) { return r->median > 0 ? r->bytes / MIB / r->median : 0; }

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Interleaved runs: the median over repeats of MPI-IO's time over r's in the same repeat. */
static double paired_ratio(const bench_run_t *m, const bench_run_t *r)
{
    int n = r->repeats < m->repeats ? r->repeats : m->repeats, k = 0;
    double *v = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; v && i < n; i++)
        if (r->times[i] > 0)
            v[k++] = m->times[i] / r->times[i];
    double x = 0;
    if (k > 0) {
        qsort(v, (size_t)k, sizeof *v, by_double);
        x = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    }
    free(v);
    return x;
}

/* colio (or any engine) against MPI-IO: how many times faster (the ratio of the medians, or with
   --interleave the median of the repeats' ratios); 0 when not measured (or not comparable: nothing stored). */
static double vs_mpiio(const bench_options_t *o, const bench_run_t *runs, int n, const bench_run_t *r)
{
    const bench_run_t *m = find(runs, n, r, "mpiio");
    if (m == NULL || r->median <= 0 || r->unstored || !strcmp(r->engine, "mpiio"))
        return 0;
    return o->interleave && m->times && r->times ? paired_ratio(m, r) : m->median / r->median;
}

static double of_ceiling(const bench_run_t *runs, int n, const bench_run_t *r)
{
    const bench_run_t *c = find(runs, n, r, "ceiling");
    return c && bandwidth(c) > 0 && !r->unstored && strcmp(r->engine, "ceiling") ? bandwidth(r) / bandwidth(c) : 0;
}

static void cell_ratio(char *out, size_t len, double v, const char *fmt)
{
    if (v > 0)
        snprintf(out, len, fmt, v);
    else
        snprintf(out, len, "-");
}

void bench_report(const bench_options_t *o, const bench_run_t *runs, int nruns, int nprocs, const char *library)
{
    printf("colio-bench: %d ranks, %s, files in %s, median of %d runs after %d warm-up%s%s\n", nprocs, library, o->dir,
           o->repeat, o->warmup, o->warmup == 1 ? "" : "s",
           o->interleave ? ", engines interleaved (x_mpiio: median of the repeats' ratios)" : "");
    if (o->sync || o->drop_cache)
        printf("%s%s%s\n", o->sync ? "writes timed to the end of their flush (--sync)" : "",
               o->sync && o->drop_cache ? "; " : "", o->drop_cache ? "page cache dropped before every read (--drop-cache)" : "");
    if (o->hints)
        printf("hints: %s (colio; standard keys also for MPI-IO)\n", o->hints);
    printf("\n%-11s %-6s %-14s %-5s %3s %9s %9s %9s %9s %8s %8s %6s %7s %6s %8s %7s %7s %7s %7s %7s %-8s %s\n", "workload",
           "size", "engine", "op", "np", "MiB", "pieces", "median_s", "MiB/s", "min_s", "max_s", "CoV%", "x_mpiio",
           "%ceil", "rssMiB", "bufMiB", "meta_s", "data_s", "io_s", "comp_s", "bytes", "kernels");
    const char *last = "";
    for (int i = 0; i < nruns; i++) {
        const bench_run_t *r = &runs[i];
        if (strcmp(last, r->workload) != 0 && i > 0)
            printf("\n");
        last = r->workload;
        if (!r->repeats) {
            printf("%-11s %-6s %-14s %-5s FAILED: %s\n", r->workload, r->size, r->engine, r->op, r->error);
            continue;
        }
        char x[16], c[16];
        cell_ratio(x, sizeof x, vs_mpiio(o, runs, nruns, r), "%.2f");
        cell_ratio(c, sizeof c, 100 * of_ceiling(runs, nruns, r), "%.0f");
        int colio = !strncmp(r->engine, "colio", 5), phased = colio || !strcmp(r->engine, "alltoallv");
        printf("%-11s %-6s %-14s %-5s %3d %9.1f %9lld %9.4f %9.1f %8.4f %8.4f %6.1f %7s %6s %8.1f", r->workload, r->size,
               r->engine, r->op, r->nprocs, r->bytes / MIB, (long long)r->pieces, r->median, bandwidth(r), r->min, r->max,
               100 * r->cov, x, c, r->rss_extra / MIB);
        if (phased)
            printf(" %7.1f %7.4f %7.4f %7.4f %7.4f", r->memory / MIB, r->meta, r->data, r->io, r->compute);
        else
            printf(" %7s %7s %7s %7s %7s", "-", "-", "-", "-", "-");
        printf(" %-8s %s\n", r->unstored ? "unstored" : r->verified ? "verified" : "WRONG", colio ? r->kernels : "-");
    }
    printf("\nx_mpiio: times faster than the MPI library's MPI-IO; %%ceil: share of one contiguous call per rank;\n"
           "rssMiB: largest rank's resident-memory growth during the call; bufMiB: colio's (alltoallv's)\n"
           "buffers on its largest rank (its own accounting); phases: slowest rank, colio and alltoallv only\n"
           "(alltoallv: meta = counts and pairs, data = the bytes' MPI_Alltoallv, io = pread/pwrite, comp =\n"
           "cutting and placing); kernels: metadata/data exchange kernels colio ran (colio_exchange=auto picks\n"
           "per call).\n");
    for (int i = 0, w = -1; i < nruns; i++)
        if (i == 0 || strcmp(runs[i].workload, runs[i - 1].workload) || strcmp(runs[i].size, runs[i - 1].size))
            printf("%s%-11s %-6s %s\n", w++ < 0 ? "\nworkloads:\n" : "", runs[i].workload, runs[i].size, runs[i].desc);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

int bench_report_json(const char *path, const bench_options_t *o, const bench_run_t *runs, int nruns, int nprocs,
                      const char *library)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\n  \"tool\": \"colio-bench\",\n  \"date\": \"%s\",\n  \"nprocs\": %d,\n  \"library\": ", date, nprocs);
    json_str(f, library);
    fprintf(f, ",\n  \"dir\": ");
    json_str(f, o->dir);
    fprintf(f, ",\n  \"hints\": ");
    json_str(f, o->hints ? o->hints : "");
    fprintf(f, ",\n  \"repeat\": %d,\n  \"warmup\": %d,\n  \"interleave\": %s,\n  \"steps\": %d,\n  \"api\": \"%s\",\n  \"buffer_offset\": %d,\n"
               "  \"sync\": %s,\n  \"drop_cache\": %s,\n  \"runs\": [\n",
            o->repeat, o->warmup, o->interleave ? "true" : "false", o->steps, o->use_lists ? "list" : "view", o->buffer_offset,
            o->sync ? "true" : "false", o->drop_cache ? "true" : "false");
    for (int i = 0; i < nruns; i++) {
        const bench_run_t *r = &runs[i];
        fprintf(f, "    {\"workload\": \"%s\", \"size\": \"%s\", \"engine\": \"%s\", \"op\": \"%s\", \"desc\": ",
                r->workload, r->size, r->engine, r->op);
        json_str(f, r->desc);
        fprintf(f, ", \"nprocs\": %d, \"bytes\": %lld, \"pieces\": %lld, \"repeats\": %d, \"median_s\": %.9g, \"min_s\": %.9g, "
                   "\"max_s\": %.9g, \"mean_s\": %.9g, \"std_s\": %.9g, \"cov\": %.6g, \"bandwidth_mib_s\": %.6g, "
                   "\"x_mpiio\": %.6g, \"frac_ceiling\": %.6g, \"rss_extra_bytes\": %lld, \"rss_rank_is_aggregator\": %d, "
                   "\"colio_buffer_bytes\": %lld, "
                   "\"phases\": {\"meta_exchange\": %.9g, \"data_exchange\": %.9g, \"io\": %.9g, \"compute\": %.9g}, "
                   "\"exchange_min_s\": %.9g, \"exchange_max_s\": %.9g, \"messages\": %lld, \"kernels\": \"%s\", "
                   "\"placement\": \"%s\", \"hop_bytes\": %lld, \"max_link_bytes\": %lld, "
                   "\"strategy\": \"%s\", \"predicted_two_phase_s\": %.9g, \"predicted_direct_s\": %.9g, "
                   "\"verified\": %s, \"stored\": %s, \"error\": ",
                r->nprocs, (long long)r->bytes, (long long)r->pieces, r->repeats, r->median, r->min, r->max, r->mean, r->std, r->cov,
                bandwidth(r), vs_mpiio(o, runs, nruns, r), of_ceiling(runs, nruns, r), (long long)r->rss_extra,
                r->rss_aggregator, (long long)r->memory, r->meta, r->data, r->io, r->compute, r->exch_min, r->exch_max,
                (long long)r->messages, r->kernels, r->placement, (long long)r->hop_bytes, (long long)r->max_link_bytes,
                r->strategy[0] ? r->strategy : "-", r->predicted_two_phase, r->predicted_direct, r->verified && !r->unstored ? "true" : "false", r->unstored ? "false" : "true");
        json_str(f, r->error);
        fprintf(f, ", \"times_s\": [");
        for (int k = 0; r->times && k < r->repeats; k++)
            fprintf(f, "%s%.9g", k ? ", " : "", r->times[k]);
        fprintf(f, "]}%s\n", i + 1 < nruns ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}
