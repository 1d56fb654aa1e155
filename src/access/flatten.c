/*
 * Datatype flattening. A type is decoded one constructor level at a time with
 * MPI_Type_get_envelope / MPI_Type_get_contents; each child is flattened once
 * and then replicated at the displacements its constructor gives. Subarray
 * and darray are enumerated directly from their definition (MPI 4.1, sections
 * 5.1.3 and 5.1.4) as the owned index ranges of every dimension, in storage
 * order. Lower bounds and extents are always taken from MPI.
 */
#include "access/flatten.h"
#include "access/packed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- run list builder ------------------------------------------------------ */

/*
 * The flattened form is a list of strided runs in typemap order; stream
 * positions are the running byte count, so consecutive blocks that abut, or
 * repeat at a fixed stride, fold into one run as they are appended.
 */
typedef struct flat_builder {
    colio_runs_t runs;
    int64_t size; /* bytes so far: the next block's stream position */
    int nomem;
} flat_builder_t;

static void fb_push_run(flat_builder_t *b, int64_t disp, int64_t len, int64_t stride, int64_t count)
{
    if (len <= 0 || count <= 0 || b->nomem)
        return;
    colio_run_t r = {disp, len, count > 1 ? stride : len, count, b->size};
    if (count > 1 && stride <= len) { /* abutting or backwards: not a run, one block each */
        for (int64_t k = 0; k < count; k++)
            fb_push_run(b, disp + k * stride, len, len, 1);
        return;
    }
    if (colio_runs_append(&b->runs, r) != 0)
        b->nomem = 1;
    b->size += len * count;
}

static void fb_push(flat_builder_t *b, int64_t disp, int64_t len) { fb_push_run(b, disp, len, len, 1); }

/* One flattened child: its runs plus its MPI extent. */
typedef struct child {
    flat_builder_t blocks;
    int64_t extent;
} child_t;

/* Append k consecutive instances of c, the first at displacement base. */
static void append_instances(flat_builder_t *b, const child_t *c, int64_t base, int64_t k)
{
    const colio_runs_t *cr = &c->blocks.runs;
    if (cr->n == 1 && cr->r[0].count == 1 && cr->r[0].len == c->extent) { /* dense child: one block */
        fb_push(b, base + cr->r[0].off, k * cr->r[0].len);
        return;
    }
    if (cr->n == 1 && k > 1 && cr->r[0].count * cr->r[0].stride == c->extent) { /* one run that tiles on */
        const colio_run_t *r = &cr->r[0];
        fb_push_run(b, base + r->off, r->len, r->stride, r->count * k);
        return;
    }
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < cr->n; j++) {
            const colio_run_t *r = &cr->r[j];
            fb_push_run(b, base + i * c->extent + r->off, r->len, r->stride, r->count);
        }
}

/* ---- constructor arguments, normalized to the MPI-3 layout in int64 -------- */

typedef struct type_args {
    int combiner;
    int64_t *ints, *addrs;
    MPI_Datatype *types;
    int ni, na, nt;
} type_args_t;

static int is_named(int combiner)
{
    return combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
           combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER;
}

static int type_combiner(MPI_Datatype t, int *comb)
{
#if MPI_VERSION >= 4
    MPI_Count ni, na, nl, nt; /* types from "_c" constructors reject the classic query */
    return MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nt, comb);
#else
    int ni, na, nt;
    return MPI_Type_get_envelope(t, &ni, &na, &nt, comb);
#endif
}

int colio_type_is_predefined(MPI_Datatype t)
{
    int comb;
    return type_combiner(t, &comb) == MPI_SUCCESS && is_named(comb);
}

static void type_args_free(type_args_t *a)
{
    for (int i = 0; i < a->nt; i++)
        if (!colio_type_is_predefined(a->types[i]))
            MPI_Type_free(&a->types[i]);
    free(a->ints);
    free(a->addrs);
    free(a->types);
}

