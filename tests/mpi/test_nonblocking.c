/*
 * Nonblocking collective I/O: batches of 1-16 outstanding operations (list
 * and view writes and reads, at explicit offsets and at the individual file
 * pointer, blocking calls mixed in, some ranks with nothing to do), the
 * writes overlapping each other, completed in a different shuffled order on
 * every rank with colio_wait, colio_waitall, colio_test and colio_testall.
 * The expectation is a model of the file every rank computes on its own:
 * the same calls applied one after the other in issue order (MPI's
 * semantics). Reads are checked against the model as it stood when they
 * were issued; the file against the model after every batch (plain pread).
 * Then: 64 outstanding writes of random sizes through 4 slots; outstanding
 * operations repeating patterns whose plans are stored; the file
 * pointer moving at initiation; errors reported at completion, the same on
 * every rank; the generalized MPI request.
 *
 * COLIO_HINTS selects the progress mode (colio_progress=none or thread, the
 * latter with COLIO_TEST_THREADS=multiple).
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define BLK 256     /* list pieces: one per block at most */
#define VBLK 64     /* view: rank q owns bytes [q*VBLK, (q+1)*VBLK) of every p*VBLK */
#define MAXOPS 16

static int quick;

/* ---- deterministic randomness, the same on every rank for a given seed ---------------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s) { return mix((*s)++); }
static int64_t rnd_below(uint64_t *s, int64_t n) { return n > 0 ? (int64_t)(rnd(s) % (uint64_t)n) : 0; }

static unsigned char datum(int rank, int64_t i, int salt) { return pattern_new(rank, i, salt); }

/* ---- one operation, as every rank can compute it for any rank ------------------------ */

enum kind { LIST_W, LIST_R, VIEW_W, VIEW_R, FP_W, FP_R, KINDS };

typedef struct {
    int kind, blocking, salt;
    /* list: pieces of this rank */
    int n;
    MPI_Offset off[64], len[64];
    /* view: stream offset (etypes = bytes) and count */
    int64_t voff, vcount;
    int64_t bytes;
    unsigned char *buf, *expect;
    colio_request *req;
} op_t;

static int is_write(int kind) { return kind == LIST_W || kind == VIEW_W || kind == FP_W; }
static int is_view(int kind) { return kind != LIST_W && kind != LIST_R; }

/* File offset of byte i of rank q's view stream. */
static int64_t view_off(int q, int64_t i) { return (i / VBLK) * t_nprocs * VBLK + q * VBLK + i % VBLK; }

/* Pieces of rank q in a list operation: disjoint across ranks (block owner), random within. */
static void list_pieces(op_t *o, int q, uint64_t seed, int64_t nblocks)
{
    /* one shift for all ranks of the operation: blocks are dealt to ranks without overlap, since
       overlapping writes of different ranks in one call are undefined in MPI-IO (with one
       aggregator they happened to land in rank order, with several they need not) */
    uint64_t s = seed, common = seed - (uint64_t)q;
    int64_t shift = rnd_below(&common, t_nprocs);
    rnd_below(&s, t_nprocs);
    o->n = 0;
    o->bytes = 0;
    if (rnd_below(&s, 8) == 0)
        return; /* some ranks have nothing */
    for (int64_t j = 0; j < nblocks && o->n < 64; j++) {
        uint64_t b = rnd(&s);
        if ((j + shift) % t_nprocs != q || b % 3 == 0)
            continue;
        int64_t a = (int64_t)((b >> 8) % BLK), e = (int64_t)((b >> 24) % BLK);
        if (a == e)
            continue;
        if (a > e)
            a ^= e, e ^= a, a ^= e;
        o->off[o->n] = j * BLK + a;
        o->len[o->n] = e - a;
        o->bytes += e - a;
        o->n++;
    }
    /* lists need not be sorted: reverse every other one */
    if (seed & 1)
        for (int i = 0; i < o->n / 2; i++) {
            MPI_Offset t = o->off[i], u = o->len[i];
            o->off[i] = o->off[o->n - 1 - i], o->len[i] = o->len[o->n - 1 - i];
            o->off[o->n - 1 - i] = t, o->len[o->n - 1 - i] = u;
        }
}

