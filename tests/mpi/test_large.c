/*
 * 64-bit sizes: offsets past 4 GiB (sparse file), a view displacement past
 * 4 GiB, and a count above INT_MAX moved through the collective path with a
 * collective buffer larger than 2 GiB (messages split under MPI's int limit).
 * Expected bytes by formula, checked with plain pread.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "testutil.h"

#define GIB ((int64_t)1 << 30)

static void far_offsets(const char *path)
{
    test_prefill(path, 0);
    colio_file *fh;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh), COLIO_SUCCESS, NULL);
    /* pieces near 0, at 4 GiB - 1 (straddling 2^32) and at 9 GiB */
    MPI_Offset off[3] = {9 * GIB + 100 * t_rank, 10 * t_rank, 4 * GIB - 1 + 10 * t_rank}, len[3] = {100, 10, 10};
    unsigned char d[120];
    for (int i = 0; i < 120; i++)
        d[i] = pattern_new(t_rank, i, 5);
    CHECK_RC(colio_write_list_all(fh, 3, off, len, d), COLIO_SUCCESS, fh);
    /* a view whose displacement is past 4 GiB */
    colio_set_view(fh, 6 * GIB, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
    CHECK_RC(colio_write_at_all(fh, 50 * t_rank, d, 50, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    unsigned char back[120];
    CHECK_RC(colio_read_at_all(fh, 50 * t_rank, back, 50, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(memcmp(back, d, 50) == 0, "read back past 6 GiB");
    colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
    memset(back, 0, sizeof back);
    CHECK_RC(colio_read_list_all(fh, 3, off, len, back), COLIO_SUCCESS, fh);
    CHECK(memcmp(back, d, 120) == 0, "list read back past 4 GiB");
    colio_close(&fh);
    if (t_rank == 0) {
        int fd = open(path, O_RDONLY);
        int bad = 0;
        for (int r = 0; r < t_nprocs; r++) {
            unsigned char got[100];
            MPI_Offset o[4] = {9 * GIB + 100 * r, 10 * r, 4 * GIB - 1 + 10 * r, 6 * GIB + 50 * r};
            int l[4] = {100, 10, 10, 50}, from[4] = {0, 100, 110, 0};
            for (int k = 0; k < 4; k++) {
                if (pread(fd, got, (size_t)l[k], o[k]) != l[k])
                    bad++;
                for (int i = 0; i < l[k]; i++)
                    bad += got[i] != pattern_new(r, from[k] + i, 5);
            }
        }
        close(fd);
        CHECK(bad == 0, "far offsets: %d wrong bytes", bad);
    }
    test_unlink(path);
}

/* Byte i of the huge buffer: byte (i % 8) of the word i / 8 * K (little or big endian alike via shifts). */
static unsigned char huge_byte(int64_t i) { return (unsigned char)(((uint64_t)(i / 8) * 0x9E3779B97F4A7C15ULL) >> (8 * (i % 8))); }

static void huge_fill(unsigned char *buf, int64_t n)
{
    int64_t words = n / 8;
    for (int64_t w = 0; w < words; w++) {
        uint64_t v = (uint64_t)w * 0x9E3779B97F4A7C15ULL;
        for (int b = 0; b < 8; b++)
            buf[8 * w + b] = (unsigned char)(v >> (8 * b));
    }
    for (int64_t i = words * 8; i < n; i++)
        buf[i] = huge_byte(i);
}

static int64_t huge_check(const unsigned char *buf, int64_t n)
{
    unsigned char *ref = malloc(1 << 20);
    int64_t bad = 0;
    for (int64_t at = 0; at < n; at += 1 << 20) {
        int64_t len = n - at < (1 << 20) ? n - at : (1 << 20);
        for (int64_t i = 0; i < len; i++) /* at is a multiple of 8 */
            ref[i] = huge_byte(at + i);
        bad += memcmp(ref, buf + at, (size_t)len) != 0;
    }
    free(ref);
    return bad;
}

/* Rank 1 (or 0 alone) writes INT_MAX + 4097 bytes through aggregator rank 0. */
static void huge_count(const char *path)
{
    int writer = t_nprocs > 1 ? 1 : 0;
    int64_t n = (int64_t)INT_MAX + 4097;
    test_prefill(path, 0);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "3g");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_nodes", "1");
    colio_file *fh;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    unsigned char *buf = NULL;
    MPI_Count count = 0;
    if (t_rank == writer) {
        buf = malloc((size_t)n);
        huge_fill(buf, n);
        count = n;
    }
    MPI_Status st;
    CHECK_RC(colio_write_at_all(fh, 0, buf, count, MPI_BYTE, &st), COLIO_SUCCESS, fh);
    MPI_Count got = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    CHECK(got == count, "status of a huge write: %lld", (long long)got);
    if (t_rank == writer) {
        memset(buf, 0, (size_t)n);
        CHECK_RC(colio_read_at_all(fh, 0, buf, count, MPI_BYTE, &st), COLIO_SUCCESS, fh);
        int64_t bad = huge_check(buf, n);
        CHECK(bad == 0, "huge read back: %lld wrong MiB", (long long)bad);
    } else {
        CHECK_RC(colio_read_at_all(fh, 0, NULL, 0, MPI_BYTE, &st), COLIO_SUCCESS, fh);
    }
    colio_close(&fh);
    MPI_Info_free(&info);
    CHECK(test_file_size(path) == n, "size %lld", (long long)test_file_size(path));
    if (t_rank == 0) { /* spot checks with pread, independent of the read path */
        int fd = open(path, O_RDONLY);
        int64_t probes[] = {0, INT_MAX - 5, INT_MAX, (int64_t)INT_MAX + 1, n - 1};
        for (size_t k = 0; k < sizeof probes / sizeof *probes; k++) {
            unsigned char c = 0;
            CHECK(pread(fd, &c, 1, probes[k]) == 1 && c == huge_byte(probes[k]),
                  "byte %lld", (long long)probes[k]);
        }
        close(fd);
    }
    free(buf);
    test_unlink(path);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "large");
    far_offsets(path);
    huge_count(path);
    return test_finish("test_large");
}