/* On failure a->nt stays 0, so type_args_free frees exactly what was taken. */
static int type_args_alloc(type_args_t *a, int64_t ni, int64_t na, int64_t nt)
{
    a->ni = (int)ni, a->na = (int)na;
    a->ints = malloc(sizeof(int64_t) * (size_t)(ni + 1));
    a->addrs = malloc(sizeof(int64_t) * (size_t)(na + 1));
    a->types = malloc(sizeof(MPI_Datatype) * (size_t)(nt + 1));
    if (!a->ints || !a->addrs || !a->types)
        return -1;
    a->nt = (int)nt;
    return 0;
}

#if MPI_VERSION >= 4
/*
 * Types built with the MPI-4 "_c" constructors return every count and
 * address argument, in constructor order, in the large-count array; only
 * subarray and darray keep some arguments as ints. Rebuild the MPI-3 layout.
 */
static void remap_large(type_args_t *a, const int *I, const MPI_Count *L, int64_t nl)
{
    int64_t n = 0, k = 0;
    switch (a->combiner) {
    case MPI_COMBINER_HVECTOR:
        a->ints[0] = L[0], a->ints[1] = L[1], a->addrs[0] = L[2];
        a->ni = 2, a->na = 1;
        return;
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_STRUCT:
        n = L[0];
        for (k = 0; k <= n; k++)
            a->ints[k] = L[k];
        for (k = 0; k < n; k++)
            a->addrs[k] = L[n + 1 + k];
        a->ni = (int)n + 1, a->na = (int)n;
        return;
    case MPI_COMBINER_HINDEXED_BLOCK:
        a->ints[0] = L[0], a->ints[1] = L[1];
        for (k = 0; k < L[0]; k++)
            a->addrs[k] = L[2 + k];
        a->ni = 2, a->na = (int)L[0];
        return;
    case MPI_COMBINER_RESIZED:
        a->addrs[0] = L[0], a->addrs[1] = L[1];
        a->ni = 0, a->na = 2;
        return;
    case MPI_COMBINER_SUBARRAY: /* ints: ndims, order; large: sizes, subsizes, starts */
        n = I[0];
        a->ints[0] = n;
        for (k = 0; k < 3 * n; k++)
            a->ints[1 + k] = L[k];
        a->ints[1 + 3 * n] = I[1];
        a->ni = (int)(3 * n + 2), a->na = 0;
        return;
    case MPI_COMBINER_DARRAY: /* ints: size, rank, ndims, distribs, dargs, psizes, order; large: gsizes */
        n = I[2];
        a->ints[0] = I[0], a->ints[1] = I[1], a->ints[2] = n;
        for (k = 0; k < n; k++)
            a->ints[3 + k] = L[k];
        for (k = 0; k < 3 * n + 1; k++)
            a->ints[3 + n + k] = I[3 + k];
        a->ni = (int)(4 * n + 4), a->na = 0;
        return;
    default: /* contiguous, vector, indexed, indexed_block: all ints */
        for (k = 0; k < nl; k++)
            a->ints[k] = L[k];
        a->ni = (int)nl, a->na = 0;
        return;
    }
}