static void view_span(op_t *o, uint64_t seed, int64_t vbytes)
{
    uint64_t s = seed;
    o->voff = rnd_below(&s, vbytes / 2);
    o->vcount = rnd_below(&s, 8) == 0 ? 0 : 1 + rnd_below(&s, vbytes / 2);
    o->bytes = o->vcount;
}

/* ---- the model ------------------------------------------------------------------------- */

typedef struct {
    int64_t size;
    unsigned char *img;
    int64_t fp[64]; /* every rank's individual file pointer */
} model_t;

/* The operation of rank q (its pieces / span), from the batch seed. */
static void describe(op_t *o, int q, int kind, uint64_t seed, const model_t *m, int64_t nblocks, int64_t vbytes)
{
    o->kind = kind;
    if (!is_view(kind)) {
        list_pieces(o, q, seed * 131 + (uint64_t)q, nblocks);
    } else {
        view_span(o, seed * 131 + (uint64_t)q, vbytes);
        if (kind == FP_W || kind == FP_R) {
            o->voff = m->fp[q];
            if (o->voff + o->vcount > vbytes)
                o->vcount = vbytes > o->voff ? vbytes - o->voff : 0;
            o->bytes = o->vcount;
        }
    }
}

/* Apply rank q's part of an operation to the model (writes) or read what it should return. */
static void model_apply(model_t *m, const op_t *o, int q, unsigned char *out)
{
    int64_t k = 0;
    if (!is_view(o->kind)) {
        for (int i = 0; i < o->n; i++)
            for (int64_t b = 0; b < o->len[i]; b++, k++) {
                int64_t off = o->off[i] + b;
                if (is_write(o->kind))
                    m->img[off] = datum(q, k, o->salt);
                else if (out)
                    out[k] = off < m->size ? m->img[off] : 0;
            }
        return;
    }
    for (int64_t i = 0; i < o->vcount; i++) {
        int64_t off = view_off(q, o->voff + i);
        if (is_write(o->kind))
            m->img[off] = datum(q, i, o->salt);
        else if (out)
            out[i] = m->img[off];
    }
}

/* ---- issuing and completing --------------------------------------------------------------- */

static int issue(colio_file *fh, op_t *o)
{
    colio_request **r = o->blocking ? NULL : &o->req;
    void *b = o->buf;
    switch (o->kind) {
    case LIST_W:
        return r ? colio_iwrite_list_all(fh, o->n, o->off, o->len, b, r) : colio_write_list_all(fh, o->n, o->off, o->len, b);
    case LIST_R:
        return r ? colio_iread_list_all(fh, o->n, o->off, o->len, b, r) : colio_read_list_all(fh, o->n, o->off, o->len, b);
    case VIEW_W:
        return r ? colio_iwrite_at_all(fh, o->voff, b, o->vcount, MPI_BYTE, r)
                 : colio_write_at_all(fh, o->voff, b, o->vcount, MPI_BYTE, MPI_STATUS_IGNORE);
    case VIEW_R:
        return r ? colio_iread_at_all(fh, o->voff, b, o->vcount, MPI_BYTE, r)
                 : colio_read_at_all(fh, o->voff, b, o->vcount, MPI_BYTE, MPI_STATUS_IGNORE);
    case FP_W:
        return r ? colio_iwrite_all(fh, b, o->vcount, MPI_BYTE, r) : colio_write_all(fh, b, o->vcount, MPI_BYTE, MPI_STATUS_IGNORE);
    default:
        return r ? colio_iread_all(fh, b, o->vcount, MPI_BYTE, r) : colio_read_all(fh, b, o->vcount, MPI_BYTE, MPI_STATUS_IGNORE);
    }
}

