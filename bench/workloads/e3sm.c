/*
 * e3sm: E3SM-IO (Kang et al. Sec. V-A), the paper's headline workload.
 *
 * With --decomp MAP --header CDL it replays a real E3SM run: every variable
 * of the output header is laid out as in a NetCDF classic file (a header
 * block, fixed-size variables, then the records), and each decomposed
 * variable is written by the processes of the decomposition map that owns
 * its elements. The map's processes are dealt to the benchmark's ranks for
 * strong scaling: map process j goes to rank j mod p, and when there are
 * more ranks than map processes each map process's requests are cut into
 * consecutive parts for ranks j, j + m, j + 2m, ... Variables no
 * decomposition matches are written whole by rank 0, as E3SM does.
 *
 * Header dimensions whose size no decomposition uses (the header may come
 * from a bigger run than the map) are given the decomposition sizes that let
 * the most variables match a decomposition (an exhaustive search over the
 * few unknown dimensions).
 *
 * Without --decomp, a seeded synthetic map with the same character: one
 * decomposition dealing runs of 1-8 elements to random ranks, reused by 16
 * variables of doubles (all-to-many, many short irregular runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"
#include "../e3sm_input.h"
#include "grid.h"

#define HEADER_BYTES 65536

static int64_t align8(int64_t x) { return (x + 7) & ~(int64_t)7; }

typedef struct layout {
    const cdl_header_t *h;
    const e3sm_map_t *m;
    int64_t *size;   /* per header dimension, after resolution */
    int *decomp;     /* per variable: decomposition index or -1 */
} layout_t;

static int shape_matches(const layout_t *L, const cdl_var_t *v, const e3sm_decomp_t *d)
{
    int k = 0;
    for (int i = 0; i < v->ndims; i++) {
        if (v->dim[i] == L->h->record_dim)
            continue;
        if (k >= d->ndims || L->size[v->dim[i]] != d->dims[k])
            return 0;
        k++;
    }
    return k == d->ndims;
}

static int is_record(const layout_t *L, const cdl_var_t *v)
{
    return v->ndims > 0 && v->dim[0] == L->h->record_dim;
}

/*
 * A variable's decomposition: the header's decomp_id attribute when it has
 * one; else fixed-size variables take the first decomposition of their
 * shape, record variables the last (E3SM's F case: D1 for lat/lon/area, D2
 * for the (time, ncol) variables).
 */
static int match_all(layout_t *L)
{
    int matched = 0;
    for (int i = 0; i < L->h->nvars; i++) {
        const cdl_var_t *v = &L->h->vars[i];
        L->decomp[i] = -1;
        if (v->decomp_id >= 1 && v->decomp_id <= L->m->ndecomp) {
            L->decomp[i] = v->decomp_id - 1;
            matched++;
            continue;
        }
        for (int k = 0; k < L->m->ndecomp; k++)
            if (shape_matches(L, v, &L->m->d[k]) && (L->decomp[i] < 0 || is_record(L, v)))
                L->decomp[i] = k;
        matched += L->decomp[i] >= 0;
    }
    return matched;
}

static int value_used(const e3sm_map_t *m, int64_t x)
{
    for (int k = 0; k < m->ndecomp; k++)
        for (int i = 0; i < m->d[k].ndims; i++)
            if (m->d[k].dims[i] == x)
                return 1;
    return 0;
}

