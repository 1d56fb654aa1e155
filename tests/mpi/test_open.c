/*
 * The open paths (src/api/file.c) and the duplicate files share
 * (src/api/comm_cache.c): a reopen's one agreement with its errors, amode
 * and hints checks; several files on one communicator written in turn and
 * closed in another order; the program freeing its communicator while files
 * stay open on the shared duplicate; a file with a one-sided window among
 * sharing files; many reopens; the duplicates closed files leave for later
 * opens' nonblocking calls, kept in different orders on different ranks. Expected bytes come from a formula and plain
 * pread.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { BLOCK = 37, ROUNDS = 3 };

/* Byte i of file k written by rank r at round j. */
static unsigned char byte_of(int k, int r, int j, int64_t i) { return pattern_new(r, i, 10 * k + j); }

/* Rank r's block of round j: interleaved with every other rank's. */
static int64_t block_off(int r, int j) { return ((int64_t)j * t_nprocs + r) * BLOCK; }

static void write_round(colio_file *fh, int k, int j)
{
    unsigned char buf[BLOCK];
    for (int64_t i = 0; i < BLOCK; i++)
        buf[i] = byte_of(k, t_rank, j, i);
    int rc = tu_write_at_all(fh, block_off(t_rank, j), buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
}

/* Rank 0: the whole file against the formula. */
static void verify(const char *path, int k, const char *what)
{
    if (t_rank != 0)
        return;
    int64_t size = (int64_t)ROUNDS * t_nprocs * BLOCK;
    unsigned char *got = malloc((size_t)size);
    CHECK(test_pread(path, got, size, 0) == size, "%s: file %d short", what, k);
    int64_t bad = 0;
    for (int j = 0; j < ROUNDS; j++)
        for (int r = 0; r < t_nprocs; r++)
            for (int64_t i = 0; i < BLOCK; i++)
                bad += got[block_off(r, j) + i] != byte_of(k, r, j, i);
    CHECK(bad == 0, "%s: file %d has %lld wrong bytes", what, k, (long long)bad);
    free(got);
}

static colio_file *open_on(MPI_Comm comm, const char *path, int amode, const char *hints)
{
    MPI_Info info = hints ? test_info(hints) : MPI_INFO_NULL;
    colio_file *fh = NULL;
    int rc = colio_open(comm, path, amode, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return fh;
}

/*
 * Three files on the program's own duplicate, the last with the rma kernel
 * (a duplicate of its own); rounds written in turn; the program frees its
 * communicator before the files are closed, in another order than opened.
 */
static void files_in_turn(const char *base)
{
    char path[3][512];
    MPI_Comm mine;
    MPI_Comm_dup(MPI_COMM_WORLD, &mine);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    /* Open MPI 4's one-sided pt2pt component refuses MPI_THREAD_MULTIPLE: the thread runs skip the window */
    const char *hints[3] = {NULL, "cb_nodes=1", level == MPI_THREAD_MULTIPLE ? "romio_cb_write=enable"
                                                                            : "colio_exchange=rma;romio_cb_write=enable"};
    colio_file *fh[3];
    for (int k = 0; k < 3; k++) {
        snprintf(path[k], sizeof path[k], "%.500s.%d", base, k);
        fh[k] = open_on(mine, path[k], MPI_MODE_CREATE | MPI_MODE_RDWR, hints[k]);
    }
    for (int j = 0; j < ROUNDS; j++)
        for (int k = 0; k < 3; k++)
            if (fh[k])
                write_round(fh[k], k, j);
    MPI_Comm_free(&mine);
    int order[3] = {1, 2, 0};
    for (int i = 0; i < 3; i++) {
        int k = order[i];
        if (fh[k]) {
            write_round(fh[k], k, 0); /* after the program's communicator is gone */
            CHECK_RC(colio_close(&fh[k]), COLIO_SUCCESS, NULL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        verify(path[k], k, "files in turn");
        test_unlink(path[k]);
    }
}

/* Reopens of an existing file (the quick way) alternate with writes: every reopen sees the last bytes. */
static void many_reopens(const char *path)
{
    colio_file *fh = open_on(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, NULL);
    if (fh)
        colio_close(&fh);
    for (int n = 0; n < 40; n++) {
        fh = open_on(MPI_COMM_WORLD, path, n % 2 ? MPI_MODE_RDWR : MPI_MODE_WRONLY, n % 3 ? NULL : "cb_nodes=1");
        if (fh == NULL)
            break;
        write_round(fh, 7, n % ROUNDS);
        CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    verify(path, 7, "many reopens");
}

/* Hints differing between ranks on a reopen: everyone takes rank 0's. */
static void differing_hints(const char *path)
{
    char hint[64];
    snprintf(hint, sizeof hint, "cb_buffer_size=%d", 4096 * (t_rank + 1));
    colio_file *fh = open_on(MPI_COMM_WORLD, path, MPI_MODE_RDWR, hint);
    if (fh == NULL)
        return;
    char value[64] = "";
    int found = 0;
    colio_get_hint(fh, "cb_buffer_size", value, sizeof value, &found);
    CHECK(found && strcmp(value, "4096") == 0, "cb_buffer_size %s, expected rank 0's 4096", value);
    write_round(fh, 8, 0);
    write_round(fh, 8, 1);
    write_round(fh, 8, 2);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    verify(path, 8, "differing hints");
}

/* Errors of a reopen, agreed: a path missing on one rank only; amode differing between ranks. */
static void reopen_errors(const char *path)
{
    char missing[600];
    snprintf(missing, sizeof missing, "%s.not-there", path);
    int last = t_nprocs - 1;
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, t_rank == last ? missing : path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_NOENT, NULL, "reopen, path missing on the last rank", "not-there");
    CHECK(fh == NULL, "failed open returned a handle");
    if (t_nprocs > 1) {
        rc = colio_open(MPI_COMM_WORLD, path, t_rank == 0 ? MPI_MODE_RDONLY : MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        expect_all(rc, COLIO_ERR_NOT_SAME, NULL, "reopen, amode differs", "amode");
        CHECK(fh == NULL, "failed open returned a handle");
    }
    /* and the next open on the communicator still works */
    fh = open_on(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, NULL);
    if (fh)
        CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
}

/* Round j of file k as one nonblocking collective write; the request is returned. */
static colio_request *iwrite_round(colio_file *fh, int k, int j, unsigned char *buf)
{
    for (int64_t i = 0; i < BLOCK; i++)
        buf[i] = byte_of(k, t_rank, j, i);
    colio_request *req = NULL;
    CHECK_RC(colio_iwrite_at_all(fh, block_off(t_rank, j), buf, BLOCK, MPI_BYTE, &req), COLIO_SUCCESS, fh);
    return req;
}

/*
 * Two files' nonblocking writes started in one order on even ranks and the
 * other on odd ranks (legal: different files), every round, then waited.
 */
static void crossed_writes(colio_file *c, int kc, colio_file *d, int kd)
{
    unsigned char bc[ROUNDS][BLOCK], bd[ROUNDS][BLOCK];
    colio_request *rc[ROUNDS], *rd[ROUNDS];
    for (int j = 0; j < ROUNDS; j++) {
        if (t_rank % 2 == 0) {
            rc[j] = iwrite_round(c, kc, j, bc[j]);
            rd[j] = iwrite_round(d, kd, j, bd[j]);
        } else {
            rd[j] = iwrite_round(d, kd, j, bd[j]);
            rc[j] = iwrite_round(c, kc, j, bc[j]);
        }
    }
    for (int j = 0; j < ROUNDS; j++) {
        CHECK_RC(colio_wait(&rc[j], MPI_STATUS_IGNORE), COLIO_SUCCESS, c);
        CHECK_RC(colio_wait(&rd[j], MPI_STATUS_IGNORE), COLIO_SUCCESS, d);
    }
}

/*
 * The duplicates closed files leave for later opens (api/comm_cache.h).
 * Files A and B are closed in different orders on even and odd ranks with
 * the open of C between (where files share a duplicate, colio's closes
 * pair across files), so at C's open the ranks keep different
 * duplicates (A's on even ranks, B's on odd ones) and must not take them;
 * then D's open finds both kept everywhere. C and D get crossed
 * nonblocking writes: were C's or D's duplicate not the same one on every
 * rank, their operations' messages would pair across files (two-phase
 * writes through one aggregator, so the bytes would land in the other
 * file). Then many
 * open / crossed writes / close cycles that reuse kept duplicates.
 */
static void kept_duplicates(const char *base)
{
#define TWO_PHASE "romio_cb_write=enable;cb_nodes=1" /* every rank's block through rank 0: messages cross */
    char path[4][512];
    colio_file *fh[4] = {NULL};
    for (int k = 0; k < 4; k++)
        snprintf(path[k], sizeof path[k], "%.500s.kept%d", base, k);
    fh[0] = open_on(MPI_COMM_WORLD, path[0], MPI_MODE_CREATE | MPI_MODE_RDWR, NULL);
    fh[1] = open_on(MPI_COMM_WORLD, path[1], MPI_MODE_CREATE | MPI_MODE_RDWR, NULL);
    if (!fh[0] || !fh[1])
        return;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    /* crossed closes only where files share a duplicate: on files of their own (MPI_THREAD_MULTIPLE) a close
       waits for the same file's close elsewhere, as in ROMIO */
    int first = level == MPI_THREAD_MULTIPLE ? 0 : t_rank % 2, second = 1 - first;
    CHECK_RC(colio_close(&fh[first]), COLIO_SUCCESS, NULL);
    fh[2] = open_on(MPI_COMM_WORLD, path[2], MPI_MODE_CREATE | MPI_MODE_RDWR, TWO_PHASE);
    CHECK_RC(colio_close(&fh[second]), COLIO_SUCCESS, NULL);
    fh[3] = open_on(MPI_COMM_WORLD, path[3], MPI_MODE_CREATE | MPI_MODE_RDWR, TWO_PHASE);
    if (!fh[2] || !fh[3])
        return;
    crossed_writes(fh[2], 2, fh[3], 3);
    CHECK_RC(colio_close(&fh[2]), COLIO_SUCCESS, NULL);
    CHECK_RC(colio_close(&fh[3]), COLIO_SUCCESS, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    verify(path[2], 2, "kept duplicates, first open after crossed closes");
    verify(path[3], 3, "kept duplicates, second open");
    for (int n = 0; n < 12; n++) {
        int kc = 20 + 2 * n, kd = kc + 1;
        fh[2] = open_on(MPI_COMM_WORLD, path[2], MPI_MODE_RDWR, n % 3 ? NULL : TWO_PHASE);
        fh[3] = open_on(MPI_COMM_WORLD, path[3], MPI_MODE_RDWR, n % 3 ? TWO_PHASE : NULL);
        if (!fh[2] || !fh[3])
            return;
        crossed_writes(fh[2], kc, fh[3], kd);
        CHECK_RC(colio_close(&fh[n % 2 ? 2 : 3]), COLIO_SUCCESS, NULL);
        CHECK_RC(colio_close(&fh[n % 2 ? 3 : 2]), COLIO_SUCCESS, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        verify(path[2], kc, "kept duplicates, reopened");
        verify(path[3], kd, "kept duplicates, reopened");
    }
    for (int k = 0; k < 4; k++)
        test_unlink(path[k]);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "open");
    files_in_turn(path);
    many_reopens(path);
    differing_hints(path);
    reopen_errors(path);
    kept_duplicates(path);
    test_unlink(path);
    return test_finish("test_open");
}