/* Complete the batch's outstanding requests in a shuffled order of this rank's own. */
static void complete(colio_file *fh, op_t *ops, int n, uint64_t seed)
{
    int order[MAXOPS];
    for (int i = 0; i < n; i++)
        order[i] = i;
    uint64_t s = seed * 7919 + (uint64_t)t_rank * 104729 + 3;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd_below(&s, i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    int how = (int)(seed % 4);
    if (how == 1) { /* waitall over the shuffled array */
        colio_request *reqs[MAXOPS];
        MPI_Status st[MAXOPS];
        for (int i = 0; i < n; i++)
            reqs[i] = ops[order[i]].req;
        CHECK_RC(colio_waitall(n, reqs, st), COLIO_SUCCESS, fh);
        for (int i = 0; i < n; i++) {
            CHECK(reqs[i] == NULL, "waitall left request %d", i);
            int cnt = -1;
            MPI_Get_count(&st[i], MPI_BYTE, &cnt);
            CHECK(cnt == (int)ops[order[i]].bytes, "waitall status count %d, expected %lld", cnt,
                  (long long)ops[order[i]].bytes);
            ops[order[i]].req = NULL;
        }
        return;
    }
    if (how == 2) { /* testall until done */
        colio_request *reqs[MAXOPS];
        for (int i = 0; i < n; i++)
            reqs[i] = ops[order[i]].req;
        int flag = 0;
        while (!flag)
            CHECK_RC(colio_testall(n, reqs, &flag, MPI_STATUSES_IGNORE), COLIO_SUCCESS, fh);
        for (int i = 0; i < n; i++)
            ops[i].req = NULL;
        return;
    }
    for (int i = 0; i < n; i++) {
        op_t *o = &ops[order[i]];
        MPI_Status st;
        if (how == 3) { /* test until done */
            int flag = 0;
            while (!flag)
                CHECK_RC(colio_test(&o->req, &flag, &st), COLIO_SUCCESS, fh);
        } else {
            CHECK_RC(colio_wait(&o->req, &st), COLIO_SUCCESS, fh);
        }
        CHECK(o->req == NULL, "request not freed");
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == (int)o->bytes, "status count %d, expected %lld", cnt, (long long)o->bytes);
    }
}

static int64_t verify_model(const char *path, const model_t *m, const char *what)
{
    int64_t bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unsigned char *got = malloc((size_t)m->size);
        test_read_file(path, got, m->size);
        for (int64_t i = 0; i < m->size; i++)
            if (got[i] != m->img[i] && bad++ < 5)
                fprintf(stderr, "%s: byte %lld is %u, expected %u\n", what, (long long)i, got[i], m->img[i]);
        free(got);
    }
    MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return bad;
}

/* ---- the batches ------------------------------------------------------------------------- */