/* Try every assignment of decomposition sizes to the unknown dimensions; keep the best. */
static void resolve_dims(layout_t *L)
{
    const cdl_header_t *h = L->h;
    int64_t values[64];
    int nvalues = 0, unknown[8], nunknown = 0;
    for (int k = 0; k < L->m->ndecomp; k++)
        for (int i = 0; i < L->m->d[k].ndims; i++) {
            int seen = 0;
            for (int j = 0; j < nvalues; j++)
                seen |= values[j] == L->m->d[k].dims[i];
            if (!seen && nvalues < 64)
                values[nvalues++] = L->m->d[k].dims[i];
        }
    for (int d = 0; d < h->ndims; d++) {
        L->size[d] = h->dims[d].size;
        if (d != h->record_dim && !value_used(L->m, h->dims[d].size) && nunknown < 8)
            unknown[nunknown++] = d;
    }
    int64_t combos = 1;
    for (int u = 0; u < nunknown && combos < 2000000; u++)
        combos *= nvalues + 1;
    int best = match_all(L);
    int64_t best_code = 0;
    for (int64_t code = 1; code < combos; code++) {
        int64_t c = code;
        for (int u = 0; u < nunknown; u++, c /= nvalues + 1) /* digit 0: keep the header's size */
            L->size[unknown[u]] = c % (nvalues + 1) ? values[c % (nvalues + 1) - 1] : h->dims[unknown[u]].size;
        int score = match_all(L);
        if (score > best)
            best = score, best_code = code;
    }
    int64_t c = best_code;
    for (int u = 0; u < nunknown; u++, c /= nvalues + 1)
        L->size[unknown[u]] = c % (nvalues + 1) ? values[c % (nvalues + 1) - 1] : h->dims[unknown[u]].size;
    match_all(L);
}

static int64_t var_bytes(const layout_t *L, const cdl_var_t *v)
{
    int64_t n = v->elem_size;
    for (int i = 0; i < v->ndims; i++)
        if (v->dim[i] != L->h->record_dim)
            n *= L->size[v->dim[i]];
    return n;
}

/* Requests [*lo, *hi) of map process j that rank takes (none when it takes no part). */
static int part_of(const e3sm_decomp_t *d, int j, int rank, int nprocs, int64_t *lo, int64_t *hi)
{
    int m = d->nprocs;
    if (nprocs <= m) {
        *lo = d->first[j], *hi = d->first[j] + d->nreqs[j];
        return j % nprocs == rank;
    }
    int parts = (nprocs + m - 1) / m, t = (rank - j) / m;
    if (rank < j || (rank - j) % m != 0 || t >= parts)
        return 0;
    int used = (nprocs - j + m - 1) / m; /* ranks j, j+m, ... below nprocs */
    *lo = d->first[j] + d->nreqs[j] * t / used;
    *hi = d->first[j] + d->nreqs[j] * (t + 1) / used;
    return 1;
}

static void add_variable(const layout_t *L, int vi, int64_t base, int rank, int nprocs, bench_access_t *a)
{
    const cdl_var_t *v = &L->h->vars[vi];
    if (L->decomp[vi] < 0) {
        if (rank == 0)
            bench_access_push(a, base, var_bytes(L, v));
        return;
    }
    const e3sm_decomp_t *d = &L->m->d[L->decomp[vi]];
    for (int j = 0; j < d->nprocs; j++) {
        int64_t lo, hi;
        if (part_of(d, j, rank, nprocs, &lo, &hi))
            for (int64_t r = lo; r < hi; r++)
                bench_access_push(a, base + d->offsets[r] * v->elem_size, d->lengths[r] * v->elem_size);
    }
}

static int64_t count_pieces(const layout_t *L, int nrec)
{
    int64_t n = 1;
    for (int i = 0; i < L->h->nvars; i++) {
        int64_t per = L->decomp[i] < 0 ? 1 : L->m->d[L->decomp[i]].total;
        n += per * (is_record(L, &L->h->vars[i]) ? nrec : 1);
    }
    return n;
}

