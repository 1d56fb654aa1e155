/*
 * Early direct access (src/engine/direct.c, colio_direct_early): a rank
 * whose access is one contiguous piece moves it before the SETUP agreement
 * and joins the rest of the call with nothing left to move. Each case is
 * checked against an image computed here from a formula, with plain POSIX
 * reads of the file:
 *   1. every rank one piece (unequal sizes, one rank empty): the file, the
 *      counts, the bytes read back;
 *   2. hybrid: even ranks one piece, odd ranks many small pieces around
 *      those pieces (two-phase with read-modify-write of the holes in the
 *      same call): holes keep their old content, pieces hold theirs, and
 *      the same pattern read back;
 *   3. one-piece reads across and past the end of file: the count stops at
 *      it and the buffer past it is untouched;
 *   4. nonblocking, outstanding together: a one-piece write, an overlapping
 *      two-phase write issued after it, and a read of both: the later write
 *      wins and the read sees it (issue order), waited in reverse order;
 *   5. a call one rank gets wrong (negative count): the same error on every
 *      rank; that rank's bytes untouched;
 *   6. reads where rank 0's one piece goes early (so it does not look at
 *      the end of file) while the other ranks' many pieces cross it: the
 *      end of file still clips theirs (bytes past it untouched);
 *   7. agreements that fail (the `nodes` runs: two emulated nodes): a one-piece write whose SETUP
 *      agreement fails, and (staged pieces) one whose FINAL agreement
 *      fails: the same error and message on every rank; the next call is
 *      whole and its bytes land.
 * Blocking one-piece calls are express calls (src/engine/path_express.c) unless
 * colio_express is off; the cases then run again with express calls on
 * even ranks only (set on each rank's handle: hints are rank 0's), so each
 * call mixes them with ranks that run the steps; the statistics of a
 * one-piece call must read the same either way.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "engine/file.h"
#include "testutil.h"

static int mixed; /* odd ranks' handles run every call through the steps */

enum { BLOCK = 1000, PIECE_AT = 100, PIECE_LEN = 300, SMALL = 8, SMALL_STEP = 16, SMALLS = 20 };

static unsigned char byte_of(int rank, int64_t off, int salt) { return pattern_new(rank, off, salt); }

static colio_file *open_file(const char *path)
{
    colio_file *fh = NULL;
    MPI_Info info = test_info(NULL);
    test_rotate_info(info);
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    if (mixed && t_rank % 2 == 1)
        fh->hints.express = 0; /* this rank's alone: colio_express is rank 0's for every rank */
    return fh;
}

/*
 * The last call's statistics: a call of asked bytes that moved len of them
 * (a read ending at the end of file) as one piece, early or staged, and as
 * an express call wherever this rank's handle allows them.
 */
static void expect_one_piece_stats(colio_file *fh, int64_t asked, int64_t len, const char *what)
{
    colio_stats st;
    CHECK_RC(colio_get_stats(fh, &st), COLIO_SUCCESS, fh);
    const colio_op_stats *s = &st.last;
    int staged = strcmp(s->strategy, "staged") == 0;
    CHECK(s->bytes == len && s->pieces == (len > 0) && (staged || strcmp(s->strategy, asked ? "early" : "none") == 0),
          "%s: statistics bytes %lld pieces %lld strategy %s, expected %lld, %d, early", what, (long long)s->bytes,
          (long long)s->pieces, s->strategy, (long long)len, len > 0);
    CHECK(staged || asked == 0 || (s->io_calls == 1 && s->io_bytes == len), "%s: %lld storage calls of %lld bytes",
          what, (long long)s->io_calls, (long long)s->io_bytes);
    int express = asked > 0 && fh->hints.express;
    CHECK(s->express == express, "%s: express %lld, expected %d", what, (long long)s->express, express);
    /* an express call's phases lie within it: its storage calls and agreements add up to no more than its time,
       and what came before its storage call or staging (finding and checking the piece) is compute */
    const colio_phase_times *t = &s->time;
    CHECK(!express || (t->io >= 0 && t->meta_exchange >= 0 && t->compute > 0 &&
                       fabs(t->compute - (t->total - t->io - t->meta_exchange - t->data_exchange)) < 1e-9),
          "%s: times total %g io %g meta %g compute %g", what, t->total, t->io, t->meta_exchange, t->compute);
}

