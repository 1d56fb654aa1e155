/*
 * MPI-IO semantics users rely on: status counts, reads past the end of file
 * (count of bytes read, buffer beyond untouched), the individual file
 * pointer, APPEND, DELETE_ON_CLOSE, EXCL creation, hints in effect
 * (get_info, set_info, COLIO_HINTS overriding MPI_Info), statistics and their
 * JSON lines, the direct path, read-after-write on one handle, zero-size
 * calls, one-byte rounds. Expected bytes come from plain pread/pwrite.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static colio_file *open_rw(const char *path, int amode, MPI_Info info)
{
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, amode, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    return fh;
}

static void status_and_eof(const char *path)
{
    test_prefill(path, 1000);
    colio_file *fh = open_rw(path, MPI_MODE_RDWR, MPI_INFO_NULL);
    int vals[25];
    for (int i = 0; i < 25; i++)
        vals[i] = 1000 * t_rank + i;
    MPI_Status st;
    int rc = tu_write_at_all(fh, 100 * t_rank, vals, 25, MPI_INT, &st);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    int count = -1, elems = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Get_elements(&st, MPI_BYTE, &elems);
    CHECK(count == 25 && elems == 100, "write status: count %d elements %d", count, elems);

    /* the file ends at max(1000, 100 * nprocs): read 300 bytes from 900 */
    MPI_Offset size = 0;
    colio_get_size(fh, &size);
    int64_t want_size = 100 * t_nprocs > 1000 ? 100 * t_nprocs : 1000;
    CHECK(size == want_size, "size %lld, expected %lld", (long long)size, (long long)want_size);
    unsigned char buf[300], file[300];
    memset(buf, 0xEE, sizeof buf);
    int64_t start = size - 100;
    rc = tu_read_at_all(fh, start, buf, 300, MPI_BYTE, &st);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 100, "read past the end: count %d, expected 100", count);
    CHECK(test_pread(path, file, 100, start) == 100, "pread of the tail");
    CHECK(memcmp(buf, file, 100) == 0, "bytes before the end differ");
    int untouched = 1;
    for (int i = 100; i < 300; i++)
        untouched &= buf[i] == 0xEE;
    CHECK(untouched, "buffer beyond the end of file was modified");

    /* wholly past the end, noncontiguous view, on every rank */
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 5, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    colio_set_view(fh, size - 12, MPI_BYTE, vec, MPI_INFO_NULL);
    memset(buf, 0xEE, sizeof buf);
    rc = tu_read_all(fh, buf, 40, MPI_BYTE, &st);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Get_count(&st, MPI_BYTE, &count);
    /* view pieces at size-12+{0,5,10,15,...}: bytes before the end are -12,-11,-7,-6,-2,-1 */
    CHECK(count == 6, "strided read across the end: count %d, expected 6", count);
    MPI_Offset pos;
    colio_get_position(fh, &pos);
    /* blocking: by the bytes read; nonblocking: by the request, at initiation (the size is not known yet) */
    MPI_Offset want_pos = tu_nonblocking() ? 40 : 6;
    CHECK(pos == want_pos, "file pointer after a short read: %lld, expected %lld", (long long)pos, (long long)want_pos);
    for (int i = 6; i < 40; i++)
        untouched &= buf[i] == 0xEE;
    CHECK(untouched, "strided read past the end modified the buffer");
    colio_close(&fh);
    MPI_Type_free(&vec);
}

