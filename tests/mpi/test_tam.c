/*
 * Two-layer aggregation (colio_exchange=tam, colio_meta_exchange=tam): an
 * all-to-many pattern where every rank writes small interleaved pieces to
 * every aggregator's domain, some ranks with nothing, holes that keep old
 * content, many rounds (small cb_buffer_size), over emulated nodes of 1, 2
 * and 3 ranks (uneven at 4 ranks: nodes of 3 and 1), with one or two local
 * aggregators per node or a total count; then reads with another
 * partitioning. Expected bytes come from the ownership formula and plain
 * pread. Also: the statistics name the kernel, and auto never picks tam, even with
 * several nodes of several ranks; a local aggregator refused its coalesce
 * buffer still moves every byte right.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct piece {
    MPI_Offset off, len;
} piece_t;

typedef struct tam_case {
    int node_size;
    const char *local_aggs;
    int cb_nodes;      /* 0: one per node */
    const char *data, *meta;
    int typed;         /* colio_typed_min=1: aggregators receive with derived datatypes */
    const char *fault; /* colio_fault, or NULL */
} tam_case_t;

static uint32_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Owner of the run starting at x: a rank, or t_nprocs for a hole; rank 1 owns nothing from 3 ranks up. */
static int owner_of(int64_t x, int salt)
{
    int o = (int)(mix((uint64_t)x * 7 + (uint64_t)salt) % (uint32_t)(t_nprocs + 1));
    return t_nprocs >= 3 && o == 1 ? t_nprocs : o;
}

static int run_len(int64_t x, int salt) { return 1 + (int)(mix((uint64_t)x ^ (0x9e37u + (uint64_t)salt)) % 13u); }

/* This rank's runs (ascending) and every byte's owner. */
static int64_t my_runs(int64_t size, int salt, piece_t *out, int *owners)
{
    int64_t n = 0;
    for (int64_t x = 0; x < size;) {
        int64_t len = run_len(x, salt);
        len = x + len > size ? size - x : len;
        int o = owner_of(x, salt);
        for (int64_t i = 0; i < len; i++)
            owners[x + i] = o;
        if (o == t_rank)
            out[n++] = (piece_t){x, len};
        x += len;
    }
    return n;
}

