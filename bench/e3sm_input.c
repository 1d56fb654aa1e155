/*
 * Readers for the E3SM-IO workload's inputs. The NetCDF classic format
 * (CDF-1/2/5) is specified in the NetCDF User Guide, "File Format
 * Specifications": magic, numrecs, dimension list, global attributes,
 * variable list (name, dimension ids, attributes, type, size, begin), all
 * big-endian; CDF-5 widens counts and offsets to 64 bits.
 */
#include "e3sm_input.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CDF reader ------------------------------------------------------------ */

typedef struct cdf {
    const unsigned char *b;
    size_t len, pos;
    int version; /* 1, 2 or 5 */
    int bad;
} cdf_t;

enum { NC_DIMENSION = 10, NC_VARIABLE = 11, NC_ATTRIBUTE = 12 };

static uint64_t be(const cdf_t *c, size_t at, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | c->b[at + (size_t)i];
    return v;
}

static int64_t take(cdf_t *c, int bytes)
{
    if (c->bad || c->pos + (size_t)bytes > c->len) {
        c->bad = 1;
        return 0;
    }
    int64_t v = (int64_t)be(c, c->pos, bytes);
    if (bytes == 4)
        v = (int32_t)v;
    c->pos += (size_t)bytes;
    return v;
}

/* NON_NEG counts: 64 bits in CDF-5, 32 otherwise. */
static int64_t take_count(cdf_t *c) { return take(c, c->version == 5 ? 8 : 4); }

static void take_name(cdf_t *c, char *out, size_t outlen)
{
    int64_t n = take_count(c);
    if (c->bad || n < 0 || c->pos + (size_t)n > c->len) {
        c->bad = 1;
        return;
    }
    size_t k = (size_t)n < outlen - 1 ? (size_t)n : outlen - 1;
    memcpy(out, c->b + c->pos, k);
    out[k] = '\0';
    c->pos += ((size_t)n + 3) & ~(size_t)3;
}

static int type_size(int t)
{
    static const int sizes[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8}; /* NC_BYTE .. NC_UINT64 */
    return t >= 1 && t <= 11 ? sizes[t] : 0;
}

typedef struct cdf_attr {
    char name[128];
    int type;
    int64_t n;
    size_t at; /* values offset */
} cdf_attr_t;

static int64_t attr_int(const cdf_t *c, const cdf_attr_t *a, int64_t i)
{
    int s = type_size(a->type);
    uint64_t v = be(c, a->at + (size_t)(i * s), s);
    return s == 4 ? (int32_t)v : (s == 2 ? (int16_t)v : (int64_t)v);
}

/* Attribute list; keeps the global ones the map needs. */
static int take_attrs(cdf_t *c, cdf_attr_t *keep, int max_keep)
{
    int kept = 0;
    int64_t tag = take(c, 4), n = take_count(c);
    if (tag == 0)
        return 0;
    for (int64_t i = 0; i < n && !c->bad; i++) {
        cdf_attr_t a;
        take_name(c, a.name, sizeof a.name);
        a.type = (int)take(c, 4);
        a.n = take_count(c);
        a.at = c->pos;
        int64_t bytes = a.n * type_size(a.type);
        if (type_size(a.type) == 0 || bytes < 0 || c->pos + (size_t)bytes > c->len) {
            c->bad = 1;
            break;
        }
        c->pos += ((size_t)bytes + 3) & ~(size_t)3;
        if (keep && kept < max_keep)
            keep[kept++] = a;
    }
    return kept;
}

typedef struct cdf_var {
    char name[128];
    int type;
    int64_t n;      /* elements */
    int64_t begin;  /* file offset */
} cdf_var_t;

static int64_t *read_ints(const cdf_t *c, const cdf_var_t *v)
{
    int s = type_size(v->type);
    if ((v->type != 4 && v->type != 10) || v->begin < 0 || (size_t)(v->begin + v->n * s) > c->len)
        return NULL;
    int64_t *out = malloc(sizeof *out * (size_t)(v->n + 1));
    for (int64_t i = 0; out && i < v->n; i++) {
        uint64_t x = be(c, (size_t)v->begin + (size_t)(i * s), s);
        out[i] = s == 4 ? (int32_t)x : (int64_t)x;
    }
    return out;
}

static const cdf_var_t *find_var(const cdf_var_t *vars, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(vars[i].name, name) == 0)
            return &vars[i];
    return NULL;
}

static const cdf_attr_t *find_attr(const cdf_attr_t *a, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a[i].name, name) == 0)
            return &a[i];
    return NULL;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Decomposition k from the global attributes Dk.ndims, Dk.dims and the variables Dk.nreqs, offsets, lengths. */
