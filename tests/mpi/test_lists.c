/*
 * Explicit request lists (colio_write_list_all / colio_read_list_all):
 * byte-granularity interleaving of ranks, unsorted lists, holes that keep old
 * content, empty ranks, one rank owning everything, reads with a different
 * partitioning than the writes, reads past the end of file, and overlapping
 * pieces within one call (an error on every rank, the file untouched).
 * Expected bytes come from the ownership formula and plain pread.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct piece {
    MPI_Offset off, len;
} piece_t;

static uint32_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Runs of 1..max bytes over [0, size); owner in 0..P-1, or P for a hole. */
typedef int (*owner_fn_t)(int64_t run_start, int salt);

static int owner_interleaved(int64_t x, int salt) { return (int)(mix((uint64_t)x * 7 + (uint64_t)salt) % (uint32_t)(t_nprocs + 1)); }
static int owner_first_last(int64_t x, int salt)
{
    int o = (int)(mix((uint64_t)x + (uint64_t)salt) % 3);
    return o == 0 ? 0 : (o == 1 ? t_nprocs - 1 : t_nprocs);
}
static int owner_last_only(int64_t x, int salt) { (void)x, (void)salt; return t_nprocs - 1; }

static int run_len(int64_t x, int maxlen) { return 1 + (int)(mix((uint64_t)x ^ 0x9e37) % (uint32_t)maxlen); }

/* This rank's runs, and every byte's owner (owners has size entries). */
static int64_t my_runs(int64_t size, int maxlen, owner_fn_t owner, int salt, piece_t *out, int *owners)
{
    int64_t n = 0;
    for (int64_t x = 0; x < size;) {
        int64_t len = run_len(x + salt, maxlen);
        if (x + len > size)
            len = size - x;
        int o = owner(x, salt);
        for (int64_t i = 0; i < len; i++)
            owners[x + i] = o;
        if (o == t_rank)
            out[n++] = (piece_t){x, len};
        x += len;
    }
    return n;
}

static void shuffle(piece_t *p, int64_t n, int salt)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = mix((uint64_t)i * 31 + (uint64_t)salt) % (uint64_t)(i + 1);
        piece_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

static MPI_Info hints_info(int h)
{
    MPI_Info info;
    MPI_Info_create(&info);
    char buf[32];
    switch (h) {
    case 1:
        MPI_Info_set(info, "romio_cb_read", "enable");
        MPI_Info_set(info, "cb_buffer_size", "97");
        snprintf(buf, sizeof buf, "%d", t_nprocs);
        MPI_Info_set(info, "cb_nodes", buf);
        break;
    case 2:
        MPI_Info_set(info, "cb_buffer_size", "1024");
        MPI_Info_set(info, "cb_nodes", "2");
        MPI_Info_set(info, "romio_ds_write", "disable");
        MPI_Info_set(info, "romio_ds_read", "disable");
        MPI_Info_set(info, "colio_typed_min", "1");
        break;
    case 3:
        MPI_Info_set(info, "romio_cb_write", "disable");
        MPI_Info_set(info, "romio_cb_read", "disable");
        break;
    case 4:
        MPI_Info_set(info, "romio_cb_read", "enable");
        MPI_Info_set(info, "romio_ds_write", "enable");
        MPI_Info_set(info, "cb_buffer_size", "4096");
        MPI_Info_set(info, "striping_unit", "1000");
        snprintf(buf, sizeof buf, "%d", t_nprocs > 1 ? t_nprocs - 1 : 1);
        MPI_Info_set(info, "cb_nodes", buf);
        break;
    }
    test_rotate_info(info);
    return info;
}
#define N_HINT_SETS 5

static void write_case(const char *path, int64_t size, int maxlen, owner_fn_t owner, int salt, int h)
{
    piece_t *p = malloc(sizeof *p * (size_t)(size + 1));
    int *owners = malloc(sizeof(int) * (size_t)size);
    int64_t n = my_runs(size, maxlen, owner, salt, p, owners);
    shuffle(p, n, salt);
    MPI_Offset *off = malloc(sizeof *off * (size_t)(n + 1)), *len = malloc(sizeof *len * (size_t)(n + 1));
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        off[i] = p[i].off, len[i] = p[i].len, total += p[i].len;
    unsigned char *buf = malloc((size_t)total + 1);
    for (int64_t i = 0, at = 0; i < n; i++)
        for (int64_t k = 0; k < len[i]; k++)
            buf[at++] = pattern_new(t_rank, off[i] + k, salt);

    test_prefill(path, size + 100);
    MPI_Info info = hints_info(h);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    /* empty ranks pass NULL arrays */
    rc = tu_write_list_all(fh, n, n ? off : NULL, n ? len : NULL, n ? buf : NULL);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    colio_close(&fh);
    MPI_Info_free(&info);

    if (t_rank == 0) {
        unsigned char *file = malloc((size_t)size + 100);
        CHECK(test_read_file(path, file, size + 100) == 0, "cannot read back %s", path);
        int64_t bad = 0;
        for (int64_t x = 0; x < size + 100; x++) {
            int o = x < size ? owners[x] : t_nprocs;
            unsigned char want = o < t_nprocs ? pattern_new(o, x, salt) : pattern_old(x);
            if (file[x] != want && bad++ < 3)
                fprintf(stderr, "byte %lld: %u, expected %u (owner %d)\n", (long long)x, file[x], want, o);
        }
        CHECK(bad == 0, "write case salt %d hints %d: %lld wrong bytes", salt, h, (long long)bad);
        free(file);
    }
    free(p), free(owners), free(off), free(len), free(buf);
}

