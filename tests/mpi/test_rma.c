/*
 * The one-sided exchange kernel (colio_exchange / colio_meta_exchange =
 * rma): all-to-many interleaved writes and many-to-all reads over many
 * rounds (a tiny cb_buffer_size), holes that keep the old content with and
 * without read-modify-write, derived memory datatypes, a rank with nothing
 * to move, contiguous per-rank blocks that span rounds and aggregators,
 * with rma for the data only, the metadata only, and both. Expected bytes
 * come from the ownership formula and plain pread; the statistics must name
 * the kernels that ran.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *const modes[][2] = {
    /* colio_exchange, colio_meta_exchange */
    {"rma", "romio"},
    {"romio", "rma"},
    {"rma", "rma"},
};
#define NMODES 3

typedef struct layout {
    int interleaved; /* 1: blocks of b bytes dealt round-robin over P+1 owners (P: holes); 0: one chunk per rank */
    int64_t b;       /* block size (interleaved) */
    int64_t size;    /* file size */
    int empty;       /* rank with nothing to move, or -1 */
} layout_t;

/* Owner of file byte x and its index in the owner's stream; -1: a hole. */
static int owner_of(const layout_t *L, int64_t x, int64_t *i_p)
{
    int P = t_nprocs, o;
    if (L->interleaved) {
        int64_t k = x / L->b;
        o = (int)(k % (P + 1));
        *i_p = (k / (P + 1)) * L->b + x % L->b;
    } else {
        int64_t chunk = L->size / P;
        o = (int)(x / chunk);
        *i_p = x % chunk;
    }
    return o == P || o == L->empty ? -1 : o;
}

/* Bytes this rank moves and the view that places them. */
static int64_t my_bytes(const layout_t *L)
{
    if (t_rank == L->empty)
        return 0;
    return L->interleaved ? L->size / (L->b * (t_nprocs + 1)) * L->b : L->size / t_nprocs;
}

static void set_view(colio_file *fh, const layout_t *L)
{
    MPI_Datatype ft = MPI_BYTE, vec;
    MPI_Offset disp = 0;
    if (L->interleaved) {
        MPI_Type_contiguous((int)L->b, MPI_BYTE, &vec);
        MPI_Type_create_resized(vec, 0, L->b * (t_nprocs + 1), &ft);
        MPI_Type_commit(&ft);
        MPI_Type_free(&vec);
        disp = t_rank * L->b;
    } else {
        disp = t_rank * (L->size / t_nprocs);
    }
    int rc = colio_set_view(fh, disp, MPI_BYTE, ft, MPI_INFO_NULL);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    if (ft != MPI_BYTE)
        MPI_Type_free(&ft);
}

/* A derived memory type: n stream bytes as blocks of 3 every 5 bytes (n a multiple of 3 is not needed). */
static MPI_Datatype mem_type(int64_t n, int64_t *extent_p)
{
    MPI_Datatype t, v;
    int64_t blocks = n / 3, rest = n % 3;
    int bl[2] = {1, (int)rest};
    MPI_Aint d[2] = {0, (MPI_Aint)(blocks * 5)};
    MPI_Type_vector((int)blocks, 3, 5, MPI_BYTE, &v);
    MPI_Datatype types[2] = {v, MPI_BYTE};
    MPI_Type_create_struct(rest ? 2 : 1, bl, d, types, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&v);
    *extent_p = blocks * 5 + rest;
    return t;
}

static int64_t mem_pos(int64_t i) { return (i / 3) * 5 + i % 3; }

static MPI_Info make_info(int mode, int ds_write, const char *cb)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_exchange", modes[mode][0]);
    MPI_Info_set(info, "colio_meta_exchange", modes[mode][1]);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "romio_ds_write", ds_write ? "enable" : "disable");
    MPI_Info_set(info, "cb_buffer_size", cb);
    char naggs[16];
    snprintf(naggs, sizeof naggs, "%d", t_nprocs); /* every rank an aggregator: all-to-many */
    MPI_Info_set(info, "cb_nodes", naggs);
    return info;
}

static void check_kernels(colio_file *fh, int mode, const char *what)
{
    colio_stats s;
    colio_get_stats(fh, &s);
    CHECK(s.last.aggregators > 0, "%s: no aggregation (romio_cb_* = enable)", what);
    CHECK(strcmp(s.last.data_kernel, modes[mode][0]) == 0, "%s: data kernel %s, expected %s", what,
          s.last.data_kernel, modes[mode][0]);
    CHECK(strcmp(s.last.meta_kernel, modes[mode][1]) == 0, "%s: metadata kernel %s, expected %s", what,
          s.last.meta_kernel, modes[mode][1]);
}