static int load_decomp(const cdf_t *c, const cdf_attr_t *ga, int nga, const cdf_var_t *vars, int nvars, int k,
                       e3sm_decomp_t *d, char *err, size_t errlen)
{
    char name[64];
    snprintf(name, sizeof name, "D%d.ndims", k);
    const cdf_attr_t *nd = find_attr(ga, nga, name);
    snprintf(name, sizeof name, "D%d.dims", k);
    const cdf_attr_t *dims = find_attr(ga, nga, name);
    if (!nd || !dims || attr_int(c, nd, 0) < 1 || attr_int(c, nd, 0) > E3SM_MAX_DIMS)
        return fail(err, errlen, "decomposition D%d: missing or bad D%d.ndims / D%d.dims", k, k, k);
    d->ndims = (int)attr_int(c, nd, 0);
    for (int i = 0; i < d->ndims; i++)
        d->dims[i] = attr_int(c, dims, i);
    const char *parts[] = {"nreqs", "offsets", "lengths"};
    const cdf_var_t *v[3];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "D%d.%s", k, parts[i]);
        if ((v[i] = find_var(vars, nvars, name)) == NULL)
            return fail(err, errlen, "decomposition D%d: no variable %s", k, name);
    }
    d->nprocs = (int)v[0]->n;
    d->total = v[1]->n;
    d->nreqs = read_ints(c, v[0]);
    d->offsets = read_ints(c, v[1]);
    d->lengths = read_ints(c, v[2]);
    d->first = malloc(sizeof(int64_t) * (size_t)(d->nprocs + 1));
    if (!d->nreqs || !d->offsets || !d->lengths || !d->first || v[2]->n != d->total)
        return fail(err, errlen, "decomposition D%d: unreadable request arrays", k);
    int64_t at = 0;
    for (int p = 0; p < d->nprocs; p++) {
        d->first[p] = at;
        at += d->nreqs[p];
    }
    if (at != d->total)
        return fail(err, errlen, "decomposition D%d: nreqs sum to %lld, not %lld", k, (long long)at, (long long)d->total);
    return 0;
}

static int parse_map(cdf_t *c, e3sm_map_t *map, char *err, size_t errlen)
{
    if (c->len < 8 || memcmp(c->b, "CDF", 3) != 0 || (c->b[3] != 1 && c->b[3] != 2 && c->b[3] != 5))
        return fail(err, errlen, "not a NetCDF classic (CDF-1, 2 or 5) file");
    c->version = c->b[3];
    c->pos = 4;
    take_count(c); /* numrecs */
    int64_t tag = take(c, 4), ndims = take_count(c);
    for (int64_t i = 0; tag == NC_DIMENSION && i < ndims && !c->bad; i++) {
        char nm[256];
        take_name(c, nm, sizeof nm);
        take_count(c);
    }
    cdf_attr_t ga[512];
    int nga = take_attrs(c, ga, 512);
    tag = take(c, 4);
    int64_t nvars = take_count(c);
    if (c->bad || (tag != NC_VARIABLE && nvars != 0) || nvars < 0 || nvars > 100000)
        return fail(err, errlen, "corrupt NetCDF header");
    cdf_var_t *vars = calloc((size_t)nvars + 1, sizeof *vars);
    for (int64_t i = 0; i < nvars && !c->bad; i++) {
        take_name(c, vars[i].name, sizeof vars[i].name);
        int64_t nd = take_count(c);
        vars[i].n = 1;
        for (int64_t k = 0; k < nd; k++)
            take_count(c); /* dimension ids: element counts come from the variable size below */
        take_attrs(c, NULL, 0);
        vars[i].type = (int)take(c, 4);
        int64_t vsize = take_count(c);
        vars[i].begin = take(c, c->version == 1 ? 4 : 8);
        vars[i].n = type_size(vars[i].type) ? vsize / type_size(vars[i].type) : 0;
    }
    const cdf_attr_t *nd = find_attr(ga, nga, "num_decomp"); /* optional: else count D1.. */
    int ndecomp = 0;
    for (char nm[64]; snprintf(nm, sizeof nm, "D%d.nreqs", ndecomp + 1), find_var(vars, (int)nvars, nm);)
        ndecomp++;
    (void)nd;
    int rc = c->bad ? fail(err, errlen, "truncated NetCDF header") : 0;
    if (rc == 0 && ndecomp == 0)
        rc = fail(err, errlen, "no decomposition (D1.nreqs ...) in the file");
    map->ndecomp = ndecomp;
    map->d = calloc((size_t)ndecomp + 1, sizeof *map->d);
    for (int k = 0; rc == 0 && k < ndecomp; k++)
        rc = load_decomp(c, ga, nga, vars, (int)nvars, k + 1, &map->d[k], err, errlen);
    free(vars);
    return rc;
}

int e3sm_map_read(const char *path, e3sm_map_t *map, char *err, size_t errlen)
{
    memset(map, 0, sizeof *map);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fail(err, errlen, "%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    size_t got = b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    cdf_t c = {.b = b, .len = got};
    int rc = got == (size_t)len ? parse_map(&c, map, err, errlen) : fail(err, errlen, "%s: read failed", path);
    free(b);
    if (rc != 0) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
        e3sm_map_free(map);
    }
    return rc;
}

