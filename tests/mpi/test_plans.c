/*
 * Reusable exchange plans (colio_plan_cache): a repeated collective call
 * with the same access reuses the stored plan (statistics say so) and
 * moves the right bytes; the same access moved by the same amount on every
 * rank reuses it moved (writes; a multiple of striping_unit); any change —
 * one rank's pattern or move, the count, the filetype, the hints, the file
 * size under a read, an evicted plan — never reuses a stale plan, and the
 * bytes stay right. Expected bytes come from
 * the ownership formula below and plain pread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SIZE 6000

/* Byte x of the file belongs to rank owner(x, shift), or to nobody (a hole) when it returns nprocs. */
static int owner(int64_t x, int shift)
{
    int64_t b = (x + shift) / 7;
    return (int)((b * 5 + b / 3) % (t_nprocs + 1));
}

/* This rank's pieces (one per maximal run of its bytes) for the pattern `shift`; a changed rank
   (changed == t_rank) drops a piece in the middle, so only that rank's access differs and the
   global extent stays the same. */
static int64_t pieces(int shift, int changed, MPI_Offset *off, MPI_Offset *len)
{
    int64_t n = 0;
    for (int64_t x = 0; x < SIZE; x++)
        if (owner(x, shift) == t_rank) {
            if (n > 0 && off[n - 1] + len[n - 1] == x)
                len[n - 1]++;
            else
                off[n] = x, len[n++] = 1;
        }
    if (changed == t_rank && n > 2) {
        memmove(off + n / 2, off + n / 2 + 1, sizeof *off * (size_t)(n - n / 2 - 1));
        memmove(len + n / 2, len + n / 2 + 1, sizeof *len * (size_t)(n - n / 2 - 1));
        n--;
    }
    return n;
}

static unsigned char value(int64_t x, int salt) { return (unsigned char)(x * 3 + salt * 29 + 7); }

static colio_file *open_file(const char *path, const char *cache, const char *cb)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", cb);
    MPI_Info_set(info, "colio_plan_cache", cache);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    return fh;
}

static int64_t reused(colio_file *fh)
{
    colio_stats st;
    colio_get_stats(fh, &st);
    return st.last.plans_reused;
}

/* Reuse must be the same on every rank. */
static void expect_reuse(colio_file *fh, int want, const char *what)
{
    int64_t r = reused(fh), lo, hi;
    MPI_Allreduce(&r, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&r, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi && lo == want, "%s: plan reused %lld..%lld, expected %d", what, (long long)lo, (long long)hi, want);
}

/* The record size of the last call's lists (colio_op_stats.meta_words), the same on every rank. */
static void expect_words(colio_file *fh, int64_t want, const char *what)
{
    colio_stats st;
    colio_get_stats(fh, &st);
    int64_t lo, hi;
    MPI_Allreduce(&st.last.meta_words, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st.last.meta_words, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi && lo == want, "%s: records of %lld..%lld words, expected %lld", what, (long long)lo,
          (long long)hi, (long long)want);
}

/* Collective write of n pieces moved by base, each byte value(x, salt) at its file offset x. */
static void write_pieces(colio_file *fh, int64_t n, MPI_Offset *off, const MPI_Offset *len, int64_t base, int salt)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += len[i];
    unsigned char *buf = malloc((size_t)total + 1);
    for (int64_t i = 0, k = 0; i < n; i++) {
        off[i] += base;
        for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
            buf[k++] = value(x, salt);
    }
    CHECK_RC(tu_write_list_all(fh, n, off, len, buf), COLIO_SUCCESS, fh);
    free(buf);
}

/* Collective write of pattern (shift, changed) with content salt. */
static void write_pattern(colio_file *fh, int shift, int changed, int salt)
{
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    write_pieces(fh, pieces(shift, changed, off, len), off, len, 0, salt);
    free(off);
    free(len);
}