static void view_set(colio_file *fh)
{
    MPI_Datatype v, ft;
    MPI_Type_create_subarray(1, (int[]){t_nprocs * VBLK}, (int[]){VBLK}, (int[]){t_rank * VBLK}, MPI_ORDER_C,
                             MPI_BYTE, &v);
    MPI_Type_commit(&v);
    ft = v;
    CHECK_RC(colio_set_view(fh, 0, MPI_BYTE, ft, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    MPI_Type_free(&v);
}

static void run_batches(const char *hints_name, MPI_Info info)
{
    char path[256];
    test_path(path, sizeof path, "nb");
    int64_t nblocks = 8 * t_nprocs, size = nblocks * BLK;
    int64_t vbytes = size / t_nprocs; /* each rank's view stream covers the file */
    test_prefill(path, size);
    model_t m = {.size = size, .img = malloc((size_t)size)};
    for (int64_t i = 0; i < size; i++)
        m.img[i] = pattern_old(i);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, fh);
    view_set(fh);
    const int counts_full[] = {1, 2, 3, 5, 8, 16}, counts_quick[] = {2, 16};
    const int *counts = quick ? counts_quick : counts_full;
    int ncounts = quick ? 2 : 6;
    int salt = 1;
    for (int c = 0; c < ncounts; c++) {
        int n = counts[c];
        op_t ops[MAXOPS];
        memset(ops, 0, sizeof ops);
        uint64_t bseed = (uint64_t)c * 1000 + (uint64_t)n;
        uint64_t ks = bseed;
        for (int k = 0; k < n; k++) {
            op_t *o = &ops[k];
            int kind = (int)rnd_below(&ks, KINDS);
            uint64_t oseed = bseed * 64 + (uint64_t)k;
            /* every rank's part, in rank order: the model applies them all */
            for (int q = 0; q < t_nprocs; q++) {
                op_t other;
                memset(&other, 0, sizeof other);
                describe(&other, q, kind, oseed, &m, nblocks, vbytes);
                other.salt = salt;
                if (q == t_rank) {
                    *o = other;
                    o->buf = malloc((size_t)o->bytes + 1);
                    o->expect = malloc((size_t)o->bytes + 1);
                    if (is_write(kind))
                        for (int64_t i = 0; i < o->bytes; i++)
                            o->buf[i] = datum(t_rank, i, salt);
                    else
                        memset(o->buf, 0xEE, (size_t)o->bytes + 1);
                }
                if (!is_write(kind) && q == t_rank)
                    model_apply(&m, &other, q, o->expect);
            }
            for (int q = 0; q < t_nprocs; q++) {
                op_t other;
                memset(&other, 0, sizeof other);
                describe(&other, q, kind, oseed, &m, nblocks, vbytes);
                other.salt = salt;
                if (is_write(kind))
                    model_apply(&m, &other, q, NULL);
                if (kind == FP_W || kind == FP_R)
                    m.fp[q] += other.vcount;
            }
            o->blocking = rnd_below(&ks, 6) == 0;
            salt++;
            MPI_Offset before = 0, after = 0;
            colio_get_position(fh, &before);
            CHECK_RC(issue(fh, o), COLIO_SUCCESS, fh);
            colio_get_position(fh, &after);
            if (o->kind == FP_W || o->kind == FP_R)
                CHECK(after == before + o->vcount, "%s: file pointer %lld after initiation, expected %lld", hints_name,
                      (long long)after, (long long)(before + o->vcount));
        }
        /* the outstanding ones, compacted */
        op_t pending[MAXOPS];
        int np = 0;
        for (int k = 0; k < n; k++)
            if (!ops[k].blocking)
                pending[np++] = ops[k];
        complete(fh, pending, np, bseed);
        for (int k = 0, j = 0; k < n; k++)
            if (!ops[k].blocking)
                ops[k].req = pending[j++].req;
        for (int k = 0; k < n; k++) {
            op_t *o = &ops[k];
            if (!is_write(o->kind))
                CHECK(memcmp(o->buf, o->expect, (size_t)o->bytes) == 0, "%s: batch of %d, op %d (kind %d): read data wrong",
                      hints_name, n, k, o->kind);
            free(o->buf);
            free(o->expect);
        }
        char what[128];
        snprintf(what, sizeof what, "%s: batch of %d", hints_name, n);
        CHECK(verify_model(path, &m, what) == 0, "%s: file differs from the model", what);
    }
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, fh);
    test_unlink(path);
    free(m.img);
}