static int type_args_get(MPI_Datatype t, type_args_t *a, colio_err_t *err)
{
    MPI_Count ni, na, nl, nt;
    memset(a, 0, sizeof *a);
    if (MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nt, &a->combiner) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_TYPE, "MPI_Type_get_envelope failed");
    if (is_named(a->combiner))
        return 0;
    int *I = malloc(sizeof *I * (size_t)(ni + 1));
    MPI_Aint *A = malloc(sizeof *A * (size_t)(na + 1));
    MPI_Count *L = malloc(sizeof *L * (size_t)(nl + 1));
    int rc = 0;
    /* room for the widest remapped layout: every int and large count */
    if (!I || !A || !L || type_args_alloc(a, ni + nl + 4, na + nl + 2, nt) != 0) {
        rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory decoding a datatype");
    } else if (MPI_Type_get_contents_c(t, ni, na, nl, nt, I, A, L, a->types) != MPI_SUCCESS) {
        a->nt = 0;
        rc = colio_err_set(err, COLIO_ERR_TYPE, "MPI_Type_get_contents failed");
    } else if (nl > 0) {
        remap_large(a, I, L, nl);
    } else {
        for (MPI_Count k = 0; k < ni; k++)
            a->ints[k] = I[k];
        for (MPI_Count k = 0; k < na; k++)
            a->addrs[k] = A[k];
        a->ni = (int)ni, a->na = (int)na;
    }
    free(I);
    free(A);
    free(L);
    return rc;
}
#else
static int type_args_get(MPI_Datatype t, type_args_t *a, colio_err_t *err)
{
    int ni, na, nt;
    memset(a, 0, sizeof *a);
    if (MPI_Type_get_envelope(t, &ni, &na, &nt, &a->combiner) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_TYPE, "MPI_Type_get_envelope failed");
    if (is_named(a->combiner))
        return 0;
    int *I = malloc(sizeof *I * (size_t)(ni + 1));
    MPI_Aint *A = malloc(sizeof *A * (size_t)(na + 1));
    int rc = 0;
    if (!I || !A || type_args_alloc(a, ni, na, nt) != 0) {
        rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory decoding a datatype");
    } else if (MPI_Type_get_contents(t, ni, na, nt, I, A, a->types) != MPI_SUCCESS) {
        a->nt = 0;
        rc = colio_err_set(err, COLIO_ERR_TYPE, "MPI_Type_get_contents failed");
    } else {
        for (int k = 0; k < ni; k++)
            a->ints[k] = I[k];
        for (int k = 0; k < na; k++)
            a->addrs[k] = A[k];
    }
    free(I);
    free(A);
    return rc;
}
#endif

/* ---- predefined types ------------------------------------------------------ */

/*
 * Most predefined types are dense. The pair types (MPI_SHORT_INT, ...) may
 * hold padding; their layout is read back from MPI_Pack of a buffer whose
 * bytes are their own offsets, so it matches the MPI library exactly.
 */
static int flatten_named(MPI_Datatype t, flat_builder_t *b, colio_err_t *err)
{
    MPI_Count size, lb, extent;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &extent);
    if (size == extent && lb == 0) {
        fb_push(b, 0, size);
        return 0;
    }
    if (lb + extent > 255 || lb < 0 || size > 255)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "unsupported predefined datatype layout");
    unsigned char in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (unsigned char)i;
    int pos = 0;
    if (MPI_Pack(in, 1, t, out, (int)sizeof out, &pos, MPI_COMM_SELF) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "cannot probe a predefined datatype");
    for (int i = 0; i < pos; i++)
        fb_push(b, out[i], 1);
    return 0;
}

/* ---- subarray and darray: owned index intervals per dimension --------------- */

typedef struct ivl_list {
    int64_t n;
    int64_t *lo, *hi; /* half-open global index ranges, increasing */
} ivl_list_t;

static int ivl_push(ivl_list_t *l, int64_t lo, int64_t hi)
{
    if (lo >= hi)
        return 0;
    int64_t *a = realloc(l->lo, sizeof *a * (size_t)(l->n + 1));
    if (a)
        l->lo = a;
    int64_t *c = a ? realloc(l->hi, sizeof *c * (size_t)(l->n + 1)) : NULL;
    if (!c)
        return -1;
    l->hi = c;
    l->lo[l->n] = lo;
    l->hi[l->n] = hi;
    l->n++;
    return 0;
}

typedef struct grid {
    int ndims;
    int fortran;           /* MPI_ORDER_FORTRAN: dimension 0 varies fastest */
    const int64_t *sizes;  /* global sizes */
    ivl_list_t *owned;     /* per dimension */
    int64_t *stride;       /* elements between consecutive indices of a dimension */
    const child_t *elem;
} grid_t;

