/*
 * Errors are collective and clear: bad input on one rank or all, invalid
 * hints, bad datatypes and views, access-mode violations, a real ENOSPC
 * (/dev/full) and injected EIO/ENOSPC failures of one rank's storage calls.
 * Every case checks that all ranks return the same named code with the same
 * non-empty message, that nothing hangs, that the handle keeps working and
 * that no byte outside what the call was asked to write changed. Failures in
 * a middle round of a many-round operation, written or read ahead by the I/O
 * helper (colio_pipeline=2), read as they do with one buffer, and no round
 * after the failing one reaches the file.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

static MPI_Info info1(const char *k, const char *v)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, k, v);
    return info;
}

static void open_errors(const char *path)
{
    colio_file *fh = (colio_file *)0x1;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, NULL);
    CHECK(rc == COLIO_ERR_ARG, "NULL handle pointer: %d", rc);

    const char *bad[][2] = {{"cb_buffer_size", "-5"}, {"cb_nodes", "abc"}, {"romio_cb_write", "sometimes"},
                            {"colio_exchange", "no-such-kernel"}, {"striping_unit", "12x"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        MPI_Info info = info1(bad[i][0], bad[i][1]);
        rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
        expect_all(rc, COLIO_ERR_HINT, NULL, bad[i][0], bad[i][0]);
        CHECK(fh == NULL, "handle not NULL after a failed open");
        MPI_Info_free(&info);
    }
    /* an invalid value on one rank only fails everyone */
    MPI_Info info = info1("cb_nodes", t_rank == t_nprocs - 1 ? "0" : "1");
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    expect_all(rc, COLIO_ERR_HINT, NULL, "one rank's bad hint", NULL);
    MPI_Info_free(&info);
    /* unknown keys are ignored */
    info = info1("no_such_hint", "whatever");
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "unknown hint", NULL);
    colio_close(&fh);
    MPI_Info_free(&info);

    save_env_hints();
    setenv("COLIO_HINTS", "cb_buffer_size=1k;cb_nodes=many", 1);
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_HINT, NULL, "COLIO_HINTS bad value", NULL);
    restore_env_hints();

    char missing[600];
    snprintf(missing, sizeof missing, "%s.does-not-exist", path);
    rc = colio_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_NOENT, NULL, "missing file", NULL);
    CHECK(strstr(colio_last_open_error(), "does-not-exist") != NULL, "message names the path: %s", colio_last_open_error());
    snprintf(missing, sizeof missing, "%s.no-dir/file", path);
    rc = colio_open(MPI_COMM_WORLD, missing, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_NOENT, NULL, "missing directory", NULL);
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_EXIST, NULL, "EXCL on an existing file", NULL);
    rc = colio_open(MPI_COMM_WORLD, "/", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_BAD_FILE, NULL, "a directory", NULL);
    rc = colio_open(MPI_COMM_WORLD, "", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_BAD_FILE, NULL, "empty path", NULL);
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_AMODE, NULL, "RDONLY|WRONLY", NULL);
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_AMODE, NULL, "RDONLY|CREATE", NULL);
    if (t_nprocs > 1) {
        rc = colio_open(MPI_COMM_WORLD, path, t_rank ? MPI_MODE_RDONLY : MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        expect_all(rc, COLIO_ERR_NOT_SAME, NULL, "amode differs", "amode");
    }
    rc = colio_open(MPI_COMM_NULL, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(rc == COLIO_ERR_ARG, "MPI_COMM_NULL: %d", rc);
    CHECK(colio_close(NULL) == COLIO_ERR_ARG, "close(NULL)");
    fh = NULL;
    CHECK(colio_close(&fh) == COLIO_ERR_ARG, "close of a NULL handle");
}

/* After an error the handle must still work: write 4 bytes per rank and verify. */
static void still_works(colio_file *fh, const char *path, const char *what)
{
    unsigned char b[4] = {1, 2, 3, (unsigned char)t_rank};
    MPI_Offset off = 50000 + 4 * t_rank, len = 4;
    int rc = tu_write_list_all(fh, 1, &off, &len, b);
    expect_all(rc, COLIO_SUCCESS, fh, what, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char got[4];
    CHECK(test_pread(path, got, 4, off) == 4 && memcmp(got, b, 4) == 0, "%s: handle no longer writes correctly",
          what);
}

/*
 * A filetype whose data reaches past its extent (MPI libraries build such
 * types: Open MPI keeps a resized member's bounds inside a struct, and
 * PnetCDF's and HDF5's views have them): accepted, an access within one
 * tile is exact, one across overlapping tiles is COLIO_ERR_UNSUPPORTED
 * everywhere (a limit of colio's: the drop-in hands such calls to MPI-IO).
 */
static void spilling_filetype(colio_file *fh, const char *path)
{
    int bl[2] = {4, 4};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype two, spill;
    MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &two);
    MPI_Type_create_resized(two, 0, 8, &spill); /* data in [0, 12), extent 8 */
    MPI_Type_commit(&spill);
    MPI_Type_free(&two);
    MPI_Offset base = 40000 + 16 * t_rank;
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(0xA0 + 8 * t_rank + i);
    int rc = colio_set_view(fh, base, MPI_BYTE, spill, MPI_INFO_NULL);
    expect_all(rc, COLIO_SUCCESS, fh, "filetype spilling past its extent", NULL);
    rc = tu_write_at_all(fh, 0, b, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_SUCCESS, fh, "write within one spilling tile", NULL);
    rc = tu_write_at_all(fh, 4, b, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_UNSUPPORTED, fh, "write across overlapping tiles", "overlap");
    colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
    MPI_Type_free(&spill);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char got[12];
    int back = test_pread(path, got, 12, base) == 12;
    CHECK(back, "spilling tile: cannot read back");
    for (int i = 0; back && i < 12; i++) {
        int want = i < 4 ? b[i] : i < 8 ? pattern_old(base + i) : b[i - 4];
        CHECK(got[i] == want, "spilling tile: byte %d is %d, expected %d", i, got[i], want);
    }
}

static void argument_errors(const char *path)
{
    test_prefill(path, 60000);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "open", NULL);
    char buf[64] = {0};
    int last = t_rank == t_nprocs - 1;

    rc = tu_write_all(fh, last ? NULL : buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_ARG, fh, "NULL buffer on one rank", "NULL");
    rc = tu_write_all(fh, buf, last ? -1 : 8, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_ARG, fh, "negative count on one rank", "negative");
    rc = tu_write_at_all(fh, last ? -3 : 0, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_ARG, fh, "negative offset", NULL);
    MPI_Datatype unc;
    MPI_Type_contiguous(4, MPI_INT, &unc);
    rc = tu_write_all(fh, buf, 1, last ? unc : MPI_INT, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_TYPE, fh, "uncommitted memtype", "memtype");
    rc = tu_read_all(fh, buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_TYPE, fh, "MPI_DATATYPE_NULL", NULL);
    MPI_Offset off[2] = {10, 20}, len[2] = {4, -1};
    rc = tu_write_list_all(fh, 2, off, len, buf);
    expect_all(rc, COLIO_ERR_ARG, fh, "negative length", NULL);
    rc = tu_write_list_all(fh, last ? -1 : 0, NULL, NULL, NULL);
    expect_all(rc, COLIO_ERR_ARG, fh, "negative piece count", NULL);
    rc = tu_read_list_all(fh, 2, NULL, len, buf);
    expect_all(rc, COLIO_ERR_ARG, fh, "NULL offsets", NULL);
    still_works(fh, path, "after argument errors");

    /* views: negative displacement in the filetype, overlap, partial etypes, uncommitted */
    int bl[2] = {1, 1};
    MPI_Aint neg[2] = {-4, 8}, ovl[2] = {0, 2};
    MPI_Datatype tneg, tovl, tint;
    MPI_Type_create_hindexed(2, bl, neg, MPI_INT, &tneg);
    MPI_Type_create_hindexed(2, bl, ovl, MPI_INT, &tovl);
    MPI_Type_commit(&tneg);
    MPI_Type_commit(&tovl);
    MPI_Type_contiguous(3, MPI_BYTE, &tint);
    MPI_Type_commit(&tint);
    rc = colio_set_view(fh, 0, MPI_BYTE, last ? tneg : MPI_BYTE, MPI_INFO_NULL);
    expect_all(rc, COLIO_ERR_TYPE, fh, "negative filetype displacement", "negative");
    rc = colio_set_view(fh, 0, MPI_BYTE, tovl, MPI_INFO_NULL);
    expect_all(rc, COLIO_ERR_TYPE, fh, "overlapping filetype", "overlap");
    rc = colio_set_view(fh, 0, MPI_INT, tint, MPI_INFO_NULL);
    expect_all(rc, COLIO_ERR_TYPE, fh, "filetype not whole etypes", "multiple");
    rc = colio_set_view(fh, 0, MPI_BYTE, unc, MPI_INFO_NULL);
    expect_all(rc, COLIO_ERR_TYPE, fh, "uncommitted filetype", "filetype");
    rc = colio_set_view(fh, -1, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
    expect_all(rc, COLIO_ERR_ARG, fh, "negative displacement", NULL);
    if (t_nprocs > 1) {
        rc = colio_set_view(fh, 0, t_rank ? MPI_INT : MPI_SHORT, MPI_INT, MPI_INFO_NULL);
        expect_all(rc, COLIO_ERR_NOT_SAME, fh, "etype size differs", "etype");
    }
    rc = colio_set_view(fh, 0, MPI_INT, MPI_INT, MPI_INFO_NULL);
    expect_all(rc, COLIO_SUCCESS, fh, "valid view", NULL);
    rc = tu_write_all(fh, buf, 6, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_TYPE, fh, "partial etype", "etype");
    colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
    still_works(fh, path, "after view errors");

    spilling_filetype(fh, path);

    MPI_Info info = info1("cb_buffer_size", "-5");
    rc = colio_set_info(fh, info);
    expect_all(rc, COLIO_ERR_HINT, fh, "set_info bad value", "cb_buffer_size");
    MPI_Info_free(&info);
    MPI_Info used;
    colio_get_info(fh, &used);
    char v[64];
    int flag;
    MPI_Info_get(used, "cb_buffer_size", 63, v, &flag);
    CHECK(flag && strcmp(v, "16777216") == 0, "hints changed by a failed set_info: %s", v);
    MPI_Info_free(&used);
    still_works(fh, path, "after set_info error");
    colio_close(&fh);

    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    rc = tu_write_all(fh, buf, 4, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_READONLY, fh, "write on a read-only handle", "read-only");
    colio_close(&fh);
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    rc = tu_read_all(fh, buf, 4, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_ACCESS, fh, "read on a write-only handle", "write-only");
    colio_close(&fh);
    MPI_Type_free(&unc), MPI_Type_free(&tneg), MPI_Type_free(&tovl), MPI_Type_free(&tint);
}

/* A real ENOSPC: /dev/full, collective and direct paths. */
static void enospc(void)
{
    struct stat sb;
    if (stat("/dev/full", &sb) != 0)
        return;
    const char *hints[] = {"enable", "disable"};
    for (int i = 0; i < 2; i++) {
        MPI_Info info = info1("romio_cb_write", hints[i]);
        colio_file *fh;
        int rc = colio_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, info, &fh);
        expect_all(rc, COLIO_SUCCESS, fh, "open /dev/full", NULL);
        char buf[4096];
        memset(buf, 7, sizeof buf);
        rc = tu_write_at_all(fh, 4096 * t_rank, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_all(rc, COLIO_ERR_NOSPC, fh, "write to /dev/full", "/dev/full");
        /* the handle still agrees on later calls */
        rc = tu_write_at_all(fh, 0, buf, 0, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_all(rc, COLIO_SUCCESS, fh, "empty write after ENOSPC", NULL);
        colio_close(&fh);
        MPI_Info_free(&info);
    }
}

/*
 * Hints for the fault backend with spec (a format with one %d: the last
 * rank), aggregation as cb (enable/disable), one aggregator per rank (one
 * node: aggregator i is rank i) and cb_size-byte rounds.
 */
static MPI_Info fault_info(const char *spec_fmt, const char *cb, const char *cb_size, char *spec, size_t speclen)
{
    char nodes[16];
    snprintf(spec, speclen, spec_fmt, t_nprocs - 1);
    snprintf(nodes, sizeof nodes, "%d", t_nprocs);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_backend", "fault");
    MPI_Info_set(info, "colio_fault", spec);
    MPI_Info_set(info, "cb_nodes", nodes);
    MPI_Info_set(info, "cb_buffer_size", cb_size);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    return info;
}

/* One rank's Nth storage call fails: everyone reports it; other bytes are intact. */
static void injected(const char *path)
{
    struct {
        const char *spec, *cb;
        int code;
    } cases[] = {{"write:1:EIO:%d", "enable", COLIO_ERR_IO},     {"write:2:ENOSPC:%d", "enable", COLIO_ERR_NOSPC},
                 {"write:1:EDQUOT:%d", "disable", COLIO_ERR_QUOTA}, {"read:1:EIO:%d", "enable", COLIO_ERR_IO},
                 {"any:1:EBADF:%d", "disable", COLIO_ERR_IO},      {"write:1:EROFS:%d", "enable", COLIO_ERR_READONLY},
                 /* one piece per rank: express calls (engine/path_express.c) failing on one rank; the write's
                    pieces are staged where ranks share a node, and rank 0 writes them */
                 {"read:1:EIO:%d", "disable", COLIO_ERR_IO},       {"write:1:ENOSPC:0", "automatic", COLIO_ERR_NOSPC}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        test_prefill(path, 8192);
        char spec[64];
        MPI_Info info = fault_info(cases[c].spec, cases[c].cb, "256", spec, sizeof spec);
        colio_file *fh;
        int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
        expect_all(rc, COLIO_SUCCESS, fh, "open with the fault backend", NULL);
        /* each rank: 1 KiB at 1024*rank + 512, leaving [0, 512) and the tail untouched; the bytes at the same
           place in a page as in the file, so no copy runs at a slow shift and the one-piece cases run as
           express calls (a piece of 1 KiB at a slow shift goes through the direct path's bounce buffer) */
        static _Alignas(4096) char page[2 * 4096];
        char *buf = page + (512 + 1024 * t_rank) % 4096;
        memset(buf, 0x33, 1024);
        if (strncmp(spec, "read", 4) == 0)
            rc = tu_read_at_all(fh, 512 + 1024 * t_rank, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
        else
            rc = tu_write_at_all(fh, 512 + 1024 * t_rank, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_all(rc, cases[c].code, fh, spec, "rank");
        colio_close(&fh);
        MPI_Info_free(&info);
        if (t_rank == 0) {
            unsigned char file[8192];
            test_read_file(path, file, 8192);
            int bad = 0;
            for (int x = 0; x < 8192; x++) {
                int in_call = x >= 512 && x < 512 + 1024 * t_nprocs && strncmp(spec, "read", 4) != 0;
                if (!in_call && file[x] != pattern_old(x))
                    bad++;
                if (in_call && file[x] != 0x33 && file[x] != pattern_old(x))
                    bad++;
            }
            CHECK(bad == 0, "%s: %d bytes damaged outside the call or with foreign content", spec, bad);
        }
    }
    /* the largest offsets: the file system refuses (EFBIG), nothing hangs */
    colio_file *big;
    colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &big);
    MPI_Offset far = INT64_MAX - 4096 - 16 * t_rank, flen = 16;
    char junk[16] = {0};
    int frc = tu_write_list_all(big, 1, &far, &flen, junk); /* tmpfs takes it, ext4 says EFBIG */
    CHECK(frc == COLIO_SUCCESS || frc == COLIO_ERR_NOSPC, "offset near INT64_MAX: %s", colio_strerror(frc));
    expect_all(frc, frc, big, "offset near INT64_MAX", NULL);
    MPI_Info tiny;
    MPI_Info_create(&tiny);
    MPI_Info_set(tiny, "colio_typed_min", "9223372036854775807");
    expect_all(colio_set_info(big, tiny), COLIO_SUCCESS, big, "largest colio_typed_min", NULL);
    MPI_Info_free(&tiny);
    still_works(big, path, "after EFBIG");
    colio_close(&big);
    /* a failing sync */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_backend", "fault");
    MPI_Info_set(info, "colio_fault", "sync:1:EIO:0");
    colio_file *fh;
    colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    expect_all(colio_sync(fh), COLIO_ERR_IO, fh, "sync", "sync");
    expect_all(colio_sync(fh), COLIO_SUCCESS, fh, "second sync", NULL);
    colio_close(&fh);
    MPI_Info_free(&info);
}

#define PIPE_SHARE 16384 /* bytes per rank: 16 rounds of 1 KiB at each aggregator */
#define PIPE_START 512

/* Offset N in "... at offset N failed ..." of an error message, -1 if absent. */
static int64_t failed_offset(const char *msg)
{
    const char *at = strstr(msg, "at offset ");
    return at ? strtoll(at + strlen("at offset "), NULL, 10) : -1;
}

/* One many-round collective write or read with the last rank's 3rd storage call of that kind failing. */
static int pipe_call(const char *path, const char *kind, const char *pipeline, char *msg, size_t msglen)
{
    char fmt[32], spec[64];
    snprintf(fmt, sizeof fmt, "%s:3:EIO:%%d", kind);
    MPI_Info info = fault_info(fmt, "enable", "1024", spec, sizeof spec); /* domain i is rank i's bytes */
    MPI_Info_set(info, "colio_pipeline", pipeline);
    colio_file *fh;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "open with the fault backend", NULL);
    char *buf = malloc(PIPE_SHARE);
    memset(buf, 0x44, PIPE_SHARE);
    MPI_Offset off = PIPE_START + (MPI_Offset)PIPE_SHARE * t_rank;
    if (kind[0] == 'r')
        rc = colio_read_at_all(fh, off, buf, PIPE_SHARE, MPI_BYTE, MPI_STATUS_IGNORE);
    else
        rc = colio_write_at_all(fh, off, buf, PIPE_SHARE, MPI_BYTE, MPI_STATUS_IGNORE);
    char what[96];
    snprintf(what, sizeof what, "%s, colio_pipeline=%s", spec, pipeline);
    expect_all(rc, COLIO_ERR_IO, fh, what, "at offset");
    snprintf(msg, msglen, "%s", colio_last_error(fh));
    colio_close(&fh);
    MPI_Info_free(&info);
    free(buf);
    return rc;
}

/*
 * A write failing in a middle round: the bytes before the failing round are
 * written, the failing round and every later one are not (storage I/O stops
 * after a failure, even for rounds already handed to the I/O helper), and
 * the message, naming the failing call, is the same with one buffer or two.
 */
static void failure_mid_pipeline(const char *path)
{
    const int64_t end = PIPE_START + (int64_t)PIPE_SHARE * t_nprocs, size = end + 4096;
    const int64_t last_domain = PIPE_START + (int64_t)PIPE_SHARE * (t_nprocs - 1);
    char msg1[512], msg2[512];
    const char *kinds[] = {"write", "read"};
    for (int k = 0; k < 2; k++) {
        test_prefill(path, size);
        pipe_call(path, kinds[k], "1", msg1, sizeof msg1);
        test_prefill(path, size);
        pipe_call(path, kinds[k], "2", msg2, sizeof msg2);
        CHECK(strcmp(msg1, msg2) == 0, "%s: messages differ with one buffer and two:\n  %s\n  %s", kinds[k], msg1,
              msg2);
        int64_t x = failed_offset(msg2);
        CHECK(x == last_domain + 2 * 1024, "%s: failing offset %lld, expected the third round at %lld", kinds[k],
              (long long)x, (long long)(last_domain + 2 * 1024));
        if (t_rank != 0 || k == 1)
            continue;
        unsigned char *file = malloc((size_t)size);
        test_read_file(path, file, size);
        int64_t bad = 0;
        for (int64_t i = 0; i < size; i++) {
            int written = i >= PIPE_START && i < x;
            bad += file[i] != (written ? 0x44 : pattern_old(i));
        }
        CHECK(bad == 0, "write failing mid-way: %lld bytes wrong (before the failing round new, from it on old)",
              (long long)bad);
        free(file);
    }
}

static void strerror_texts(void)
{
    for (int c = 0; c >= COLIO_ERR_INTERNAL; c--)
        CHECK(colio_strerror(c)[0] != '\0' && strcmp(colio_strerror(c), "unknown colio error code") != 0,
              "code %d has no text", c);
    CHECK(strcmp(colio_strerror(-999), "unknown colio error code") == 0, "unknown code text");
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "errors");
    test_prefill(path, 100);
    strerror_texts();
    open_errors(path);
    argument_errors(path);
    enospc();
    injected(path);
    failure_mid_pipeline(path);
    test_unlink(path);
    return test_finish("test_errors");
}