static int replay(const layout_t *L, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int nrec = L->h->record_dim >= 0 ? (int)L->h->dims[L->h->record_dim].records : 0;
    if (bench_access_alloc(a, count_pieces(L, nrec)) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    if (rank == 0)
        bench_access_push(a, 0, HEADER_BYTES);
    int64_t at = HEADER_BYTES, recsize = 0;
    for (int i = 0; i < L->h->nvars; i++) /* fixed-size variables, then one record's worth */
        if (!is_record(L, &L->h->vars[i])) {
            add_variable(L, i, at, rank, nprocs, a);
            at += align8(var_bytes(L, &L->h->vars[i]));
        } else {
            recsize += align8(var_bytes(L, &L->h->vars[i]));
        }
    for (int r = 0; r < nrec; r++) {
        int64_t rat = at + r * recsize;
        for (int i = 0; i < L->h->nvars; i++)
            if (is_record(L, &L->h->vars[i])) {
                add_variable(L, i, rat, rank, nprocs, a);
                rat += align8(var_bytes(L, &L->h->vars[i]));
            }
    }
    return 0;
}

static int real(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    e3sm_map_t m;
    cdl_header_t h;
    if (e3sm_map_read(p->decomp, &m, err, errlen) != 0)
        return -1;
    if (cdl_read(p->header, &h, err, errlen) != 0) {
        e3sm_map_free(&m);
        return -1;
    }
    layout_t L = {.h = &h, .m = &m, .size = calloc((size_t)h.ndims + 1, sizeof(int64_t)),
                  .decomp = calloc((size_t)h.nvars + 1, sizeof(int))};
    resolve_dims(&L);
    int rc = replay(&L, rank, nprocs, a, err, errlen);
    int decomposed = 0;
    for (int i = 0; i < h.nvars; i++)
        decomposed += L.decomp[i] >= 0;
    const char *mapname = strrchr(p->decomp, '/') ? strrchr(p->decomp, '/') + 1 : p->decomp;
    const char *hname = strrchr(p->header, '/') ? strrchr(p->header, '/') + 1 : p->header;
    snprintf(a->desc, sizeof a->desc, "%s (%d decompositions of %d processes) with %s: %d variables (%d decomposed), %lld records",
             mapname, m.ndecomp, m.d[0].nprocs, hname, h.nvars, decomposed,
             (long long)(h.record_dim >= 0 ? h.dims[h.record_dim].records : 0));
    free(L.size);
    free(L.decomp);
    cdl_free(&h);
    e3sm_map_free(&m);
    return rc;
}

/* Synthetic: one decomposition of n elements in runs of 1-8 elements on random ranks, 16 variables. */
static int synthetic(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    const int nvars = 16;
    int64_t total = pick(p->size, 16 << 20, 128 << 20, (int64_t)1 << 30), n = total / (nvars * 8);
    uint64_t x = p->seed * 0x9E3779B97F4A7C15ULL + 12345;
    bench_access_t one; /* this rank's runs of the decomposition */
    if (bench_access_alloc(&one, n / nprocs / 4 + 16) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int64_t e = 0; e < n;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t run = 1 + (int64_t)(x % 8);
        int owner = (int)((x >> 20) % (uint64_t)nprocs);
        if (run > n - e)
            run = n - e;
        if (owner == rank && bench_access_push(&one, e * 8, run * 8) != 0)
            return snprintf(err, errlen, "out of memory"), -1;
        e += run;
    }
    if (bench_access_alloc(a, one.n * nvars + 1) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    if (rank == 0)
        bench_access_push(a, 0, HEADER_BYTES);
    for (int v = 0; v < nvars; v++)
        for (int64_t i = 0; i < one.n; i++)
            bench_access_push(a, HEADER_BYTES + v * n * 8 + one.off[i], one.len[i]);
    bench_access_free(&one);
    snprintf(a->desc, sizeof a->desc, "synthetic: %d variables of %lld doubles, runs of 1-8 elements on random ranks",
             nvars, (long long)n);
    return 0;
}

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    if (p->decomp && p->header)
        return real(p, rank, nprocs, a, err, errlen);
    if (p->decomp || p->header)
        return snprintf(err, errlen, "e3sm needs both --decomp and --header (or neither)"), -1;
    return synthetic(p, rank, nprocs, a, err, errlen);
}

const bench_workload_t bench_workload_e3sm = {
    .name = "e3sm",
    .help = "E3SM-IO: --decomp MAP.nc --header HEADER.txt replays a real run; without them a synthetic all-to-many map "
    "(16/128/1024 MiB)",
    .generate = generate,
};