/* The file's bytes [at, at + n) against expected (bytes past the end of file read as 0), on rank 0. */
static void check_range(const char *path, int64_t at, int64_t n, const unsigned char *expected, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unsigned char *f = calloc((size_t)n, 1);
        CHECK(test_pread(path, f, n, at) >= 0, "%s: cannot read %s", what, path);
        int bad = 0;
        for (int64_t x = 0; x < n; x++)
            bad += f[x] != expected[x];
        CHECK(bad == 0, "%s: %d wrong bytes", what, bad);
        free(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_file(const char *path, const unsigned char *expected, const char *what)
{
    check_range(path, 0, SIZE, expected, what);
}

/* Read pattern (shift, changed) and compare with expected[]. */
static void read_pattern(colio_file *fh, int shift, int changed, const unsigned char *expected, int64_t eof,
                         const char *what)
{
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    int64_t n = pieces(shift, changed, off, len), total = 0;
    for (int64_t i = 0; i < n; i++)
        total += len[i];
    unsigned char *buf = malloc((size_t)total + 1);
    memset(buf, 0xEE, (size_t)total + 1);
    CHECK_RC(tu_read_list_all(fh, n, off, len, buf), COLIO_SUCCESS, fh);
    int bad = 0;
    for (int64_t i = 0, k = 0; i < n; i++)
        for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++, k++)
            bad += buf[k] != (x < eof ? expected[x] : 0xEE); /* past the end: untouched */
    CHECK(bad == 0, "%s: %d wrong bytes read", what, bad);
    free(buf);
    free(off);
    free(len);
}

/* Expectation after writing (shift, changed): as write_pattern, minus the changed rank's last piece. */
static void expect_write(unsigned char *expected, int shift, int changed, int salt)
{
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    int me = t_rank;
    for (int r = 0; r < t_nprocs; r++) {
        t_rank = r; /* the pieces rank r writes */
        int64_t n = pieces(shift, changed, off, len);
        for (int64_t i = 0; i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
                expected[x] = value(x, salt);
    }
    t_rank = me;
    free(off);
    free(len);
}

/* Write (shift, changed) with a fresh salt and update the expectation. */
static void step(colio_file *fh, unsigned char *expected, int shift, int changed, int *salt)
{
    write_pattern(fh, shift, changed, *salt);
    expect_write(expected, shift, changed, (*salt)++);
}

static void lists(const char *path)
{
    unsigned char expected[SIZE];
    test_prefill(path, SIZE);
    for (int64_t x = 0; x < SIZE; x++)
        expected[x] = pattern_old(x);
    colio_file *fh = open_file(path, "2", "512"); /* several rounds */
    int salt = 1;
    step(fh, expected, 0, -1, &salt);
    expect_reuse(fh, 0, "first write");
    step(fh, expected, 0, -1, &salt);
    expect_reuse(fh, 1, "same pattern again");
    check_file(path, expected, "after a reused write");
    /* one rank changes its pattern: nobody may reuse, whatever the others see */
    step(fh, expected, 0, t_nprocs - 1, &salt);
    expect_reuse(fh, 0, "one rank changed its pattern");
    check_file(path, expected, "after a changed pattern");
    step(fh, expected, 0, -1, &salt); /* still stored (2 slots) */
    expect_reuse(fh, 1, "first pattern once more");
    step(fh, expected, 1, -1, &salt); /* two new patterns evict it (least recently used) */
    step(fh, expected, 2, -1, &salt);
    step(fh, expected, 0, -1, &salt);
    expect_reuse(fh, 0, "evicted plan");
    check_file(path, expected, "after eviction");
    MPI_Info info; /* new hints drop every plan */
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "300");
    CHECK_RC(colio_set_info(fh, info), COLIO_SUCCESS, fh);
    MPI_Info_free(&info);
    step(fh, expected, 0, -1, &salt);
    expect_reuse(fh, 0, "after set_info");
    step(fh, expected, 0, -1, &salt);
    expect_reuse(fh, 1, "after set_info, twice");
    check_file(path, expected, "after new hints");
    /* reads of the same pattern reuse too */
    read_pattern(fh, 0, -1, expected, SIZE, "read");
    expect_reuse(fh, 0, "first read");
    read_pattern(fh, 0, -1, expected, SIZE, "read again");
    expect_reuse(fh, 1, "second read");
    colio_close(&fh);
}

/* Reads past the end of file are planned for the file size: a grown file must not reuse. */
static void grown_file(const char *path)
{
    unsigned char expected[SIZE];
    int64_t half = SIZE / 2;
    test_prefill(path, half);
    for (int64_t x = 0; x < SIZE; x++)
        expected[x] = pattern_old(x);
    colio_file *fh = open_file(path, "4", "512");
    read_pattern(fh, 0, -1, expected, half, "read of a short file");
    read_pattern(fh, 0, -1, expected, half, "read of a short file again");
    expect_reuse(fh, 1, "short file read twice");
    if (t_rank == 0) { /* the file grows behind colio's back, between collective calls */
        unsigned char tail[SIZE];
        for (int64_t x = half; x < SIZE; x++)
            tail[x - half] = pattern_old(x);
        CHECK(test_pwrite(path, tail, SIZE - half, half) == 0, "growing the file behind colio");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    read_pattern(fh, 0, -1, expected, SIZE, "read of the grown file");
    expect_reuse(fh, 0, "grown file");
    colio_close(&fh);
}

/* Views: the same view and count reuse, whatever the memory type; another count or view does not. */
static void views(const char *path)
{
    test_prefill(path, SIZE);
    colio_file *fh = open_file(path, "4", "256");
    MPI_Datatype three, ftype, mtype;
    MPI_Type_contiguous(3, MPI_BYTE, &three); /* 3 bytes of every 3p: the ranks interleave */
    MPI_Type_create_resized(three, 0, 3 * t_nprocs, &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&three);
    int64_t n = (SIZE / (3 * t_nprocs)) * 3;
    MPI_Type_vector((int)n, 1, 2, MPI_BYTE, &mtype); /* every other byte of memory */
    MPI_Type_commit(&mtype);
    unsigned char *buf = malloc(2 * SIZE), *back = malloc(2 * SIZE);
    colio_set_view(fh, t_rank * 3, MPI_BYTE, ftype, MPI_INFO_NULL);
    for (int rep = 0; rep < 3; rep++) {
        for (int64_t i = 0; i < 2 * SIZE; i++)
            buf[i] = (unsigned char)(i * 11 + rep + t_rank * 5);
        if (rep < 2)
            CHECK_RC(tu_write_at_all(fh, 0, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        else /* the same file access from a strided memory type */
            CHECK_RC(tu_write_at_all(fh, 0, buf, 1, mtype, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        expect_reuse(fh, rep > 0, "view write, same view and count");
        /* 3 bytes of every 3p: one strided run of many pieces (four words), one piece on one rank (packed) */
        expect_words(fh, t_nprocs > 1 ? 4 : 1, "view write, strided");
        memset(back, 0, 2 * SIZE);
        CHECK_RC(tu_read_at_all(fh, 0, back, n, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        int bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += back[i] != (rep < 2 ? buf[i] : buf[2 * i]);
        CHECK(bad == 0, "view round trip %d: %d wrong bytes", rep, bad);
    }
    CHECK_RC(tu_write_at_all(fh, 0, buf, n - 1, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    expect_reuse(fh, 0, "another count");
    colio_set_view(fh, t_rank * 3 + 1, MPI_BYTE, ftype, MPI_INFO_NULL);
    CHECK_RC(tu_write_at_all(fh, 0, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    expect_reuse(fh, 1, "the view one byte further on every rank (the plan moved)");
    memset(back, 0, 2 * SIZE);
    CHECK_RC(tu_read_at_all(fh, 0, back, n, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += back[i] != buf[i];
    CHECK(bad == 0, "after the view moved: %d wrong bytes", bad);
    MPI_Datatype two, ftype2; /* 2 bytes of every 3p: another access */
    MPI_Type_contiguous(2, MPI_BYTE, &two);
    MPI_Type_create_resized(two, 0, 3 * t_nprocs, &ftype2);
    MPI_Type_commit(&ftype2);
    MPI_Type_free(&two);
    colio_set_view(fh, t_rank * 3 + 1, MPI_BYTE, ftype2, MPI_INFO_NULL);
    int64_t n2 = n / 3 * 2;
    CHECK_RC(tu_write_at_all(fh, 0, buf, n2, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    expect_reuse(fh, 0, "another filetype");
    memset(back, 0, 2 * SIZE);
    CHECK_RC(tu_read_at_all(fh, 0, back, n2, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    bad = 0;
    for (int64_t i = 0; i < n2; i++)
        bad += back[i] != buf[i];
    CHECK(bad == 0, "after another filetype: %d wrong bytes", bad);
    MPI_Type_free(&ftype2);
    free(buf);
    free(back);
    MPI_Type_free(&ftype);
    MPI_Type_free(&mtype);
    colio_close(&fh);
}

/* ---- one tile of a view: the access borrows the flattening -------------------------------- */

#define TILE_SPAN (SIZE / 2) /* the pattern's first half: the view may move by up to as much */

/* This rank's pieces of pattern 0 below TILE_SPAN, as a list (returned) and as a filetype (*ftype). */
static int64_t tile_pieces(MPI_Offset *off, MPI_Offset *len, MPI_Datatype *ftype)
{
    int64_t n = pieces(0, -1, off, len), m = 0;
    while (m < n && off[m] + len[m] <= TILE_SPAN)
        m++;
    int *blens = malloc(sizeof *blens * (size_t)(m + 1));
    MPI_Aint *disps = malloc(sizeof *disps * (size_t)(m + 1));
    for (int64_t i = 0; i < m; i++)
        blens[i] = (int)len[i], disps[i] = (MPI_Aint)off[i];
    MPI_Type_create_hindexed((int)m, blens, disps, MPI_BYTE, ftype);
    MPI_Type_commit(ftype);
    free(blens);
    free(disps);
    return m;
}

/* Write this rank's tile pieces at disp with salt through a view of ftype (freed after set_view). */
static void write_tile(colio_file *fh, MPI_Datatype *ftype, int64_t n, const MPI_Offset *off, const MPI_Offset *len,
                       int64_t disp, int salt)
{
    int64_t total = 0;
    unsigned char *buf = malloc(TILE_SPAN + 1);
    for (int64_t i = 0; i < n; i++)
        for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
            buf[total++] = value(x + disp, salt);
    if (*ftype != MPI_DATATYPE_NULL) {
        CHECK_RC(colio_set_view(fh, disp, MPI_BYTE, *ftype, MPI_INFO_NULL), COLIO_SUCCESS, fh);
        MPI_Type_free(ftype); /* the view holds its flattening, and a stored plan too */
    }
    CHECK_RC(tu_write_at_all(fh, 0, buf, total, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    free(buf);
}

/* expected[] after every rank wrote its tile pieces at disp with salt. */
static void expect_tile(unsigned char *expected, int64_t disp, int salt)
{
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    int me = t_rank;
    for (int r = 0; r < t_nprocs; r++) {
        MPI_Datatype t;
        t_rank = r;
        int64_t n = tile_pieces(off, len, &t);
        MPI_Type_free(&t);
        for (int64_t i = 0; i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
                expected[x + disp] = value(x + disp, salt);
    }
    t_rank = me;
    free(off);
    free(len);
}

/*
 * A filetype holding a whole irregular pattern, written one tile a call
 * (the climate maps' way): the access borrows the view's flattening
 * instead of listing a copy, and a stored plan keeps it as its key. The
 * same call again reuses the plan; the view moved on every rank reuses it
 * moved; the same pieces as an explicit list (runs of its own) and a new
 * filetype of the same layout (another flattening) reuse it too. Every
 * filetype is freed right after set_view.
 */
static void one_tile_views(const char *path)
{
    unsigned char expected[SIZE];
    test_prefill(path, SIZE);
    for (int64_t x = 0; x < SIZE; x++)
        expected[x] = pattern_old(x);
    colio_file *fh = open_file(path, "4", "256");
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    MPI_Datatype ftype, same, none = MPI_DATATYPE_NULL;
    int64_t n = tile_pieces(off, len, &ftype);
    CHECK_RC(colio_set_view(fh, 0, MPI_BYTE, ftype, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    MPI_Type_dup(ftype, &same); /* shares the flattening cached on ftype */
    MPI_Type_free(&ftype);
    write_tile(fh, &none, n, off, len, 0, 1);
    expect_tile(expected, 0, 1);
    expect_reuse(fh, 0, "one tile, first write");
    write_tile(fh, &none, n, off, len, 0, 2);
    expect_tile(expected, 0, 2);
    expect_reuse(fh, 1, "one tile, the same call again");
    check_file(path, expected, "one tile, written twice");
    write_tile(fh, &same, n, off, len, 128, 3); /* the same flattening elsewhere: known by its shift alone (frees same) */
    expect_tile(expected, 128, 3);
    expect_reuse(fh, 1, "one tile, the same flattening moved by 128 bytes");
    check_file(path, expected, "one tile, the same flattening moved");
    tile_pieces(off, len, &ftype);
    write_tile(fh, &ftype, n, off, len, 64, 4);
    expect_tile(expected, 64, 4);
    expect_reuse(fh, 1, "one tile, a new filetype moved back by 64 bytes");
    check_file(path, expected, "one tile, moved");
    write_pieces(fh, n, off, len, 64, 5); /* (moves off by 64) */
    expect_tile(expected, 64, 5);
    expect_reuse(fh, 1, "the same pieces as a list");
    tile_pieces(off, len, &ftype);
    write_tile(fh, &ftype, n, off, len, 64, 6);
    expect_tile(expected, 64, 6);
    expect_reuse(fh, 1, "a new filetype of the same layout");
    check_file(path, expected, "one tile, every way");
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += len[i];
    unsigned char *back = malloc((size_t)total + 1);
    CHECK_RC(tu_read_at_all(fh, 0, back, total, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    int bad = 0;
    for (int64_t i = 0, k = 0; i < n; i++)
        for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
            bad += back[k++] != expected[x + 64];
    CHECK(bad == 0, "one tile read back through the view: %d wrong bytes", bad);
    /* a one-tile read across the end of file, twice: clipped, its key kept (held) from before the clip */
    int64_t disp = SIZE - TILE_SPAN / 2;
    for (int rep = 0; rep < 2; rep++) {
        tile_pieces(off, len, &ftype);
        CHECK_RC(colio_set_view(fh, disp, MPI_BYTE, ftype, MPI_INFO_NULL), COLIO_SUCCESS, fh);
        MPI_Type_free(&ftype);
        memset(back, 0xEE, (size_t)total + 1);
        CHECK_RC(tu_read_at_all(fh, 0, back, total, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        bad = 0;
        for (int64_t i = 0, k = 0; i < n; i++)
            for (MPI_Offset x = off[i] + disp; x < off[i] + len[i] + disp; x++, k++)
                bad += back[k] != (x < SIZE ? expected[x] : 0xEE);
        CHECK(bad == 0, "one tile read across the end of file (%d): %d wrong bytes", rep, bad);
        expect_reuse(fh, rep, rep ? "the same read across the end of file again" : "a read across the end of file");
    }
    free(back);
    free(off);
    free(len);
    colio_close(&fh);
}

/* ---- the same access elsewhere in the file ------------------------------------------------- */

#define MOVED_SIZE (5 * SIZE)

/* Rank r writes pattern 0 moved by base[r] with salt; expected[] follows every rank's bytes. */
static void write_moved(colio_file *fh, unsigned char *expected, const int64_t *base, int salt, int empty_rank)
{
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    int me = t_rank;
    for (int r = 0; r < t_nprocs; r++) {
        t_rank = r;
        int64_t n = r == empty_rank ? 0 : pieces(0, -1, off, len);
        for (int64_t i = 0; i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
                expected[x + base[r]] = value(x + base[r], salt);
    }
    t_rank = me;
    write_pieces(fh, t_rank == empty_rank ? 0 : pieces(0, -1, off, len), off, len, base[t_rank], salt);
    free(off);
    free(len);
}

static void check_moved(const char *path, const unsigned char *expected, const char *what)
{
    check_range(path, 0, MOVED_SIZE, expected, what);
}

/* Every rank at base b, except rank `odd` at base `odd_base` (-1: none). */
static void bases(int64_t *base, int64_t b, int odd, int64_t odd_base)
{
    for (int r = 0; r < t_nprocs; r++)
        base[r] = r == odd ? odd_base : b;
}

/* One moved write: salt++, the reuse expected, the bytes checked. */
static void moved_step(colio_file *fh, const char *path, unsigned char *expected, const int64_t *base, int *salt,
                       int empty_rank, int want, const char *what)
{
    write_moved(fh, expected, base, (*salt)++, empty_rank);
    expect_reuse(fh, want, what);
    check_moved(path, expected, what);
}

static void moved(const char *path, const char *striping_unit)
{
    unsigned char *expected = malloc(MOVED_SIZE);
    int64_t *base = malloc(sizeof *base * (size_t)t_nprocs);
    test_prefill(path, MOVED_SIZE);
    for (int64_t x = 0; x < MOVED_SIZE; x++)
        expected[x] = pattern_old(x);
    colio_file *fh = open_file(path, "2", "512");
    int salt = 1, su = atoi(striping_unit);
    if (su > 0) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "striping_unit", striping_unit);
        CHECK_RC(colio_set_info(fh, info), COLIO_SUCCESS, fh);
        MPI_Info_free(&info);
    }
    bases(base, 0, -1, 0);
    moved_step(fh, path, expected, base, &salt, -1, 0, "moved: first write");
    bases(base, SIZE, -1, 0); /* SIZE = 6000: not a multiple of 64 */
    moved_step(fh, path, expected, base, &salt, -1, su == 0, "moved by SIZE on every rank");
    bases(base, 2 * SIZE + 32, -1, 0); /* 12032 = 188 * 64 from the first */
    moved_step(fh, path, expected, base, &salt, -1, 1, "moved by 2 SIZE + 32 on every rank");
    moved_step(fh, path, expected, base, &salt, -1, 1, "the same place again");
    /* one rank moves by another amount: nobody may reuse (alone, it is a plain move) */
    bases(base, SIZE, 0, 3 * SIZE + 64);
    moved_step(fh, path, expected, base, &salt, -1, t_nprocs == 1 && su == 0, "rank 0 moved further than the others");
    /* rank 0 has no pieces: a new access; the same again, moved, reuses (rank 0 fits any move) */
    bases(base, 0, -1, 0);
    moved_step(fh, path, expected, base, &salt, 0, 0, "rank 0 without pieces");
    bases(base, 4 * SIZE - 64 * 23, -1, 0); /* 22528 = 352 * 64 */
    moved_step(fh, path, expected, base, &salt, 0, t_nprocs > 1, "rank 0 without pieces, moved");
    bases(base, 4 * SIZE - 64 * 22, -1, 0); /* moved again: rank 0's empty key, moved once, still fits */
    moved_step(fh, path, expected, base, &salt, 0, t_nprocs > 1, "rank 0 without pieces, moved twice");
    /* reads reuse a moved plan only when neither call reached the end of file (it clips a read's plan) */
    const int64_t read_base[] = {0, SIZE, 3 * SIZE + 64, MOVED_SIZE - SIZE / 2, 0};
    const int read_reuse[] = {0, su == 0, su == 0, 0, su == 0}; /* the clipped plan of read 3 is never offered */
    MPI_Offset *off = malloc(sizeof *off * SIZE), *len = malloc(sizeof *len * SIZE);
    int64_t n = pieces(0, -1, off, len), total = 0;
    for (int64_t i = 0; i < n; i++)
        total += len[i];
    unsigned char *buf = malloc((size_t)total + 1);
    for (int rep = 0; rep < 5; rep++) {
        int64_t b = read_base[rep], moved_by = b - (rep ? read_base[rep - 1] : 0);
        for (int64_t i = 0; i < n; i++)
            off[i] += moved_by;
        memset(buf, 0xEE, (size_t)total + 1);
        CHECK_RC(tu_read_list_all(fh, n, off, len, buf), COLIO_SUCCESS, fh);
        int bad = 0;
        for (int64_t i = 0, k = 0; i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++, k++)
                bad += buf[k] != (x < MOVED_SIZE ? expected[x] : 0xEE); /* past the end: untouched */
        CHECK(bad == 0, "read at %lld: %d wrong bytes", (long long)b, bad);
        char what[96];
        snprintf(what, sizeof what, "read %d at %lld", rep, (long long)b);
        expect_reuse(fh, read_reuse[rep], what);
    }
    free(buf), free(off), free(len);
    colio_close(&fh);
    free(expected);
    free(base);
}

/* ---- one-word metadata records (a call within 4 GiB) and plans moved across 4 GiB --------------------- */

#define FOUR_GIB ((int64_t)1 << 32)
#define WINDOW (4 * SIZE)

/* The file's bytes [at, at + WINDOW) against expected. */
static void check_window(const char *path, int64_t at, const unsigned char *expected, const char *what)
{
    check_range(path, at, WINDOW, expected, what);
}

/*
 * Rank r's pieces of an irregular pattern: piece i of 2000 (lengths 1-3
 * bytes, gaps of 0 or 1) belongs to rank i % p, and no two of a rank's
 * pieces in a row have the same length, so none fold into strided runs:
 * every call is single pieces (one record each).
 */
static int64_t irregular_pieces(int rank, MPI_Offset *off, MPI_Offset *len)
{
    int64_t n = 0;
    for (int64_t i = 0, at = 0; i < 2000; i++) {
        int64_t l = 1 + (i / t_nprocs) % 3;
        if (i % t_nprocs == rank) {
            if (n > 0 && off[n - 1] + len[n - 1] == at)
                len[n - 1] += l;
            else
                off[n] = at, len[n++] = l;
        }
        at += l + i % 2;
    }
    return n;
}

/* Every rank writes its irregular pieces at base, and again FAR bytes further when far; expected[] (the
   window from w0) and far_expected[] (from w0 + FAR) follow them all. */
#define FAR (FOUR_GIB + SIZE)
static void write_near_4g(colio_file *fh, unsigned char *expected, unsigned char *far_expected, int64_t w0,
                          int64_t base, int far, int salt)
{
    MPI_Offset *off = malloc(sizeof *off * 4000), *len = malloc(sizeof *len * 4000);
    for (int r = 0; r < t_nprocs; r++)
        for (int64_t i = 0, n = irregular_pieces(r, off, len); i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++) {
                expected[x + base - w0] = value(x + base, salt);
                if (far)
                    far_expected[x + base - w0] = value(x + base + FAR, salt);
            }
    int64_t n = irregular_pieces(t_rank, off, len);
    for (int64_t i = 0; i < n && far; i++) /* the same pieces FAR further, in the same call */
        off[n + i] = off[i] + FAR, len[n + i] = len[i];
    write_pieces(fh, far ? 2 * n : n, off, len, base, salt);
    free(off);
    free(len);
}

/*
 * Single pieces of a call spanning less than 4 GiB go as one word each
 * (offset from the call's first byte and length, access/split.h),
 * wherever the call lies in the file: below 4 GiB, across it, above it,
 * and a stored plan moved across it keeps its records (their base moves).
 * A call spanning more than 4 GiB goes as two words a piece. Every step's
 * bytes are checked, in both windows.
 */
static void past_four_gib(const char *path)
{
    int64_t w0 = FOUR_GIB - 2 * SIZE;
    unsigned char *expected = calloc(WINDOW, 1), *far_expected = calloc(WINDOW, 1);
    test_prefill(path, SIZE); /* the windows lie past its end: holes, read as zeros */
    colio_file *fh = open_file(path, "2", "512");
    const struct {
        int64_t base;
        int far, reuse;
        const char *what;
    } steps[] = {{w0, 0, 0, "below 4 GiB"},
                 {w0, 0, 1, "below 4 GiB again (the plan reused)"},
                 {w0 + SIZE + SIZE / 2, 0, 1, "moved across 4 GiB (the plan moved)"},
                 {w0 + SIZE + SIZE / 2 + 64, 0, 1, "moved again"},
                 {w0, 1, 0, "a call spanning more than 4 GiB (two-word records)"},
                 {w0, 1, 1, "the same again (the plan reused)"}};
    for (int i = 0; i < 6; i++) {
        write_near_4g(fh, expected, far_expected, w0, steps[i].base, steps[i].far, 40 + i);
        expect_reuse(fh, steps[i].reuse, steps[i].what);
        expect_words(fh, steps[i].far ? 2 : 1, steps[i].what);
        check_window(path, w0, expected, steps[i].what);
        check_window(path, w0 + FAR, far_expected, steps[i].what);
    }
    /* a view of the same pieces with absolute displacements past 4 GiB (disp 0, as PnetCDF's): its flattening,
       borrowed by the call, is split from its pieces packed from the first one's offset (no plan stored, so
       every call splits) */
    colio_close(&fh);
    fh = open_file(path, "0", "512");
    int64_t at = w0 + FAR + SIZE;
    MPI_Offset *off = malloc(sizeof *off * 2000), *len = malloc(sizeof *len * 2000);
    int64_t n = irregular_pieces(t_rank, off, len), total = 0;
    int *blens = malloc(sizeof *blens * (size_t)n);
    MPI_Aint *disps = malloc(sizeof *disps * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        blens[i] = (int)len[i], disps[i] = (MPI_Aint)(at + off[i]), total += len[i];
    MPI_Datatype ftype;
    MPI_Type_create_hindexed((int)n, blens, disps, MPI_BYTE, &ftype);
    MPI_Type_commit(&ftype);
    CHECK_RC(colio_set_view(fh, 0, MPI_BYTE, ftype, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    unsigned char *buf = malloc((size_t)total + 1);
    for (int salt = 50; salt < 52; salt++) {
        for (int r = 0; r < t_nprocs; r++) /* every rank's bytes in the window */
            for (int64_t i = 0, m = irregular_pieces(r, off, len); i < m; i++)
                for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
                    far_expected[SIZE + x] = value(at + x, salt);
        n = irregular_pieces(t_rank, off, len);
        for (int64_t i = 0, k = 0; i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++)
                buf[k++] = value(at + x, salt);
        CHECK_RC(tu_write_at_all(fh, 0, buf, total, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        expect_reuse(fh, 0, "a view past 4 GiB");
        expect_words(fh, 1, "a view past 4 GiB");
        check_window(path, w0 + FAR, far_expected, "a view past 4 GiB");
    }
    MPI_Type_free(&ftype);
    free(buf), free(blens), free(disps), free(off), free(len);
    colio_close(&fh);
    free(expected);
    free(far_expected);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "plans");
    lists(path);
    grown_file(path);
    views(path);
    one_tile_views(path);
    moved(path, "0");
    moved(path, "64");
    past_four_gib(path);
    test_unlink(path);
    return test_finish("test_plans");
}