static void one_case(const char *path, const layout_t *L, int mode, int ds_write, const char *cb, int salt)
{
    char what[160];
    snprintf(what, sizeof what, "%s b=%lld data=%s meta=%s ds_write=%d cb=%s",
             L->interleaved ? "interleaved" : "blocks", (long long)L->b, modes[mode][0], modes[mode][1], ds_write, cb);
    test_prefill(path, L->size);
    MPI_Info info = make_info(mode, ds_write, cb);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Info_free(&info);
    if (rc != COLIO_SUCCESS)
        return;
    set_view(fh, L);
    int64_t n = my_bytes(L), ext;
    MPI_Datatype mt = mem_type(n > 0 ? n : 1, &ext);
    unsigned char *mem = calloc((size_t)ext + 1, 1), *back = calloc((size_t)ext + 1, 1);
    for (int64_t i = 0; i < n; i++)
        mem[mem_pos(i)] = pattern_new(t_rank, i, salt);
    /* write: count 1 of the derived type, or nothing at all */
    rc = colio_write_at_all(fh, 0, mem, n > 0 ? 1 : 0, mt, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    check_kernels(fh, mode, what);
    rc = colio_read_at_all(fh, 0, back, n > 0 ? 1 : 0, mt, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    check_kernels(fh, mode, what);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += back[mem_pos(i)] != pattern_new(t_rank, i, salt);
    CHECK(bad == 0, "%s: read back %lld wrong bytes", what, (long long)bad);
    /* many-to-all read with another partitioning: every rank reads all of the file */
    unsigned char *all = malloc((size_t)L->size);
    colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
    rc = colio_read_at_all(fh, 0, all, (int)L->size, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    colio_close(&fh);
    int64_t bad_all = 0, bad_file = 0;
    unsigned char *file = malloc((size_t)L->size);
    if (test_read_file(path, file, L->size) != 0)
        bad_file = L->size;
    for (int64_t x = 0; x < L->size; x++) {
        int64_t i;
        int o = owner_of(L, x, &i);
        unsigned char want = o < 0 ? pattern_old(x) : pattern_new(o, i, salt);
        bad_all += all[x] != want;
        bad_file += file[x] != want;
    }
    CHECK(bad_file == 0, "%s: file has %lld wrong bytes", what, (long long)bad_file);
    CHECK(bad_all == 0, "%s: whole-file read has %lld wrong bytes", what, (long long)bad_all);
    MPI_Type_free(&mt);
    free(mem), free(back), free(all), free(file);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Identical overlapping writes of several ranks (undefined only when the data differ). */
static void overlapping_identical(const char *path, int mode)
{
    int64_t size = 4000;
    test_prefill(path, size);
    MPI_Info info = make_info(mode, 1, "300");
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Info_free(&info);
    if (rc != COLIO_SUCCESS)
        return;
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_BYTE, 0, 2, &every_other);
    MPI_Type_commit(&every_other);
    colio_set_view(fh, 0, MPI_BYTE, every_other, MPI_INFO_NULL);
    unsigned char buf[2000];
    for (int i = 0; i < 2000; i++)
        buf[i] = (unsigned char)(i * 5 + 1);
    rc = colio_write_at_all(fh, 0, buf, 2000, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    colio_close(&fh);
    MPI_Type_free(&every_other);
    unsigned char file[4000];
    int64_t bad = test_read_file(path, file, size) != 0 ? size : 0;
    for (int64_t x = 0; x < size; x++)
        bad += file[x] != (x % 2 ? pattern_old(x) : (unsigned char)((x / 2) * 5 + 1));
    CHECK(bad == 0, "overlapping identical writes (%s/%s): %lld wrong bytes", modes[mode][0], modes[mode][1],
          (long long)bad);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Hints switch kernels on an open file: the window comes and goes with colio_set_info. */
static void switch_kernels(const char *path)
{
    int64_t size = 3000;
    test_prefill(path, size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "200");
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    if (rc != COLIO_SUCCESS) {
        MPI_Info_free(&info);
        return;
    }
    int64_t chunk = size / t_nprocs;
    unsigned char *buf = malloc((size_t)chunk);
    const char *seq[] = {"romio", "rma", "balanced", "rma"};
    for (int k = 0; k < 4; k++) {
        MPI_Info_set(info, "colio_exchange", seq[k]);
        rc = colio_set_info(fh, info);
        CHECK_RC(rc, COLIO_SUCCESS, fh);
        for (int64_t i = 0; i < chunk; i++)
            buf[i] = pattern_new(t_rank, i, 50 + k);
        rc = colio_write_at_all(fh, t_rank * chunk, buf, (int)chunk, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK_RC(rc, COLIO_SUCCESS, fh);
        colio_stats s;
        colio_get_stats(fh, &s);
        CHECK(strcmp(s.last.data_kernel, seq[k]) == 0, "switch: data kernel %s, expected %s", s.last.data_kernel,
              seq[k]);
    }
    colio_close(&fh);
    MPI_Info_free(&info);
    free(buf);
    unsigned char *file = malloc((size_t)size);
    int64_t bad = test_read_file(path, file, size) != 0 ? size : 0;
    for (int64_t x = 0; x < size; x++) {
        int o = (int)(x / chunk);
        bad += file[x] != (o < t_nprocs ? pattern_new(o, x % chunk, 53) : pattern_old(x));
    }
    CHECK(bad == 0, "switch: %lld wrong bytes", (long long)bad);
    free(file);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    char path[512];
    test_path(path, sizeof path, "rma");
    int P = t_nprocs;
    int salt = 1;
    for (int mode = 0; mode < NMODES; mode++) {
        /* interleaved with holes, a rank with nothing (the last, when there are several) */
        layout_t a = {.interleaved = 1, .b = 7, .size = 7 * (P + 1) * (quick ? 60 : 200), .empty = P > 1 ? P - 1 : -1};
        one_case(path, &a, mode, 1, "256", salt++);
        if (!quick || mode == 2)
            one_case(path, &a, mode, 0, "256", salt++); /* holes written around, no read-modify-write */
        /* single bytes interleaved, nobody empty */
        layout_t b = {.interleaved = 1, .b = 1, .size = (P + 1) * (quick ? 300 : 1000), .empty = -1};
        if (!quick || mode != 1)
            one_case(path, &b, mode, 1, "100", salt++);
        /* contiguous chunks spanning rounds and aggregators */
        layout_t c = {.interleaved = 0, .b = 0, .size = (int64_t)P * (quick ? 1500 : 5000), .empty = -1};
        one_case(path, &c, mode, 1, "512", salt++);
        overlapping_identical(path, mode);
    }
    switch_kernels(path);
    test_unlink(path);
    return test_finish("test_rma");
}