/* Storage-order position k (0 = slowest) to dimension. */
static int grid_dim(const grid_t *g, int k) { return g->fortran ? g->ndims - 1 - k : k; }

static void grid_walk(const grid_t *g, int k, int64_t elem_off, flat_builder_t *b)
{
    int d = grid_dim(g, k);
    const ivl_list_t *l = &g->owned[d];
    for (int64_t i = 0; i < l->n; i++) {
        if (k == g->ndims - 1) { /* fastest dimension: a run of elements */
            append_instances(b, g->elem, (elem_off + l->lo[i]) * g->elem->extent, l->hi[i] - l->lo[i]);
            continue;
        }
        for (int64_t x = l->lo[i]; x < l->hi[i]; x++)
            grid_walk(g, k + 1, elem_off + x * g->stride[d], b);
    }
}

static int grid_flatten(grid_t *g, flat_builder_t *b, colio_err_t *err)
{
    int64_t stride[64];
    if (g->ndims < 1 || g->ndims > 64)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "unsupported number of dimensions %d", g->ndims);
    for (int k = g->ndims - 1; k >= 0; k--) {
        int d = grid_dim(g, k), next = grid_dim(g, k + 1);
        stride[d] = (k == g->ndims - 1) ? 1 : stride[next] * g->sizes[next];
    }
    g->stride = stride;
    for (int d = 0; d < g->ndims; d++)
        if (g->owned[d].n == 0)
            return 0; /* some dimension owns nothing: empty type */
    grid_walk(g, 0, 0, b);
    return 0;
}

static void ivl_free_all(ivl_list_t *l, int n)
{
    for (int d = 0; d < n; d++) {
        free(l[d].lo);
        free(l[d].hi);
    }
}

/* ints: ndims, sizes[n], subsizes[n], starts[n], order */
static int flatten_subarray(const type_args_t *a, const child_t *elem, flat_builder_t *b, colio_err_t *err)
{
    int n = (int)a->ints[0];
    ivl_list_t owned[64] = {{0}};
    if (n < 1 || n > 64)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "subarray with %d dimensions", n);
    int rc = 0;
    for (int d = 0; d < n && rc == 0; d++) {
        int64_t start = a->ints[1 + 2 * n + d], sub = a->ints[1 + n + d];
        if (ivl_push(&owned[d], start, start + sub) != 0)
            rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory flattening a subarray");
    }
    grid_t g = {.ndims = n, .fortran = a->ints[1 + 3 * n] == MPI_ORDER_FORTRAN, .sizes = a->ints + 1,
                .owned = owned, .elem = elem};
    if (rc == 0)
        rc = grid_flatten(&g, b, err);
    ivl_free_all(owned, n);
    return rc;
}

/* Owned global indices of one darray dimension (MPI 4.1, section 5.1.4). */
static int darray_dim(int distrib, int64_t darg, int64_t gsize, int64_t psize, int64_t coord,
                      ivl_list_t *out)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return ivl_push(out, 0, gsize);
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        int64_t lo = coord * blk, hi = lo + blk < gsize ? lo + blk : gsize;
        return ivl_push(out, lo, hi);
    }
    int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg; /* cyclic(blk) */
    for (int64_t lo = coord * blk; lo < gsize; lo += psize * blk)
        if (ivl_push(out, lo, lo + blk < gsize ? lo + blk : gsize) != 0)
            return -1;
    return 0;
}