static void old_image(unsigned char *image, int64_t size)
{
    for (int64_t x = 0; x < size; x++)
        image[x] = pattern_old(x);
}

/* 1. One piece per rank: rank r writes 50 + 37 r bytes at r * BLOCK + 10 (the last rank of 3+ nothing). */
static int64_t one_piece_len(int r) { return t_nprocs > 2 && r == t_nprocs - 1 ? 0 : 50 + 37 * r; }

static void every_rank_one_piece(const char *path)
{
    int64_t size = (int64_t)t_nprocs * BLOCK;
    test_prefill(path, size);
    unsigned char *image = malloc((size_t)size), buf[BLOCK], back[BLOCK];
    old_image(image, size);
    for (int r = 0; r < t_nprocs; r++)
        for (int64_t i = 0; i < one_piece_len(r); i++)
            image[r * BLOCK + 10 + i] = byte_of(r, i, 1);
    int64_t len = one_piece_len(t_rank), off = (int64_t)t_rank * BLOCK + 10;
    for (int64_t i = 0; i < len; i++)
        buf[i] = byte_of(t_rank, i, 1);
    colio_file *fh = open_file(path);
    MPI_Status st;
    int count = -1;
    CHECK_RC(tu_write_at_all(fh, off, buf, len, MPI_BYTE, &st), COLIO_SUCCESS, fh);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == len, "one piece write: count %d, expected %lld", count, (long long)len);
    if (!tu_nonblocking())
        expect_one_piece_stats(fh, len, len, "one piece write");
    memset(back, 0xEE, sizeof back);
    CHECK_RC(tu_read_at_all(fh, off, back, len, MPI_BYTE, &st), COLIO_SUCCESS, fh);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == len && memcmp(back, buf, (size_t)len) == 0 && back[len] == 0xEE,
          "one piece read: count %d, expected %lld, bytes %s", count, (long long)len,
          memcmp(back, buf, (size_t)len) == 0 ? "right" : "wrong");
    if (!tu_nonblocking())
        expect_one_piece_stats(fh, len, len, "one piece read");
    colio_close(&fh);
    test_check_file(path, image, size, "every rank one piece");
    free(image);
}

/* 2. Hybrid: even rank r one piece in its block; odd rank r small pieces in block r-1 and its own. */
static int hybrid_list(int r, MPI_Offset *off, MPI_Offset *len)
{
    if (r % 2 == 0) {
        off[0] = (MPI_Offset)r * BLOCK + PIECE_AT, len[0] = PIECE_LEN;
        return 1;
    }
    int n = 0;
    for (int b = r - 1; b <= r; b++)
        for (int k = 0; k < SMALLS; k++, n++) /* in the even block: after its piece, holes between */
            off[n] = (MPI_Offset)b * BLOCK + PIECE_AT + PIECE_LEN + 50 + k * SMALL_STEP, len[n] = SMALL;
    return n;
}