static MPI_Info case_info(const tam_case_t *c)
{
    MPI_Info info;
    char v[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_exchange", c->data);
    MPI_Info_set(info, "colio_meta_exchange", c->meta);
    snprintf(v, sizeof v, "%d", c->node_size);
    MPI_Info_set(info, "colio_node_size", v);
    MPI_Info_set(info, "colio_local_aggregators", c->local_aggs);
    if (c->cb_nodes > 0) {
        snprintf(v, sizeof v, "%d", c->cb_nodes);
        MPI_Info_set(info, "cb_nodes", v);
    }
    MPI_Info_set(info, "cb_buffer_size", "211"); /* many rounds */
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    if (c->typed)
        MPI_Info_set(info, "colio_typed_min", "1");
    if (c->fault)
        MPI_Info_set(info, "colio_fault", c->fault);
    return info;
}

static void describe(const tam_case_t *c, char *out, size_t len)
{
    snprintf(out, len, "data=%s meta=%s node_size=%d local_aggs=%s cb_nodes=%d typed=%d fault=%s", c->data, c->meta,
             c->node_size, c->local_aggs, c->cb_nodes, c->typed, c->fault ? c->fault : "none");
}

static void check_kernels(colio_file *fh, const tam_case_t *c, const char *what)
{
    colio_stats st;
    CHECK(colio_get_stats(fh, &st) == COLIO_SUCCESS, "colio_get_stats");
    CHECK(strcmp(st.last.data_kernel, c->data) == 0, "%s: data kernel %s, expected %s", what, st.last.data_kernel,
          c->data);
    CHECK(strcmp(st.last.meta_kernel, c->meta) == 0, "%s: meta kernel %s, expected %s", what, st.last.meta_kernel,
          c->meta);
}

static void write_case(const char *path, int64_t size, const tam_case_t *c, int salt)
{
    char what[160];
    describe(c, what, sizeof what);
    piece_t *p = malloc(sizeof *p * (size_t)(size + 1));
    int *owners = malloc(sizeof(int) * (size_t)size);
    int64_t n = my_runs(size, salt, p, owners), total = 0;
    MPI_Offset *off = malloc(sizeof *off * (size_t)(n + 1)), *len = malloc(sizeof *len * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        off[i] = p[i].off, len[i] = p[i].len, total += p[i].len;
    unsigned char *buf = malloc((size_t)total + 1);
    for (int64_t i = 0, at = 0; i < n; i++)
        for (int64_t k = 0; k < len[i]; k++)
            buf[at++] = pattern_new(t_rank, off[i] + k, salt);

    test_prefill(path, size + 50);
    MPI_Info info = case_info(c);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    rc = tu_write_list_all(fh, n, n ? off : NULL, n ? len : NULL, n ? buf : NULL);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    check_kernels(fh, c, what);
    colio_close(&fh);
    MPI_Info_free(&info);

    if (t_rank == 0) {
        unsigned char *file = malloc((size_t)size + 50);
        CHECK(test_read_file(path, file, size + 50) == 0, "cannot read back %s", path);
        int64_t bad = 0;
        for (int64_t x = 0; x < size + 50; x++) {
            int o = x < size ? owners[x] : t_nprocs;
            unsigned char want = o < t_nprocs ? pattern_new(o, x, salt) : pattern_old(x);
            if (file[x] != want && bad++ < 3)
                fprintf(stderr, "byte %lld: %u, expected %u (owner %d)\n", (long long)x, file[x], want, o);
        }
        CHECK(bad == 0, "write %s: %lld wrong bytes", what, (long long)bad);
        free(file);
    }
    free(p), free(owners), free(off), free(len), free(buf);
}

/* Read with another partitioning; expected bytes from plain pread of the file. */
static void read_case(const char *path, const tam_case_t *c, int salt)
{
    char what[160];
    describe(c, what, sizeof what);
    int64_t fsize = test_file_size(path);
    piece_t *p = malloc(sizeof *p * (size_t)(fsize + 1));
    int *owners = malloc(sizeof(int) * (size_t)fsize);
    int64_t n = my_runs(fsize, salt + 1000, p, owners), total = 0;
    MPI_Offset *off = malloc(sizeof *off * (size_t)(n + 1)), *len = malloc(sizeof *len * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        off[i] = p[i].off, len[i] = p[i].len, total += p[i].len;
    unsigned char *file = malloc((size_t)fsize + 1), *buf = malloc((size_t)total + 1);
    CHECK(test_read_file(path, file, fsize) == 0, "cannot read %s", path);
    memset(buf, 0xEE, (size_t)total + 1);
    MPI_Info info = case_info(c);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    rc = tu_read_list_all(fh, n, n ? off : NULL, n ? len : NULL, n ? buf : NULL);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    check_kernels(fh, c, what);
    colio_close(&fh);
    MPI_Info_free(&info);
    int64_t bad = 0;
    for (int64_t i = 0, at = 0; i < n; i++)
        for (int64_t k = 0; k < len[i]; k++, at++)
            if (buf[at] != file[off[i] + k] && bad++ < 3)
                fprintf(stderr, "[rank %d] read offset %lld: %u, expected %u\n", t_rank, (long long)(off[i] + k),
                        buf[at], file[off[i] + k]);
    CHECK(bad == 0, "read %s: %lld wrong bytes", what, (long long)bad);
    free(p), free(owners), free(off), free(len), free(file), free(buf);
}

/*
 * Automatic choice never picks tam, even on several nodes of several ranks (docs/SCALE.md, "The auto rule"):
 * issend below colio_auto_throttle_from peers, balanced from it (fan-in threshold 1).
 */
static void auto_case(const char *path)
{
    const int node_sizes[] = {1, 2, 1, 2};
    for (int i = 0; i < 4; i++) {
        tam_case_t c = {node_sizes[i], "*:1", 0, "auto", "auto", 0, NULL};
        MPI_Info info = case_info(&c);
        MPI_Info_set(info, "colio_auto_fanin", "1");
        MPI_Info_set(info, "colio_auto_throttle_from", i < 2 ? "512" : "1");
        test_prefill(path, 4096);
        colio_file *fh;
        int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
        CHECK_RC(rc, COLIO_SUCCESS, NULL);
        unsigned char buf[64];
        memset(buf, t_rank + 1, sizeof buf);
        MPI_Offset off[4], len[4];
        for (int k = 0; k < 4; k++) /* a piece in each quarter of the file: every aggregator */
            off[k] = 1024 * k + 64 * t_rank, len[k] = 16;
        rc = tu_write_list_all(fh, 4, off, len, buf);
        CHECK_RC(rc, COLIO_SUCCESS, fh);
        colio_stats st;
        colio_get_stats(fh, &st);
        const char *want = i < 2 ? "issend" : "balanced";
        if (t_nprocs > 1) /* one rank: no peers, ROMIO's kernel */
            CHECK(strcmp(st.last.data_kernel, want) == 0, "auto at node size %d: %s, expected %s", c.node_size,
                  st.last.data_kernel, want);
        colio_close(&fh);
        MPI_Info_free(&info);
    }
}

/*
 * Every local aggregator refused its Nth coalesce buffer (colio_fault=
 * coalesce:N): N = 1 is the metadata exchange, later ones data rounds. It
 * moves one segment at a time through a spare buffer instead, and every byte
 * is still right (forwarding garbage once handed aggregators wrong run lists
 * and hung reads at 5 ranks). From 3 ranks rank 1 owns nothing, so the
 * groups that gather are rank 0's at 2 ranks and rank 2's (and 4's) from 4.
 */
static void nomem_case(const char *path, int nth)
{
    char spec[64];
    snprintf(spec, sizeof spec, "coalesce:%d:ENOMEM", nth);
    tam_case_t c = {2, "*:1", 0, "tam", "tam", nth % 2, spec};
    write_case(path, 2200 + 61 * nth, &c, 90 + nth);
    read_case(path, &c, 90 + nth);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    char path[256];
    test_path(path, sizeof path, "tam");
    const int node_sizes[] = {1, 2, 3};
    const char *local_aggs[] = {"*:1", "*:2", "1", "3"};
    int cases = 0;
    for (int ns = 0; ns < 3; ns++)
        for (int la = 0; la < 4; la++) {
            if (quick && (ns + la) % 2)
                continue;
            int cb_nodes = la % 2 ? 1 : 0, salt = 10 * ns + la;
            tam_case_t c = {node_sizes[ns], local_aggs[la], cb_nodes, "tam", "tam", la >= 2, NULL};
            write_case(path, 2500 + 97 * salt, &c, salt);
            read_case(path, &c, salt);
            cases++;
        }
    /* each phase alone with tam, the other with ROMIO's kernel */
    tam_case_t only_data = {2, "*:1", 1, "tam", "romio", 1, NULL},
               only_meta = {3, "*:2", 0, "romio", "tam", 0, NULL};
    write_case(path, 3000, &only_data, 77);
    read_case(path, &only_data, 77);
    write_case(path, 3100, &only_meta, 78);
    read_case(path, &only_meta, 78);
    auto_case(path);
    for (int nth = 1; nth <= 3; nth++)
        nomem_case(path, nth);
    if (t_rank == 0)
        printf("%d tam cases\n", cases + 2);
    test_unlink(path);
    return test_finish("test_tam");
}