/* 64 outstanding writes of random sizes through 4 slots: initiation completes the oldest when full. */
static void many_outstanding(MPI_Info base)
{
    char path[256];
    test_path(path, sizeof path, "nb64");
    int64_t size = 64 * 1024;
    test_prefill(path, size);
    MPI_Info info;
    MPI_Info_dup(base, &info);
    MPI_Info_set(info, "colio_max_outstanding", "4");
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, fh);
    MPI_Info_free(&info);
    unsigned char *img = malloc((size_t)size);
    for (int64_t i = 0; i < size; i++)
        img[i] = pattern_old(i);
    enum { N = 64 };
    colio_request *reqs[N];
    unsigned char *bufs[N];
    uint64_t s = 42;
    for (int k = 0; k < N; k++) {
        /* every rank writes its own random stretch; stretches of different operations overlap */
        int64_t len[64], off[64];
        for (int q = 0; q < t_nprocs; q++) {
            int64_t l = rnd_below(&s, 3000), o = rnd_below(&s, size / t_nprocs - l);
            len[q] = l;
            off[q] = q * (size / t_nprocs) + o;
            for (int64_t i = 0; i < l; i++)
                img[off[q] + i] = datum(q, i, k + 500);
        }
        bufs[k] = malloc((size_t)len[t_rank] + 1);
        for (int64_t i = 0; i < len[t_rank]; i++)
            bufs[k][i] = datum(t_rank, i, k + 500);
        CHECK_RC(colio_iwrite_at_all(fh, off[t_rank], bufs[k], len[t_rank], MPI_BYTE, &reqs[k]), COLIO_SUCCESS, fh);
    }
    CHECK_RC(colio_waitall(N, reqs, MPI_STATUSES_IGNORE), COLIO_SUCCESS, fh);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, fh);
    model_t m = {.size = size, .img = img};
    CHECK(verify_model(path, &m, "64 outstanding") == 0, "64 outstanding writes: file differs");
    for (int k = 0; k < N; k++)
        free(bufs[k]);
    free(img);
    test_unlink(path);
}

/*
 * Stored plans under many operations in flight: a few access patterns
 * written blocking first (their plans are stored), then the same patterns
 * again and again as outstanding writes, completed in a different order on
 * every rank, so plans are proposed, borrowed and released at different
 * moments on different ranks. Then the same patterns read back outstanding.
 */