static void hybrid(const char *path)
{
    int64_t size = (int64_t)t_nprocs * BLOCK;
    test_prefill(path, size);
    unsigned char *image = malloc((size_t)size), buf[2 * BLOCK], back[2 * BLOCK];
    MPI_Offset off[2 * SMALLS], len[2 * SMALLS];
    old_image(image, size);
    for (int r = 0; r < t_nprocs; r++) {
        int n = hybrid_list(r, off, len);
        for (int p = 0, at = 0; p < n; p++)
            for (int64_t i = 0; i < len[p]; i++, at++)
                image[off[p] + i] = byte_of(r, at, 2);
    }
    int n = hybrid_list(t_rank, off, len), bytes = 0;
    for (int p = 0; p < n; p++)
        bytes += (int)len[p];
    for (int i = 0; i < bytes; i++)
        buf[i] = byte_of(t_rank, i, 2);
    colio_file *fh = open_file(path);
    CHECK_RC(tu_write_list_all(fh, n, off, len, buf), COLIO_SUCCESS, fh);
    memset(back, 0xEE, sizeof back);
    CHECK_RC(tu_read_list_all(fh, n, off, len, back), COLIO_SUCCESS, fh);
    CHECK(memcmp(back, buf, (size_t)bytes) == 0, "hybrid read: wrong bytes");
    colio_close(&fh);
    test_check_file(path, image, size, "hybrid one piece and two-phase");
    free(image);
}

/* 3. Rank r reads 100 bytes at 900 + 50 r of a 1000-byte file. */
static void reads_at_end(const char *path)
{
    test_prefill(path, 1000);
    colio_file *fh = open_file(path);
    unsigned char back[200];
    memset(back, 0xEE, sizeof back);
    int64_t off = 900 + 50 * (int64_t)t_rank, want = off >= 1000 ? 0 : (1000 - off < 100 ? 1000 - off : 100);
    MPI_Status st;
    int count = -1;
    CHECK_RC(tu_read_at_all(fh, off, back, 100, MPI_BYTE, &st), COLIO_SUCCESS, fh);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == want, "read at %lld across the end: count %d, expected %lld", (long long)off, count,
          (long long)want);
    int ok = 1;
    for (int64_t i = 0; i < 200; i++)
        ok &= back[i] == (i < want ? pattern_old(off + i) : 0xEE);
    CHECK(ok, "read at %lld across the end: bytes wrong or the buffer past the end touched", (long long)off);
    if (!tu_nonblocking())
        expect_one_piece_stats(fh, 100, want, "read across the end");
    colio_close(&fh);
}

