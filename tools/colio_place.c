/*
 * colio-place: compare aggregator placements without running MPI at scale.
 * For a synthetic access pattern (colio-bench's workload generators), a
 * process count and a network model (colio_topology), it computes, for
 * every placement strategy and file-domain layout, what colio's engine
 * would choose and the placement's metrics: hop-bytes of the shuffle
 * (TATP, Liu et al.), the busiest link, the cost model's prediction
 * (TAPIOCA, Tessier et al.) and the bytes per aggregator. One process
 * plays every rank; MPI is initialised only for its datatype functions.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "access/flatten.h"
#include "place/place.h"
#include "topo/net.h"

typedef struct opts {
    int procs, ranks_per_node, aggregators, per_node, json;
    const char *pattern, *topology, *placements, *domains, *decomp, *header;
    uint64_t scatter_seed, seed;
    bench_size_t size;
    int64_t cb_buffer_size, striping_unit, block_size;
} opts_t;

typedef struct job {
    const opts_t *o;
    colio_topo_t topo;
    colio_runs_t *runs; /* per rank, file order */
    int64_t lo, hi, bytes;
    char desc[256];
} job_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: colio-place --procs N --pattern NAME [options]\n"
            "Every placement x file-domain layout for an access pattern, with its metrics, without MPI.\n"
            "  --procs N               ranks of the job\n"
            "  --pattern NAME          cube, btio, e3sm, random, interleaved (any colio-bench workload)\n"
            "  --size S                small, medium (default) or large, as colio-bench\n"
            "  --seed N                workload seed (random, e3sm)\n"
            "  --decomp F --header F   e3sm: replay a real decomposition map (as colio-bench)\n"
            "  --ranks-per-node N      consecutive ranks per node (default 1)\n"
            "  --topology SPEC         network model, as the colio_topology hint (default flat)\n"
            "  --alloc compact|scattered[:SEED]  the job's nodes on the machine (default compact)\n"
            "  --aggregators K         aggregators = file domains (default: per node x nodes, as cb_nodes unset)\n"
            "  --aggregators-per-node N  as colio_aggregators_per_node (default 1)\n"
            "  --placement LIST        comma-separated strategies (default: all)\n"
            "  --domain LIST           comma-separated layouts (default: all)\n"
            "  --cb-buffer-size B, --striping-unit B, --block-size B   as the hints (bytes)\n"
            "  --json                  a JSON array, one object per combination\n");
}