static void file_pointer_and_rw(const char *path)
{
    test_prefill(path, 0);
    colio_file *fh = open_rw(path, MPI_MODE_RDWR, MPI_INFO_NULL);
    MPI_Datatype ft;
    MPI_Type_vector(1, 8, 8 * t_nprocs, MPI_BYTE, &ft);
    MPI_Datatype rt;
    MPI_Type_create_resized(ft, 0, 8 * t_nprocs, &rt);
    MPI_Type_commit(&rt);
    colio_set_view(fh, 8 * t_rank, MPI_BYTE, rt, MPI_INFO_NULL);
    char data[40];
    for (int i = 0; i < 40; i++)
        data[i] = (char)(t_rank * 40 + i);
    for (int k = 0; k < 5; k++) /* five calls of 8 bytes: one tile each */
        CHECK_RC(tu_write_all(fh, data + 8 * k, 8, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    MPI_Offset pos;
    colio_get_position(fh, &pos);
    CHECK(pos == 40, "file pointer %lld after 5 writes of 8", (long long)pos);
    colio_set_view(fh, 8 * t_rank, MPI_BYTE, rt, MPI_INFO_NULL);
    colio_get_position(fh, &pos);
    CHECK(pos == 0, "set_view must reset the file pointer (%lld)", (long long)pos);
    char back[40];
    CHECK_RC(tu_read_all(fh, back, 40, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(memcmp(back, data, 40) == 0, "read-after-write on one handle differs");
    colio_close(&fh);
    if (t_rank == 0) {
        unsigned char *file = malloc((size_t)40 * t_nprocs);
        test_read_file(path, file, 40 * t_nprocs);
        int bad = 0;
        for (int x = 0; x < 40 * t_nprocs; x++) {
            int tile = x / (8 * t_nprocs), r = (x % (8 * t_nprocs)) / 8, i = x % 8;
            bad += file[x] != (unsigned char)(r * 40 + tile * 8 + i);
        }
        CHECK(bad == 0, "strided writes: %d wrong bytes", bad);
        free(file);
    }
    MPI_Type_free(&ft);
    MPI_Type_free(&rt);
}

static void modes(const char *path)
{
    test_prefill(path, 1000);
    colio_file *fh = open_rw(path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL);
    MPI_Offset pos;
    colio_get_position(fh, &pos);
    CHECK(pos == 1000, "APPEND starts at the end: %lld", (long long)pos);
    char c[10];
    memset(c, 'a' + t_rank, sizeof c);
    MPI_Offset off = 1000 + 10 * t_rank, len = 10;
    CHECK_RC(tu_write_list_all(fh, 1, &off, &len, c), COLIO_SUCCESS, fh);
    colio_close(&fh);
    CHECK(test_file_size(path) == 1000 + 10 * t_nprocs, "size after append: %lld", (long long)test_file_size(path));

    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.del", path);
    fh = open_rw(tmp, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL);
    CHECK(test_file_size(tmp) == 0, "EXCL creation");
    MPI_Barrier(MPI_COMM_WORLD); /* before any rank writes (a one-piece write needs no agreement first) */
    CHECK_RC(tu_write_list_all(fh, 1, &off, &len, c), COLIO_SUCCESS, fh);
    CHECK_RC(colio_sync(fh), COLIO_SUCCESS, fh);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    CHECK(fh == NULL, "close must NULL the handle");
    CHECK(test_file_size(tmp) == -1, "DELETE_ON_CLOSE left the file");
}

static const char *info_value(colio_file *fh, const char *key, char *v);

/* The aggregators asked for, or one per subfile when the file is subfiled with more (up to one per rank). */
static int aggs_expected(colio_file *fh, const char *path, int asked)
{
    char v[256];
    int subfiles = atoi(info_value(fh, "colio_subfiles", v));
    return test_is_subfiled(path) && subfiles > asked && subfiles <= t_nprocs ? subfiles : asked;
}

static const char *info_value(colio_file *fh, const char *key, char *v)
{
    MPI_Info used;
    int flag = 0;
    colio_get_info(fh, &used);
    MPI_Info_get(used, key, 255, v, &flag);
    MPI_Info_free(&used);
    return flag ? v : "(unset)";
}

static void hints(const char *path)
{
    char v[256];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4k");
    MPI_Info_set(info, "cb_nodes", "999");
    MPI_Info_set(info, "romio_ds_write", "DISABLE");
    MPI_Info_set(info, "colio_meta_exchange", "spread");
    colio_file *fh = open_rw(path, MPI_MODE_RDWR, info);
    CHECK(strcmp(info_value(fh, "cb_buffer_size", v), "4096") == 0, "cb_buffer_size %s", v);
    char np[16];
    snprintf(np, sizeof np, "%d", t_nprocs);
    CHECK(strcmp(info_value(fh, "cb_nodes", v), np) == 0, "cb_nodes capped at nprocs: %s", v);
    CHECK(strcmp(info_value(fh, "romio_ds_write", v), "disable") == 0, "romio_ds_write %s", v);
    const char *env = getenv("COLIO_HINTS");
    if (env == NULL || strstr(env, "colio_exchange") == NULL)
        CHECK(strcmp(info_value(fh, "colio_exchange", v), "auto") == 0, "colio_exchange defaults to auto: %s", v);
    if (env == NULL || strstr(env, "colio_meta_exchange") == NULL)
        CHECK(strcmp(info_value(fh, "colio_meta_exchange", v), "spread") == 0, "colio_meta_exchange %s", v);
    MPI_Info_set(info, "cb_nodes", "1");
    CHECK_RC(colio_set_info(fh, info), COLIO_SUCCESS, fh);
    CHECK(atoi(info_value(fh, "cb_nodes", v)) == aggs_expected(fh, path, 1), "set_info cb_nodes %s", v);
    colio_close(&fh);
    save_env_hints();
    setenv("COLIO_HINTS", "cb_buffer_size=8192; cb_nodes = 2 ;", 1);
    fh = open_rw(path, MPI_MODE_RDWR, info);
    CHECK(strcmp(info_value(fh, "cb_buffer_size", v), "8192") == 0, "COLIO_HINTS must win over MPI_Info: %s", v);
    snprintf(np, sizeof np, "%d", aggs_expected(fh, path, t_nprocs < 2 ? t_nprocs : 2));
    CHECK(strcmp(info_value(fh, "cb_nodes", v), np) == 0, "COLIO_HINTS cb_nodes: %s", v);
    colio_close(&fh);
    restore_env_hints();
    MPI_Info_free(&info);
}

/* Statistics, the direct path, and JSON lines. */
static void stats_and_paths(const char *path)
{
    char jpath[600];
    snprintf(jpath, sizeof jpath, "%s.stats.jsonl", path);
    if (t_rank == 0)
        unlink(jpath);
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t big = 2 << 20;
    char *buf = malloc((size_t)big);
    for (int64_t i = 0; i < big; i++)
        buf[i] = (char)pattern_new(t_rank, i, 9);
    const char *modes_[] = {"automatic", "true"};
    for (int m = 0; m < 2; m++) {
        test_prefill(path, 0);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "colio_stats", jpath);
        MPI_Info_set(info, "romio_no_indep_rw", m ? "true" : "false");
        colio_file *fh = open_rw(path, MPI_MODE_RDWR, info);
        CHECK_RC(tu_write_at_all(fh, big * t_rank, buf, big, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        colio_stats s;
        colio_get_stats(fh, &s);
        CHECK(s.operations == 1 && s.last.bytes == big, "stats: %lld ops, %lld bytes", (long long)s.operations,
              (long long)s.last.bytes);
        if (m == 0)
            CHECK(s.last.aggregators == 0 && s.last.io_bytes == big, "large contiguous accesses go direct (%d aggregators)",
                  s.last.aggregators);
        else
            CHECK(s.last.aggregators >= 1 && s.last.rounds >= 1, "romio_no_indep_rw forces aggregation (%s)", modes_[m]);
        colio_close(&fh);
        MPI_Info_free(&info);
        int64_t bad = 0;
        if (t_rank == 0) {
            char *file = malloc((size_t)big * t_nprocs);
            test_read_file(path, (unsigned char *)file, big * t_nprocs);
            for (int64_t x = 0; x < big * t_nprocs; x++)
                bad += (unsigned char)file[x] != pattern_new((int)(x / big), x % big, 9);
            free(file);
        }
        CHECK(bad == 0, "%lld wrong bytes (%s)", (long long)bad, modes_[m]);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        FILE *f = fopen(jpath, "r");
        int lines = 0, ok = 1;
        char line[4096];
        while (f && fgets(line, sizeof line, f)) {
            lines++;
            ok &= line[0] == '{' && (strstr(line, "\"op\":\"colio_write_at_all\"") || strstr(line, "\"op\":\"colio_iwrite_at_all\"")) && strstr(line, "\"data_exchange\":");
        }
        if (f)
            fclose(f);
        CHECK(lines == 2 * t_nprocs && ok, "stats JSON lines: %d (expected %d), well-formed %d", lines, 2 * t_nprocs, ok);
        unlink(jpath);
    }
}

/* Zero-size calls everywhere, and rounds of one byte. */
static void edge_sizes(const char *path)
{
    test_prefill(path, 400);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1");
    MPI_Info_set(info, "romio_cb_write", "enable");
    colio_file *fh = open_rw(path, MPI_MODE_RDWR, info);
    CHECK_RC(tu_write_all(fh, NULL, 0, MPI_INT, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK_RC(tu_write_list_all(fh, 0, NULL, NULL, NULL), COLIO_SUCCESS, fh);
    MPI_Offset off[3] = {300 - 3 * t_rank, 10 + 7 * t_rank, 200 + t_rank}, len[3] = {1, 2, 1};
    unsigned char d[4] = {(unsigned char)(t_rank + 1), 0xA0, 0xA1, 0xB0};
    CHECK_RC(tu_write_list_all(fh, 3, off, len, d), COLIO_SUCCESS, fh);
    colio_stats s;
    colio_get_stats(fh, &s);
    CHECK(s.last.rounds >= 1, "one-byte rounds: %lld", (long long)s.last.rounds);
    colio_close(&fh);
    MPI_Info_free(&info);
    if (t_rank == 0) {
        unsigned char file[400];
        test_read_file(path, file, 400);
        int bad = 0;
        for (int x = 0; x < 400; x++) {
            unsigned char want = pattern_old(x);
            for (int r = 0; r < t_nprocs; r++) {
                if (x == 300 - 3 * r)
                    want = (unsigned char)(r + 1);
                if (x == 10 + 7 * r)
                    want = 0xA0;
                if (x == 11 + 7 * r)
                    want = 0xA1;
                if (x == 200 + r)
                    want = 0xB0;
            }
            bad += file[x] != want;
        }
        CHECK(bad == 0, "one-byte rounds: %d wrong bytes", bad);
    }
}

/*
 * Every rank reads (and then writes) the same strided bytes: overlapping
 * requests that all go to one aggregator, staged, more of them than one
 * collective buffer holds.
 */
static const char *info_value(colio_file *fh, const char *key, char *v);

static void overlapping_ranks(const char *path)
{
    int64_t size = 6000;
    test_prefill(path, size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "1000");
    colio_file *fh = open_rw(path, MPI_MODE_RDWR, info);
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_BYTE, 0, 2, &every_other);
    MPI_Type_commit(&every_other);
    colio_set_view(fh, 0, MPI_BYTE, every_other, MPI_INFO_NULL);
    unsigned char buf[3000];
    CHECK_RC(tu_read_all(fh, buf, 3000, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    int bad = 0;
    for (int i = 0; i < 3000; i++)
        bad += buf[i] != pattern_old(2 * i);
    CHECK(bad == 0, "overlapping strided reads: %d wrong bytes", bad);
    for (int i = 0; i < 3000; i++)
        buf[i] = (unsigned char)(i * 5 + 1); /* the same content on every rank */
    CHECK_RC(tu_write_at_all(fh, 0, buf, 3000, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    colio_close(&fh);
    MPI_Info_free(&info);
    MPI_Type_free(&every_other);
    if (t_rank == 0) {
        unsigned char file[6000];
        test_read_file(path, file, size);
        bad = 0;
        for (int x = 0; x < size; x++)
            bad += file[x] != (x % 2 ? pattern_old(x) : (unsigned char)((x / 2) * 5 + 1));
        CHECK(bad == 0, "overlapping identical writes: %d wrong bytes", bad);
    }
}

/* Info passed to set_view on some ranks only (MPI allows it); MPI_BOTTOM buffers. */
static void view_info_and_bottom(const char *path)
{
    test_prefill(path, 100);
    colio_file *fh = open_rw(path, MPI_MODE_RDWR, MPI_INFO_NULL);
    MPI_Info info = MPI_INFO_NULL;
    if (t_rank % 2) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "cb_buffer_size", "64k");
        MPI_Info_set(info, "colio_backend", "fault"); /* chosen at open: ignored here */
    }
    CHECK_RC(colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, info), COLIO_SUCCESS, fh);
    char v[256];
    CHECK(strcmp(info_value(fh, "colio_backend", v), "posix") == 0, "backend stays as opened: %s", v);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    /* a struct of absolute addresses written from MPI_BOTTOM */
    int a = 1000 + t_rank;
    double b = 0.5 + t_rank;
    int bl[2] = {1, 1};
    MPI_Aint d[2];
    MPI_Get_address(&a, &d[0]);
    MPI_Get_address(&b, &d[1]);
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, abs_t;
    MPI_Type_create_struct(2, bl, d, ts, &abs_t);
    MPI_Type_commit(&abs_t);
    CHECK_RC(tu_write_at_all(fh, 12 * t_rank, MPI_BOTTOM, 1, abs_t, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    a = 0, b = 0;
    CHECK_RC(tu_read_at_all(fh, 12 * t_rank, MPI_BOTTOM, 1, abs_t, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(a == 1000 + t_rank && b == 0.5 + t_rank, "MPI_BOTTOM round trip: %d %g", a, b);
    colio_close(&fh);
    MPI_Type_free(&abs_t);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "semantics");
    overlapping_ranks(path);
    view_info_and_bottom(path);
    status_and_eof(path);
    file_pointer_and_rw(path);
    modes(path);
    hints(path);
    stats_and_paths(path);
    edge_sizes(path);
    test_unlink(path);
    return test_finish("test_semantics");
}