static void reused_plans(MPI_Info base)
{
    enum { K = 8, REPEATS = 3, CHUNK = 4 * VBLK };
    char path[256];
    test_path(path, sizeof path, "nbplans");
    int64_t size = (int64_t)K * CHUNK * t_nprocs;
    test_prefill(path, size);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, base, &fh), COLIO_SUCCESS, fh);
    view_set(fh);
    unsigned char *bufs[K], *img = malloc((size_t)size);
    for (int k = 0; k < K; k++)
        bufs[k] = malloc(CHUNK);
    for (int rep = 0; rep <= REPEATS; rep++) {
        colio_request *reqs[K];
        for (int k = 0; k < K; k++) {
            for (int64_t i = 0; i < CHUNK; i++)
                bufs[k][i] = datum(t_rank, i, 700 + 10 * rep + k);
            if (rep == 0) /* blocking: stores the plans */
                CHECK_RC(colio_write_at_all(fh, (MPI_Offset)k * CHUNK, bufs[k], CHUNK, MPI_BYTE, MPI_STATUS_IGNORE),
                         COLIO_SUCCESS, fh);
            else
                CHECK_RC(colio_iwrite_at_all(fh, (MPI_Offset)k * CHUNK, bufs[k], CHUNK, MPI_BYTE, &reqs[k]),
                         COLIO_SUCCESS, fh);
        }
        for (int j = 0; rep > 0 && j < K; j++) /* rank r completes k = (r + 3j) mod K: a different order each */
            CHECK_RC(colio_wait(&reqs[(t_rank + 3 * j) % K], MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    }
    for (int q = 0; q < t_nprocs; q++)
        for (int k = 0; k < K; k++)
            for (int64_t i = 0; i < CHUNK; i++)
                img[view_off(q, (int64_t)k * CHUNK + i)] = datum(q, i, 700 + 10 * REPEATS + k);
    colio_request *rreqs[K];
    for (int k = 0; k < K; k++) {
        memset(bufs[k], 0xEE, CHUNK);
        CHECK_RC(colio_iread_at_all(fh, (MPI_Offset)k * CHUNK, bufs[k], CHUNK, MPI_BYTE, &rreqs[k]), COLIO_SUCCESS, fh);
    }
    for (int j = K - 1; j >= 0; j--)
        CHECK_RC(colio_wait(&rreqs[(t_rank + 5 * j) % K], MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    for (int k = 0; k < K; k++)
        for (int64_t i = 0; i < CHUNK; i++)
            CHECK(bufs[k][i] == datum(t_rank, i, 700 + 10 * REPEATS + k), "reused plans: read %d byte %lld wrong", k,
                  (long long)i);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, fh);
    model_t m = {.size = size, .img = img};
    CHECK(verify_model(path, &m, "reused plans") == 0, "outstanding writes over stored plans: file differs");
    for (int k = 0; k < K; k++)
        free(bufs[k]);
    free(img);
    test_unlink(path);
}

/* Errors surface at completion, the same everywhere; argument checks; file calls complete everything. */
static void errors_and_edges(MPI_Info info, int threaded)
{
    char path[256];
    test_path(path, sizeof path, "nberr");
    test_prefill(path, 4096);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh), COLIO_SUCCESS, fh);
    char b[16] = {0};
    colio_request *r = NULL;
    CHECK_RC(colio_iwrite_at_all(fh, 0, b, 16, MPI_BYTE, &r), COLIO_SUCCESS, fh);
    CHECK(r != NULL, "no request for a failing operation");
    CHECK_RC(colio_wait(&r, MPI_STATUS_IGNORE), COLIO_ERR_READONLY, fh);
    CHECK(r == NULL, "failed request not freed");
    /* one rank passes a bad count: every rank gets the error at completion */
    int last = t_rank == t_nprocs - 1;
    CHECK_RC(colio_iread_at_all(fh, 0, b, last ? -1 : 4, MPI_BYTE, &r), COLIO_SUCCESS, fh);
    CHECK_RC(colio_wait(&r, MPI_STATUS_IGNORE), COLIO_ERR_ARG, fh);
    CHECK(strstr(colio_last_error(fh), "negative count") != NULL, "message: %s", colio_last_error(fh));
    CHECK_RC(colio_iread_at_all(fh, 0, b, 4, MPI_BYTE, NULL), COLIO_ERR_ARG, fh);
    CHECK_RC(colio_iread_at_all(NULL, 0, b, 4, MPI_BYTE, &r), COLIO_ERR_ARG, NULL);
    CHECK_RC(colio_wait(NULL, MPI_STATUS_IGNORE), COLIO_ERR_ARG, fh);
    r = NULL;
    CHECK_RC(colio_wait(&r, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh); /* a null request is done */
    int flag = 0;
    CHECK_RC(colio_test(&r, &flag, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(flag == 1, "test of a null request: flag %d", flag);
    /* the generalized request: only with the progress thread */
    unsigned char rb[64];
    CHECK_RC(colio_iread_at_all(fh, 64 * t_rank, rb, 64, MPI_BYTE, &r), COLIO_SUCCESS, fh);
    MPI_Request mr = MPI_REQUEST_NULL;
    if (threaded) {
        CHECK_RC(colio_request_get_mpi(r, &mr), COLIO_SUCCESS, fh);
        MPI_Status st;
        CHECK(MPI_Wait(&mr, &st) == MPI_SUCCESS, "MPI_Wait on the generalized request");
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 64, "generalized request count %d", cnt);
        int bad = 0;
        for (int i = 0; i < 64; i++)
            bad += rb[i] != pattern_old(64 * t_rank + i);
        CHECK(bad == 0, "%d bytes wrong through the generalized request", bad);
        /* freed by the program before it completes: the operation still ends, nothing is freed twice */
        CHECK_RC(colio_iread_at_all(fh, 64 * t_rank, rb, 64, MPI_BYTE, &r), COLIO_SUCCESS, fh);
        CHECK_RC(colio_request_get_mpi(r, &mr), COLIO_SUCCESS, fh);
        CHECK(MPI_Request_free(&mr) == MPI_SUCCESS && mr == MPI_REQUEST_NULL, "MPI_Request_free");
        CHECK_RC(colio_sync(fh), COLIO_SUCCESS, fh);
        bad = 0;
        for (int i = 0; i < 64; i++)
            bad += rb[i] != pattern_old(64 * t_rank + i);
        CHECK(bad == 0, "%d bytes wrong after MPI_Request_free and colio_sync", bad);
    } else {
        CHECK_RC(colio_request_get_mpi(r, &mr), COLIO_ERR_UNSUPPORTED, fh);
        CHECK_RC(colio_wait(&r, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    }
    /* colio_complete ends what is in flight: the bytes are in memory before the request is tested */
    memset(rb, 0, sizeof rb);
    CHECK_RC(colio_iread_at_all(fh, 64 * t_rank, rb, 64, MPI_BYTE, &r), COLIO_SUCCESS, fh);
    CHECK_RC(colio_complete(fh), COLIO_SUCCESS, fh);
    int missing = 0;
    for (int i = 0; i < 64; i++)
        missing += rb[i] != pattern_old(64 * t_rank + i);
    CHECK(missing == 0, "colio_complete returned with %d bytes of the outstanding read not there", missing);
    CHECK_RC(colio_test(&r, &flag, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(flag == 1 && r == NULL, "colio_complete did not complete the outstanding read");
    CHECK_RC(colio_complete(NULL), COLIO_ERR_ARG, NULL);
    /* closing with operations outstanding completes them first */
    CHECK_RC(colio_iread_at_all(fh, 0, rb, 64, MPI_BYTE, &r), COLIO_SUCCESS, fh);
    CHECK_RC(colio_sync(fh), COLIO_SUCCESS, fh);
    CHECK_RC(colio_test(&r, &flag, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(flag == 1 && r == NULL, "sync did not complete the outstanding read");
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, fh);
    test_unlink(path);
}

/*
 * The memtype freed while the write that uses it is pending (MPI: the
 * operation completes normally): rank r's every other int of a vector lands
 * as N contiguous ints at r N ints, checked by reading the file directly.
 */
static void memtype_freed_while_pending(MPI_Info info)
{
    enum { N = 1 << 14 };
    char path[512];
    test_path(path, sizeof path, "nbfreed");
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    int *buf = malloc(sizeof *buf * 2 * N), *got = malloc(sizeof *got * N);
    for (int i = 0; i < 2 * N; i++)
        buf[i] = t_rank * 1000000 + i;
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    colio_request *r = NULL;
    CHECK_RC(colio_iwrite_at_all(fh, (MPI_Offset)sizeof(int) * N * t_rank, buf, 1, vec, &r), COLIO_SUCCESS, fh);
    MPI_Type_free(&vec);
    for (int k = 0; k < 64; k++) { /* reuse what a freed flattening would have left */
        void *p = malloc(64);
        memset(p, 0x55, 64);
        free(p);
    }
    CHECK_RC(colio_wait(&r, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, fh);
    int bad = test_pread(path, got, (int64_t)sizeof *got * N, (int64_t)sizeof *got * N * t_rank) ==
                      (int64_t)sizeof *got * N
                  ? 0
                  : N;
    for (int i = 0; i < N && bad == 0; i++)
        bad += got[i] != t_rank * 1000000 + 2 * i;
    CHECK(bad == 0, "memtype freed while pending: %d ints wrong", bad);
    free(buf);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    test_unlink(path);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int level = 0;
    MPI_Query_thread(&level);
    const char *h = getenv("COLIO_HINTS");
    int threaded = level == MPI_THREAD_MULTIPLE && (!h || !strstr(h, "colio_progress=none"));
    MPI_Info info;
    MPI_Info_create(&info);
    /* two-phase with many rounds, so operations interleave at every phase */
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", "1000");
    run_batches("two-phase, small rounds", info);
    if (!quick) {
        MPI_Info_set(info, "romio_cb_write", "automatic");
        MPI_Info_set(info, "romio_cb_read", "automatic");
        MPI_Info_set(info, "cb_buffer_size", "65536");
        run_batches("automatic path", info);
    }
    many_outstanding(info);
    reused_plans(info);
    memtype_freed_while_pending(info);
    errors_and_edges(info, threaded);
    MPI_Info_free(&info);
    return test_finish("test_nonblocking");
}