/* ints: size, rank, ndims, gsizes[n], distribs[n], dargs[n], psizes[n], order */
static int flatten_darray(const type_args_t *a, const child_t *elem, flat_builder_t *b, colio_err_t *err)
{
    int n = (int)a->ints[2];
    if (n < 1 || n > 64)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "darray with %d dimensions", n);
    const int64_t *gsizes = a->ints + 3, *distribs = gsizes + n, *dargs = distribs + n,
                  *psizes = dargs + n;
    int64_t coord[64], r = a->ints[1];
    for (int d = n - 1; d >= 0; d--) { /* the process grid is row-major whatever the order */
        coord[d] = r % psizes[d];
        r /= psizes[d];
    }
    ivl_list_t owned[64] = {{0}};
    int rc = 0;
    for (int d = 0; d < n && rc == 0; d++)
        if (darray_dim((int)distribs[d], dargs[d], gsizes[d], psizes[d], coord[d], &owned[d]) != 0)
            rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory flattening a darray");
    grid_t g = {.ndims = n, .fortran = a->ints[3 + 4 * n] == MPI_ORDER_FORTRAN, .sizes = gsizes,
                .owned = owned, .elem = elem};
    if (rc == 0)
        rc = grid_flatten(&g, b, err);
    ivl_free_all(owned, n);
    return rc;
}

/* ---- recursion --------------------------------------------------------------- */

static int flatten_rec(MPI_Datatype t, child_t *out, colio_err_t *err, int depth);

static int child_of(MPI_Datatype t, child_t *c, colio_err_t *err, int depth)
{
    memset(c, 0, sizeof *c);
    return flatten_rec(t, c, err, depth + 1);
}

static void child_free(child_t *c) { colio_runs_free(&c->blocks.runs); }

/* count blocks of blocklen instances of c, stride bytes apart: one run when c is dense. */
static void append_vector(flat_builder_t *b, const child_t *c, int64_t count, int64_t blocklen, int64_t stride)
{
    const colio_runs_t *cr = &c->blocks.runs;
    int dense = cr->n == 1 && cr->r[0].count == 1 && cr->r[0].len == c->extent;
    int64_t len = blocklen * c->extent;
    if (dense && count > 0 && blocklen > 0 && stride > len) {
        fb_push_run(b, cr->r[0].off, len, stride, count);
        return;
    }
    if (dense && count > 0 && stride == len) {
        fb_push(b, cr->r[0].off, len * count);
        return;
    }
    for (int64_t i = 0; i < count; i++)
        append_instances(b, c, i * stride, blocklen);
}

/* Constructors with a single child type. */
static void flatten_single(const type_args_t *a, const child_t *c, flat_builder_t *b)
{
    const int64_t *I = a->ints, *A = a->addrs;
    int64_t ext = c->extent;
    switch (a->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        append_instances(b, c, 0, 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        append_instances(b, c, 0, I[0]);
        break;
    case MPI_COMBINER_VECTOR:
        append_vector(b, c, I[0], I[1], I[2] * ext);
        break;
    case MPI_COMBINER_HVECTOR:
        append_vector(b, c, I[0], I[1], A[0]);
        break;
    case MPI_COMBINER_INDEXED:
        for (int64_t i = 0; i < I[0]; i++)
            append_instances(b, c, I[1 + I[0] + i] * ext, I[1 + i]);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int64_t i = 0; i < I[0]; i++)
            append_instances(b, c, A[i], I[1 + i]);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int64_t i = 0; i < I[0]; i++)
            append_instances(b, c, I[2 + i] * ext, I[1]);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int64_t i = 0; i < I[0]; i++)
            append_instances(b, c, A[i], I[1]);
        break;
    }
}