/* 4. Outstanding together: A (one piece per rank), B (every rank's small pieces over all of A), a read of A's range. */
static void nonblocking_order(const char *path)
{
    int64_t size = (int64_t)t_nprocs * BLOCK;
    test_prefill(path, size);
    unsigned char *image = malloc((size_t)size), a[BLOCK], b[BLOCK], back[BLOCK];
    old_image(image, size);
    int64_t a_off = (int64_t)t_rank * BLOCK, a_len = BLOCK / 2;
    MPI_Offset off[SMALLS], len[SMALLS];
    for (int k = 0; k < SMALLS; k++) /* rank r's k-th piece: byte k*SMALL_STEP+r*... of every block */
        off[k] = (MPI_Offset)(k % t_nprocs) * BLOCK + (k / t_nprocs) * SMALL_STEP * t_nprocs + t_rank * SMALL_STEP,
        len[k] = SMALL;
    for (int r = 0; r < t_nprocs; r++)
        for (int64_t i = 0; i < a_len; i++)
            image[(int64_t)r * BLOCK + i] = byte_of(r, i, 3);
    for (int r = 0; r < t_nprocs; r++)
        for (int k = 0, at = 0; k < SMALLS; k++)
            for (int64_t i = 0; i < SMALL; i++, at++)
                image[(int64_t)(k % t_nprocs) * BLOCK + (k / t_nprocs) * SMALL_STEP * t_nprocs + r * SMALL_STEP + i] =
                    byte_of(r, at, 4);
    for (int i = 0; i < BLOCK; i++)
        a[i] = byte_of(t_rank, i, 3), b[i] = byte_of(t_rank, i, 4);
    memset(back, 0xEE, sizeof back);
    colio_file *fh = open_file(path);
    colio_request *req[3];
    CHECK_RC(colio_iwrite_at_all(fh, a_off, a, a_len, MPI_BYTE, &req[0]), COLIO_SUCCESS, fh);
    CHECK_RC(colio_iwrite_list_all(fh, SMALLS, off, len, b, &req[1]), COLIO_SUCCESS, fh);
    CHECK_RC(colio_iread_at_all(fh, a_off, back, a_len, MPI_BYTE, &req[2]), COLIO_SUCCESS, fh);
    for (int i = 2; i >= 0; i--)
        CHECK_RC(colio_wait(&req[i], MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(memcmp(back, image + a_off, (size_t)a_len) == 0, "the read issued last missed an earlier write");
    colio_close(&fh);
    test_check_file(path, image, size, "nonblocking issue order");
    free(image);
}

/* 5. The last rank passes a negative count; the others one piece each. */
static void one_rank_wrong(const char *path)
{
    int64_t size = (int64_t)t_nprocs * BLOCK;
    test_prefill(path, size);
    colio_file *fh = open_file(path);
    unsigned char buf[100];
    memset(buf, 0x5A, sizeof buf);
    int wrong = t_rank == t_nprocs - 1;
    int rc = colio_write_at_all(fh, (MPI_Offset)t_rank * BLOCK, buf, wrong ? -1 : 100, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_ARG, fh, "one rank's negative count", "negative count");
    colio_close(&fh);
    if (wrong) {
        unsigned char got[100];
        CHECK(test_pread(path, got, 100, (int64_t)t_rank * BLOCK) == 100, "read back");
        for (int i = 0; i < 100; i++)
            if (got[i] != pattern_old((int64_t)t_rank * BLOCK + i)) {
                CHECK(0, "the failing rank's byte %d changed", i);
                break;
            }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the next case rewrites the file */
}

/* 6. File of 1000 bytes; rank 0 reads [0, 100); rank r > 0 reads 8 of every 16 bytes of [900, 1100). */
static void early_rank0_others_cross_end(const char *path)
{
    test_prefill(path, 1000);
    colio_file *fh = open_file(path);
    MPI_Offset off[SMALLS], len[SMALLS];
    unsigned char back[SMALLS * SMALL];
    int n = t_rank == 0 ? 1 : 200 / SMALL_STEP;
    for (int k = 0; k < n; k++)
        off[k] = t_rank == 0 ? 0 : 900 + k * SMALL_STEP + (t_rank - 1) % 2, len[k] = t_rank == 0 ? 100 : SMALL;
    memset(back, 0xEE, sizeof back);
    CHECK_RC(tu_read_list_all(fh, n, off, len, back), COLIO_SUCCESS, fh);
    int ok = 1;
    for (int k = 0, at = 0; k < n; k++)
        for (int64_t i = 0; i < len[k]; i++, at++)
            ok &= back[at] == (off[k] + i < 1000 ? pattern_old(off[k] + i) : 0xEE);
    CHECK(ok, "rank 0 early, others across the end of file: wrong bytes or bytes past the end touched");
    colio_close(&fh);
}

/* Every rank's one piece of write number salt: PIECE_LEN bytes at PIECE_AT in its block. */
static int write_own_piece(colio_file *fh, int salt)
{
    unsigned char buf[PIECE_LEN];
    int64_t at = (int64_t)t_rank * BLOCK + PIECE_AT;
    for (int i = 0; i < PIECE_LEN; i++)
        buf[i] = byte_of(t_rank, at + i, salt);
    return colio_write_at_all(fh, at, buf, PIECE_LEN, MPI_BYTE, MPI_STATUS_IGNORE);
}

/*
 * This rank's block as plain reads see it: the old content around its piece, the piece in write
 * salt a's or salt b's bytes (a failed call may have written its own bytes, nothing else).
 */
static void expect_block(const char *path, int a, int b, const char *what)
{
    unsigned char got[BLOCK];
    int64_t base = (int64_t)t_rank * BLOCK;
    CHECK(test_pread(path, got, BLOCK, base) == BLOCK, "%s: read back", what);
    int ok = 1;
    for (int64_t i = 0; i < BLOCK; i++) {
        int64_t at = base + i;
        if (i >= PIECE_AT && i < PIECE_AT + PIECE_LEN)
            ok &= got[i] == byte_of(t_rank, at, a) || got[i] == byte_of(t_rank, at, b);
        else
            ok &= got[i] == pattern_old(at);
    }
    CHECK(ok, "%s: wrong bytes in rank %d's block", what, t_rank);
}

/* 1 on every rank when some rank's piece of the last call was staged (then every rank agrees twice: SETUP, FINAL). */
static int last_call_staged(colio_file *fh)
{
    colio_stats st;
    CHECK_RC(colio_get_stats(fh, &st), COLIO_SUCCESS, fh);
    int mine = strcmp(st.last.strategy, "staged") == 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/*
 * 7. In the `nodes` runs (colio_node_size=2 under MPI_THREAD_MULTIPLE, where a file keeps slots of
 * its own on the emulated nodes; 3-4 ranks: two nodes), the agreements through the node-shared
 * slots meet over the nodes' first ranks, where coll_shm's test switch (fail_leaders_at) makes the
 * allreduce of a given number fail on every one of them. The call's first agreement (SETUP), and
 * with its pieces staged (as they are there) its second (FINAL), fail in turn: COLIO_ERR_MPI with one
 * message on every rank, no byte outside the call's pieces touched; the next call is whole and its
 * bytes are in the file.
 */
static void failed_agreements(const char *path)
{
    int64_t size = (int64_t)t_nprocs * BLOCK;
    test_prefill(path, size);
    colio_file *fh = open_file(path);
    colio_coll_shm_t *slots = fh->agree_shm;
    int mine = slots != NULL && slots->two_level, usable = 0;
    MPI_Allreduce(&mine, &usable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const char *env = getenv("COLIO_HINTS");
    CHECK(usable || t_nprocs < 3 || env == NULL || strstr(env, "colio_node_size=2") == NULL,
          "no two-level agreement slots at %d ranks under %s", t_nprocs, env);
    if (!usable) { /* one node: nothing among the nodes to fail */
        colio_close(&fh);
        return;
    }
    CHECK_RC(write_own_piece(fh, 1), COLIO_SUCCESS, fh);
    int agreements = last_call_staged(fh) ? 2 : 1;
    CHECK(agreements == 2 || (env && strstr(env, "colio_stage_bytes")), "300-byte pieces not staged under %s",
          env ? env : "-");
    for (int which = 1; which <= agreements; which++) {
        slots->fail_leaders_at = slots->started + which;
        int rc = write_own_piece(fh, 2);
        slots->fail_leaders_at = 0;
        expect_all(rc, COLIO_ERR_MPI, fh, which == 1 ? "the call's first agreement failed" : "its second failed",
                   "collective agreement");
        MPI_Barrier(MPI_COMM_WORLD);
        expect_block(path, 1, 2, which == 1 ? "after a failed first agreement" : "after a failed second agreement");
    }
    CHECK_RC(write_own_piece(fh, 3), COLIO_SUCCESS, fh);
    colio_close(&fh);
    expect_block(path, 3, 3, "after the failed agreements, the next write");
    MPI_Barrier(MPI_COMM_WORLD); /* the next case rewrites the file */
}

/* A process's first call with a named type flattens it as an operation; express calls follow (expect_one_piece_stats). */
static void first_call_of_mpi_byte(const char *path)
{
    test_prefill(path, 16);
    colio_file *fh = open_file(path);
    CHECK_RC(tu_write_at_all(fh, 0, NULL, 0, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    colio_close(&fh);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "early");
    first_call_of_mpi_byte(path);
    every_rank_one_piece(path);
    hybrid(path);
    reads_at_end(path);
    nonblocking_order(path);
    one_rank_wrong(path);
    early_rank0_others_cross_end(path);
    failed_agreements(path);
    mixed = 1;
    every_rank_one_piece(path);
    hybrid(path);
    reads_at_end(path);
    one_rank_wrong(path);
    early_rank0_others_cross_end(path);
    failed_agreements(path);
    test_unlink(path);
    return test_finish("test_early");
}