/* Read pieces of a partitioning other than the writer's, some past the end of file. */
static void read_case(const char *path, int64_t size, int salt, int h)
{
    int64_t fsize = test_file_size(path);
    int64_t span = fsize + 300; /* the tail reaches past the end of file */
    piece_t *p = malloc(sizeof *p * (size_t)(span + 1));
    int *owners = malloc(sizeof(int) * (size_t)span);
    int64_t n = my_runs(span, 37, owner_interleaved, salt + 1000, p, owners);
    shuffle(p, n, salt + 7);
    MPI_Offset *off = malloc(sizeof *off * (size_t)(n + 1)), *len = malloc(sizeof *len * (size_t)(n + 1));
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        off[i] = p[i].off, len[i] = p[i].len, total += p[i].len;
    unsigned char *file = malloc((size_t)fsize + 1), *buf = malloc((size_t)total + 1);
    CHECK(test_read_file(path, file, fsize) == 0, "cannot read %s", path);
    memset(buf, 0xEE, (size_t)total + 1);
    MPI_Info info = hints_info(h);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    rc = tu_read_list_all(fh, n, off, len, buf);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    colio_close(&fh);
    MPI_Info_free(&info);
    int64_t bad = 0;
    for (int64_t i = 0, at = 0; i < n; i++)
        for (int64_t k = 0; k < len[i]; k++, at++) {
            int64_t x = off[i] + k;
            unsigned char want = x < fsize ? file[x] : 0xEE; /* past the end: untouched */
            if (buf[at] != want && bad++ < 3)
                fprintf(stderr, "[rank %d] read offset %lld: %u, expected %u\n", t_rank, (long long)x, buf[at], want);
        }
    CHECK(bad == 0, "read case salt %d hints %d: %lld wrong bytes (size %lld)", salt, h, (long long)bad,
          (long long)size);
    free(p), free(owners), free(off), free(len), free(file), free(buf);
}

static void overlap_case(const char *path)
{
    test_prefill(path, 4096);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    MPI_Offset off[2] = {100 * t_rank, 100 * t_rank + 10}, len[2] = {20, 20}; /* overlaps on the last rank only */
    if (t_rank != t_nprocs - 1)
        len[0] = 10;
    unsigned char buf[40];
    memset(buf, 0x11, sizeof buf);
    rc = tu_write_list_all(fh, 2, off, len, buf);
    CHECK_RC(rc, COLIO_ERR_ARG, fh);
    CHECK(strstr(colio_last_error(fh), "overlap") != NULL, "message: %s", colio_last_error(fh));
    colio_close(&fh);
    /* The failing rank's bytes and bytes nobody named keep their old content; the other ranks' single
       pieces may already be in the file (an early direct access moves them before the agreement). */
    unsigned char file[4096];
    if (t_rank == 0 && test_read_file(path, file, 4096) == 0)
        for (int x = 0; x < 4096; x++) {
            int owner = x / 100, in_piece = owner < t_nprocs - 1 && x % 100 < 30;
            if (file[x] != pattern_old(x) && !(in_piece && file[x] == 0x11)) {
                CHECK(0, "a failed call changed byte %d", x);
                break;
            }
        }
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    char path[512];
    test_path(path, sizeof path, "lists");
    int salt = 1;
    for (int h = 0; h < N_HINT_SETS; h++) {
        if (quick && h != 1 && h != 4)
            continue;
        write_case(path, 20000, 23, owner_interleaved, salt, h);
        read_case(path, 20000, salt++, h);
        write_case(path, 5000, 300, owner_first_last, salt, h);
        read_case(path, 5000, salt++, h);
        write_case(path, 3000, 50, owner_last_only, salt++, h);
    }
    overlap_case(path);
    test_unlink(path);
    return test_finish("test_lists");
}