void e3sm_map_free(e3sm_map_t *map)
{
    for (int k = 0; map->d && k < map->ndecomp; k++) {
        free(map->d[k].nreqs);
        free(map->d[k].first);
        free(map->d[k].offsets);
        free(map->d[k].lengths);
    }
    free(map->d);
    memset(map, 0, sizeof *map);
}

/* ---- CDL header (ncdump -h) ------------------------------------------------- */

static const struct {
    const char *name;
    int size;
} cdl_types[] = {{"double", 8}, {"float", 4}, {"int", 4}, {"uint", 4}, {"short", 2}, {"ushort", 2},
                 {"char", 1},   {"byte", 1},  {"ubyte", 1}, {"int64", 8}, {"uint64", 8}};

static int cdl_type_size(const char *word)
{
    for (size_t i = 0; i < sizeof cdl_types / sizeof *cdl_types; i++)
        if (strcmp(word, cdl_types[i].name) == 0)
            return cdl_types[i].size;
    return 0;
}

static int find_dim(const cdl_header_t *h, const char *name)
{
    for (int i = 0; i < h->ndims; i++)
        if (strcmp(h->dims[i].name, name) == 0)
            return i;
    return -1;
}

/* "\tname = 866 ;" or "\ttime = UNLIMITED ; // (25 currently)" */
static int parse_dim_line(cdl_header_t *h, const char *line)
{
    char name[128], value[64];
    if (sscanf(line, " %127[^ =] = %63[^ ;]", name, value) != 2)
        return 0;
    cdl_dim_t *d = &h->dims[h->ndims];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->records = 1;
    if (strcmp(value, "UNLIMITED") == 0) {
        const char *cur = strstr(line, "(");
        long long n = 0;
        if (cur && sscanf(cur, "(%lld currently)", &n) == 1 && n > 0)
            d->records = n;
        d->size = 0;
        h->record_dim = h->ndims;
    } else {
        d->size = atoll(value);
    }
    h->ndims++;
    return 1;
}

/* "\tdouble lat(ncol) ;" or "\tdouble P0 ;" (attributes start with name:) */
static int parse_var_line(cdl_header_t *h, const char *line, char *err, size_t errlen)
{
    char type[32], rest[1024];
    if (sscanf(line, " %31s %1023[^\n]", type, rest) != 2 || cdl_type_size(type) == 0 || strchr(type, ':'))
        return 0;
    cdl_var_t *v = &h->vars[h->nvars];
    memset(v, 0, sizeof *v);
    v->elem_size = cdl_type_size(type);
    char *paren = strchr(rest, '(');
    size_t nlen = paren ? (size_t)(paren - rest) : strcspn(rest, " ;");
    snprintf(v->name, sizeof v->name, "%.*s", (int)nlen, rest);
    for (char *tok = paren ? strtok(paren + 1, ", )") : NULL; tok && *tok != ';'; tok = strtok(NULL, ", )")) {
        int d = find_dim(h, tok);
        if (d < 0 || v->ndims == E3SM_MAX_DIMS)
            return fail(err, errlen, "variable %s: unknown dimension %s", v->name, tok);
        v->dim[v->ndims++] = d;
    }
    h->nvars++;
    return 1;
}

/* "\t\tname:decomp_id = 3 ;" names the decomposition of the variable it follows. */
static void parse_decomp_id(cdl_header_t *h, const char *line)
{
    char name[128];
    int id;
    cdl_var_t *v = &h->vars[h->nvars - 1];
    if (sscanf(line, " %127[^:]:decomp_id = %d", name, &id) == 2 && strcmp(name, v->name) == 0)
        v->decomp_id = id;
}

int cdl_read(const char *path, cdl_header_t *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->record_dim = -1;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return fail(err, errlen, "%s: cannot open", path);
    h->dims = calloc(1024, sizeof *h->dims);
    h->vars = calloc(16384, sizeof *h->vars);
    char line[4096];
    int section = 0, rc = 0; /* 1: dimensions, 2: variables */
    while (rc == 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, "dimensions:", 11) == 0)
            section = 1;
        else if (strncmp(line, "variables:", 10) == 0)
            section = 2;
        else if (strstr(line, "global attributes") || strncmp(line, "data:", 5) == 0 || line[0] == '}')
            section = 0;
        else if (section == 1 && h->ndims < 1024)
            parse_dim_line(h, line);
        else if (section == 2 && h->nvars < 16384 && !strchr(line, ':'))
            rc = parse_var_line(h, line, err, errlen) < 0 ? -1 : 0;
        else if (section == 2 && h->nvars > 0)
            parse_decomp_id(h, line);
    }
    fclose(f);
    if (rc == 0 && h->nvars == 0)
        rc = fail(err, errlen, "%s: no variables found (expected `ncdump -h` output)", path);
    if (rc != 0)
        cdl_free(h);
    return rc;
}

void cdl_free(cdl_header_t *h)
{
    free(h->dims);
    free(h->vars);
    memset(h, 0, sizeof *h);
}