static int parse_opts(int argc, char **argv, opts_t *o)
{
    static const struct option longopts[] = {
        {"procs", 1, 0, 'p'}, {"pattern", 1, 0, 'w'}, {"size", 1, 0, 's'}, {"seed", 1, 0, 'S'},
        {"decomp", 1, 0, 'd'}, {"header", 1, 0, 'H'}, {"ranks-per-node", 1, 0, 'r'}, {"topology", 1, 0, 't'},
        {"alloc", 1, 0, 'a'}, {"aggregators", 1, 0, 'A'}, {"aggregators-per-node", 1, 0, 'n'},
        {"placement", 1, 0, 'P'}, {"domain", 1, 0, 'D'}, {"cb-buffer-size", 1, 0, 'c'},
        {"striping-unit", 1, 0, 'u'}, {"block-size", 1, 0, 'b'}, {"json", 0, 0, 'j'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    *o = (opts_t){.ranks_per_node = 1, .per_node = 1, .topology = "flat", .size = BENCH_MEDIUM, .seed = 1,
                  .cb_buffer_size = 16 << 20};
    for (int c; (c = getopt_long(argc, argv, "", longopts, NULL)) != -1;) {
        switch (c) {
        case 'p': o->procs = atoi(optarg); break;
        case 'w': o->pattern = optarg; break;
        case 's': o->size = strcmp(optarg, "small") == 0 ? BENCH_SMALL : strcmp(optarg, "large") == 0 ? BENCH_LARGE : BENCH_MEDIUM; break;
        case 'S': o->seed = strtoull(optarg, NULL, 10); break;
        case 'd': o->decomp = optarg; break;
        case 'H': o->header = optarg; break;
        case 'r': o->ranks_per_node = atoi(optarg); break;
        case 't': o->topology = optarg; break;
        case 'a': o->scatter_seed = strncmp(optarg, "scattered", 9) == 0 ? (optarg[9] == ':' ? strtoull(optarg + 10, NULL, 10) : 1) : 0; break;
        case 'A': o->aggregators = atoi(optarg); break;
        case 'n': o->per_node = atoi(optarg); break;
        case 'P': o->placements = optarg; break;
        case 'D': o->domains = optarg; break;
        case 'c': o->cb_buffer_size = atoll(optarg); break;
        case 'u': o->striping_unit = atoll(optarg); break;
        case 'b': o->block_size = atoll(optarg); break;
        case 'j': o->json = 1; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (o->procs < 1 || !o->pattern || o->ranks_per_node < 1 || o->per_node < 1 || o->cb_buffer_size < 1 ||
        o->aggregators < 0 || o->aggregators > o->procs) {
        usage(stderr);
        return -1;
    }
    return 0;
}

/* One rank's access as strided runs in file order. */
static int rank_runs(const opts_t *o, const bench_workload_t *w, int rank, colio_runs_t *out, char *desc)
{
    bench_params_t p = {.size = o->size, .seed = o->seed, .decomp = o->decomp, .header = o->header, .comm = MPI_COMM_SELF};
    bench_access_t a;
    char err[256] = "";
    if (w->generate(&p, rank, o->procs, &a, err, sizeof err) != 0) {
        fprintf(stderr, "colio-place: %s rank %d: %s\n", w->name, rank, err);
        return -1;
    }
    snprintf(desc, 256, "%s", a.desc);
    int rc = 0;
    if (a.filetype != MPI_DATATYPE_NULL && a.n == 0) { /* a view: disp + instances of the filetype */
        colio_flat_t *f = NULL;
        colio_err_t e = {0};
        rc = colio_flat_create(a.filetype, &f, &e);
        for (int64_t k = 0; rc == 0 && f->size > 0 && k * f->size < a.bytes; k++)
            for (int64_t i = 0; rc == 0 && i < f->runs.n; i++) {
                colio_run_t r = f->runs.r[i];
                r.off += a.disp + k * f->extent;
                r.pos += k * f->size;
                rc = colio_runs_append(out, r);
            }
        colio_flat_free(f);
    }
    for (int64_t i = 0; rc == 0 && i < a.n; i++)
        rc = colio_runs_append(out, colio_piece(a.off[i], a.len[i], 0));
    bench_access_free(&a);
    return rc;
}

static int job_build(const opts_t *o, job_t *j)
{
    const bench_workload_t *w = bench_workload_find(o->pattern);
    if (w == NULL || (w->ranks && w->ranks(o->procs) != o->procs)) {
        fprintf(stderr, "colio-place: unknown pattern %s, or it cannot run on %d ranks\n", o->pattern, o->procs);
        return -1;
    }
    memset(j, 0, sizeof *j);
    j->o = o;
    j->runs = calloc((size_t)o->procs, sizeof *j->runs);
    j->lo = INT64_MAX, j->hi = 0;
    for (int r = 0; r < o->procs; r++) {
        if (rank_runs(o, w, r, &j->runs[r], j->desc) != 0)
            return -1;
        for (int64_t i = 0; i < j->runs[r].n; i++) {
            const colio_run_t *x = &j->runs[r].r[i];
            j->lo = x->off < j->lo ? x->off : j->lo;
            j->hi = colio_run_end(x) > j->hi ? colio_run_end(x) : j->hi;
            j->bytes += colio_run_bytes(x);
        }
    }
    int nodes = (o->procs + o->ranks_per_node - 1) / o->ranks_per_node;
    int *node_of = malloc(sizeof(int) * (size_t)o->procs);
    for (int r = 0; r < o->procs; r++)
        node_of[r] = r / o->ranks_per_node;
    colio_topo_from_nodes(o->procs, node_of, &j->topo);
    free(node_of);
    colio_err_t e = {0};
    colio_net_opts_t no = {.nnodes = nodes, .scatter_seed = o->scatter_seed};
    if (colio_net_create(o->topology, &no, &j->topo.net, &e) != 0) {
        fprintf(stderr, "colio-place: %s\n", e.msg);
        return -1;
    }
    return j->lo < j->hi ? 0 : (fprintf(stderr, "colio-place: the pattern accesses nothing\n"), -1);
}

/* Bytes of [off, end) per file domain, added to row. */
static void add_extent(const colio_domains_t *d, int64_t off, int64_t end, int64_t *row)
{
    while (off < end) {
        int a;
        int64_t round, run_end;
        d->ops->locate(d, off, &a, &round, &run_end);
        int64_t stop = run_end < end ? run_end : end;
        row[a] += stop - off;
        off = stop;
    }
}

/* TATP's C for one layout: every rank's bytes per file domain. */
static int pattern_build(const job_t *j, const colio_domains_t *d, colio_pattern_t *pat)
{
    int np = j->o->procs, nd = d->naggs;
    int64_t *row = calloc((size_t)nd, sizeof(int64_t)), cap = 1024, k = 0;
    memset(pat, 0, sizeof *pat);
    pat->nprocs = np, pat->ndom = nd;
    pat->row_start = malloc(sizeof(int64_t) * ((size_t)np + 1));
    pat->dom = malloc(sizeof(int) * (size_t)cap);
    pat->bytes = malloc(sizeof(int64_t) * (size_t)cap);
    for (int r = 0; r < np; r++) {
        pat->row_start[r] = k;
        for (int64_t i = 0; i < j->runs[r].n; i++) {
            const colio_run_t *x = &j->runs[r].r[i];
            for (int64_t c = 0; c < x->count; c++)
                add_extent(d, x->off + c * x->stride, x->off + c * x->stride + x->len, row);
        }
        for (int a = 0; a < nd; a++) {
            if (row[a] == 0)
                continue;
            if (k == cap) {
                cap *= 2;
                pat->dom = realloc(pat->dom, sizeof(int) * (size_t)cap);
                pat->bytes = realloc(pat->bytes, sizeof(int64_t) * (size_t)cap);
            }
            pat->dom[k] = a, pat->bytes[k++] = row[a], row[a] = 0;
        }
    }
    pat->row_start[np] = k;
    free(row);
    return colio_pattern_index(pat);
}

static int in_list(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

static void print_row(const opts_t *o, int first, const char *place, const char *dom, const colio_place_metrics_t *m,
                      const int *aggs, int naggs, double secs)
{
    if (o->json) {
        printf("%s\n  {\"placement\": \"%s\", \"domain\": \"%s\", \"hop_bytes\": %lld, \"max_link_bytes\": %lld, "
               "\"predicted_cost\": %.9g, \"agg_bytes_max\": %lld, \"agg_bytes_min\": %lld, \"seconds\": %.6f, "
               "\"aggregators\": [",
               first ? "" : ",", place, dom, (long long)m->hop_bytes, (long long)m->max_link_bytes, m->predicted_cost,
               (long long)m->max_agg_bytes, (long long)m->min_agg_bytes, secs);
        for (int i = 0; i < naggs; i++)
            printf("%s%d", i ? ", " : "", aggs[i]);
        printf("]}");
        return;
    }
    printf("%-9s %-7s %16lld %15lld %13.6f %13lld %13lld %9.3f  ", place, dom, (long long)m->hop_bytes,
           (long long)m->max_link_bytes, m->predicted_cost, (long long)m->max_agg_bytes, (long long)m->min_agg_bytes,
           secs);
    for (int i = 0; i < naggs && i < 8; i++)
        printf("%s%d", i ? "," : "", aggs[i]);
    printf("%s\n", naggs > 8 ? ",..." : "");
}

/* Every selected placement on one layout. */
static int run_layout(const job_t *j, const colio_domain_ops_t *dops, int naggs, int *first)
{
    const opts_t *o = j->o;
    colio_domain_input_t in = {.naggs = naggs, .lo = j->lo, .hi = j->hi, .round_size = o->cb_buffer_size,
                               .striping_unit = o->striping_unit, .block_size = o->block_size};
    colio_domains_t d = {.ops = dops, .naggs = naggs, .lo = j->lo, .hi = j->hi, .round_size = o->cb_buffer_size};
    colio_pattern_t pat;
    if (dops->plan(&in, &d) != 0 || pattern_build(j, &d, &pat) != 0)
        return -1;
    int *aggs = malloc(sizeof(int) * (size_t)naggs), rc = 0;
    for (int i = 0; rc == 0 && colio_place_name(i); i++) {
        const colio_place_ops_t *p = colio_place_find(colio_place_name(i));
        if (!in_list(o->placements, p->name))
            continue;
        colio_place_input_t pin = {.topo = &j->topo, .naggs = naggs, .per_node = o->per_node, .pat = &pat};
        colio_place_metrics_t m;
        double t0 = MPI_Wtime();
        rc = p->select(&pin, aggs);
        double secs = MPI_Wtime() - t0;
        if (rc == 0)
            rc = colio_place_measure(&pin, aggs, &m);
        if (rc == 0)
            print_row(o, *first, p->name, dops->name, &m, aggs, naggs, secs);
        *first = 0;
    }
    free(aggs);
    colio_pattern_free(&pat);
    colio_domains_free(&d);
    return rc;
}

int main(int argc, char **argv)
{
    opts_t o;
    if (parse_opts(argc, argv, &o) != 0)
        return 2;
    MPI_Init(NULL, NULL);
    job_t j;
    if (job_build(&o, &j) != 0) {
        MPI_Finalize();
        return 2;
    }
    int naggs = o.aggregators ? o.aggregators : colio_place_count(&j.topo, 0, o.per_node);
    if (!o.json) {
        printf("# %s on %d ranks (%s), %d nodes of %d, %lld bytes in [%lld, %lld), %d aggregators\n# %s\n",
               o.pattern, o.procs, j.desc, j.topo.nnodes, o.ranks_per_node, (long long)j.bytes, (long long)j.lo,
               (long long)j.hi, naggs, colio_net_describe(j.topo.net));
        printf("%-9s %-7s %16s %15s %13s %13s %13s %9s  %s\n", "placement", "domain", "hop_bytes", "max_link_bytes",
               "predicted_s", "agg_max_B", "agg_min_B", "solve_s", "aggregators");
    } else {
        printf("[");
    }
    int first = 1, rc = 0;
    for (int i = 0; rc == 0 && colio_domain_name(i); i++)
        if (in_list(o.domains, colio_domain_name(i)))
            rc = run_layout(&j, colio_domain_find(colio_domain_name(i)), naggs, &first);
    if (o.json)
        printf("\n]\n");
    for (int r = 0; r < o.procs; r++)
        colio_runs_free(&j.runs[r]);
    free(j.runs);
    colio_topo_free(&j.topo);
    MPI_Finalize();
    return rc == 0 ? 0 : 1;
}