static int flatten_struct(const type_args_t *a, flat_builder_t *b, colio_err_t *err, int depth)
{
    for (int64_t i = 0; i < a->ints[0]; i++) {
        child_t c;
        int rc = child_of(a->types[i], &c, err, depth);
        if (rc == 0)
            append_instances(b, &c, a->addrs[i], a->ints[1 + i]);
        child_free(&c);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int flatten_rec(MPI_Datatype t, child_t *out, colio_err_t *err, int depth)
{
    MPI_Count lb, extent;
    if (depth > 64)
        return colio_err_set(err, COLIO_ERR_UNSUPPORTED, "datatype nested more than 64 levels");
    if (MPI_Type_get_extent_x(t, &lb, &extent) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_TYPE, "invalid datatype");
    out->extent = extent;
    type_args_t a;
    int rc = type_args_get(t, &a, err);
    if (rc != 0) {
        type_args_free(&a);
        return rc;
    }
    if (is_named(a.combiner)) {
        rc = flatten_named(t, &out->blocks, err);
    } else if (a.combiner == MPI_COMBINER_STRUCT) {
        rc = flatten_struct(&a, &out->blocks, err, depth);
    } else {
        child_t c;
        rc = child_of(a.types[0], &c, err, depth);
        if (rc == 0 && a.combiner == MPI_COMBINER_SUBARRAY)
            rc = flatten_subarray(&a, &c, &out->blocks, err);
        else if (rc == 0 && a.combiner == MPI_COMBINER_DARRAY)
            rc = flatten_darray(&a, &c, &out->blocks, err);
        else if (rc == 0 && (a.combiner == MPI_COMBINER_DUP || a.combiner == MPI_COMBINER_RESIZED ||
                             a.combiner == MPI_COMBINER_CONTIGUOUS || a.combiner == MPI_COMBINER_VECTOR ||
                             a.combiner == MPI_COMBINER_HVECTOR || a.combiner == MPI_COMBINER_INDEXED ||
                             a.combiner == MPI_COMBINER_HINDEXED ||
                             a.combiner == MPI_COMBINER_INDEXED_BLOCK ||
                             a.combiner == MPI_COMBINER_HINDEXED_BLOCK))
            flatten_single(&a, &c, &out->blocks);
        else if (rc == 0)
            rc = colio_err_set(err, COLIO_ERR_UNSUPPORTED, "unsupported datatype combiner %d", a.combiner);
        child_free(&c);
    }
    type_args_free(&a);
    if (rc == 0 && out->blocks.nomem)
        rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory flattening a datatype");
    return rc;
}

/* ---- public ------------------------------------------------------------------ */

static void flat_classify(colio_flat_t *f)
{
    const colio_runs_t *v = &f->runs;
    f->monotonic = 1;
    f->ordered = 1;
    f->nonneg = 1;
    f->npieces = 0;
    for (int64_t i = 0; i < v->n; i++) {
        const colio_run_t *r = &v->r[i];
        f->npieces += r->count;
        if (r->off < 0)
            f->nonneg = 0;
        if (i > 0 && r->off < colio_run_end(&v->r[i - 1]))
            f->monotonic = 0;
        if (i > 0 && (r->off < v->r[i - 1].off || (v->r[i - 1].count > 1 && r->off < colio_run_end(&v->r[i - 1]))))
            f->ordered = 0; /* a strided run's later pieces start past r */
    }
    /*
     * Data spanning more than the extent: tiles k and k+1 overlap. MPI
     * builds such types itself (Open MPI keeps a resized member's bounds
     * inside a struct); they are fine as long as one access stays in one
     * tile, which colio_access_from_view checks.
     */
    int64_t end = INT64_MIN; /* the largest run end: the last run's, unless pieces overlap (read-only views) */
    for (int64_t i = 0; i < v->n; i++)
        end = colio_run_end(&v->r[i]) > end ? colio_run_end(&v->r[i]) : end;
    f->spills = v->n > 0 && end - v->r[0].off > f->extent;
}

int colio_flat_create(MPI_Datatype type, colio_flat_t **flat_p, colio_err_t *err)
{
    child_t c = {{{0}, 0, 0}, 0};
    MPI_Count lb, extent;
    int rc = flatten_rec(type, &c, err, 0);
    colio_flat_t *f = rc == 0 ? calloc(1, sizeof *f) : NULL;
    if (rc == 0 && f == NULL)
        rc = colio_err_set(err, COLIO_ERR_NOMEM, "out of memory flattening a datatype");
    if (rc != 0) {
        child_free(&c);
        return rc;
    }
    MPI_Type_get_extent_x(type, &lb, &extent);
    f->runs = c.blocks.runs;
    f->size = c.blocks.size;
    f->lb = lb;
    f->extent = extent;
    flat_classify(f);
    *flat_p = f;
    return 0;
}

void colio_flat_free(colio_flat_t *flat)
{
    if (flat == NULL)
        return;
    free(flat->packed);
    colio_runs_free(&flat->runs);
    free(flat);
}

/* The packed pieces of f (colio_flat_packed), in a new array: [0] the count, [1] the base; NULL: no memory. */
static int64_t *pack_pieces(const colio_flat_t *f)
{
    int64_t base = f->runs.r[0].off, n = 1, last_end = INT64_MIN; /* (monotonic: the first piece is the lowest) */
    int64_t *p = malloc(sizeof *p * (size_t)(f->npieces + 2));
    for (int64_t i = 0; p && i < f->runs.n; i++) {
        const colio_run_t *r = &f->runs.r[i];
        for (int64_t k = 0, off = r->off; k < r->count; k++, off += r->stride) {
            if (off == last_end)
                p[n] += r->len; /* the length, in the low word: the sum stays below 4 GiB */
            else
                p[++n] = colio_packed_word(off - base, r->len);
            last_end = off + r->len;
        }
    }
    if (p)
        p[0] = n - 1, p[1] = base;
    return p;
}

const int64_t *colio_flat_packed(colio_flat_t *flat, int64_t *n, int64_t *base)
{
    int64_t *p = __atomic_load_n(&flat->packed, __ATOMIC_ACQUIRE);
    if (p == NULL) {
        const colio_runs_t *v = &flat->runs;
        int fits = v->n > 0 && flat->monotonic && !flat->spills &&
                   colio_run_end(&v->r[v->n - 1]) - v->r[0].off < COLIO_PACKED_LIMIT;
        int64_t *mine = fits ? pack_pieces(flat) : NULL, *none = NULL;
        if (mine == NULL)
            return NULL;
        /* two threads may make it at once: the first to publish wins */
        p = __atomic_compare_exchange_n(&flat->packed, &none, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ? mine
                                                                                                             : none;
        if (p != mine)
            free(mine);
    }
    *n = p[0], *base = p[1];
    return p + 2;
}

int64_t colio_flat_find(const colio_flat_t *flat, int64_t s)
{
    int64_t lo = 0, hi = flat->runs.n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (flat->runs.r[mid].pos <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int colio_flat_dense(const colio_flat_t *flat)
{
    return flat->runs.n == 1 && flat->runs.r[0].count == 1 && flat->runs.r[0].len == flat->extent;
}

/* Attribute cache: the flattening lives as long as the datatype, and as long as a holder keeps it. */
static int flat_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t cached_lock = PTHREAD_MUTEX_INITIALIZER;

static int flat_attr_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type, (void)keyval, (void)extra;
    colio_flat_drop(value);
    return MPI_SUCCESS;
}

/* MPI_Type_dup: the duplicate shares the flattening. */
static int flat_attr_copy(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)type, (void)keyval, (void)extra;
    colio_flat_hold(in);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/*
 * Named types never change and are never freed: their flats are kept for
 * the life of the process (the few a program uses), so a call with MPI_BYTE
 * or MPI_INT neither flattens nor asks MPI about its memtype.
 */
#define NAMED_KEPT 32
static struct {
    MPI_Datatype type;
    colio_flat_t *flat;
} named_kept[NAMED_KEPT];
static int named_n; /* entries below it are complete and never change: read without the lock */
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER; /* writers only */

colio_flat_t *colio_flat_named(MPI_Datatype type)
{
    int n = __atomic_load_n(&named_n, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (named_kept[i].type == type)
            return named_kept[i].flat;
    return NULL;
}

/* A named type's kept flat, else flatten and keep it (when there is room: else the caller owns the copy). */
static int flat_named(MPI_Datatype type, colio_flat_t **flat_p, int *owned_p, colio_err_t *err)
{
    if ((*flat_p = colio_flat_named(type)) != NULL) {
        *owned_p = 0;
        return 0;
    }
    int rc = colio_flat_create(type, flat_p, err);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&named_lock);
    if (named_n < NAMED_KEPT) {
        named_kept[named_n].type = type;
        named_kept[named_n].flat = *flat_p;
        __atomic_store_n(&named_n, named_n + 1, __ATOMIC_RELEASE); /* the entry, then its count */
        *owned_p = 0;
    }
    pthread_mutex_unlock(&named_lock);
    return 0;
}

int colio_flat_get(MPI_Datatype type, colio_flat_t **flat_p, int *owned_p, colio_err_t *err)
{
    int comb;
    if (type_combiner(type, &comb) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_TYPE, "invalid datatype");
    *owned_p = 1;
    if (is_named(comb))
        return flat_named(type, flat_p, owned_p, err);
    /* one thread at a time looks up, flattens and attaches: two attaching at once would free the first */
    pthread_mutex_lock(&cached_lock);
    if (flat_keyval == MPI_KEYVAL_INVALID &&
        MPI_Type_create_keyval(flat_attr_copy, flat_attr_delete, &flat_keyval, NULL) != MPI_SUCCESS) {
        pthread_mutex_unlock(&cached_lock);
        return colio_flat_create(type, flat_p, err);
    }
    void *cached = NULL;
    int flag = 0, rc = 0;
    MPI_Type_get_attr(type, flat_keyval, &cached, &flag);
    if (flag) {
        *flat_p = cached;
    } else if ((rc = colio_flat_create(type, flat_p, err)) == 0) {
        __atomic_store_n(&(*flat_p)->refs, 1, __ATOMIC_RELEASE); /* the type's attribute, counted before it shows */
        if (MPI_Type_set_attr(type, flat_keyval, *flat_p) != MPI_SUCCESS)
            __atomic_store_n(&(*flat_p)->refs, 0, __ATOMIC_RELEASE); /* not cached: the caller's own */
    }
    if (rc == 0 && __atomic_load_n(&(*flat_p)->refs, __ATOMIC_ACQUIRE) > 0) {
        colio_flat_hold(*flat_p); /* the caller's, until colio_flat_release: the user may free the type meanwhile */
        *owned_p = 0;
    }
    pthread_mutex_unlock(&cached_lock);
    return rc;
}

void colio_flat_release(colio_flat_t *flat, int owned)
{
    if (owned)
        colio_flat_free(flat);
    else
        colio_flat_drop(flat);
}

void colio_flat_hold(colio_flat_t *flat)
{
    if (flat && __atomic_load_n(&flat->refs, __ATOMIC_ACQUIRE) > 0)
        __atomic_add_fetch(&flat->refs, 1, __ATOMIC_ACQ_REL);
}

void colio_flat_drop(colio_flat_t *flat)
{
    if (flat && __atomic_load_n(&flat->refs, __ATOMIC_ACQUIRE) > 0 &&
        __atomic_sub_fetch(&flat->refs, 1, __ATOMIC_ACQ_REL) == 0)
        colio_flat_free(flat);
}

int colio_type_check(MPI_Datatype type, MPI_Comm comm, const char *what, colio_err_t *err)
{
    if (type == MPI_DATATYPE_NULL)
        return colio_err_set(err, COLIO_ERR_TYPE, "%s is MPI_DATATYPE_NULL", what);
    char in[1] = {0}, out[1];
    int pos = 0;
    if (MPI_Pack(in, 0, type, out, (int)sizeof out, &pos, comm) != MPI_SUCCESS)
        return colio_err_set(err, COLIO_ERR_TYPE, "%s is not a valid committed datatype", what);
    return 0;
}
