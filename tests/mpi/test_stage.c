/*
 * Staged small writes (src/engine/path_staged.c): a rank whose blocking write is
 * one piece of at most colio_stage_bytes hands it to its node's first rank
 * through node-shared memory, which writes the node's pieces. Every case
 * is checked against an image computed here, read with plain POSIX calls;
 * the tests' ranks share one node, so every call with two ranks or more
 * stages where the rules allow:
 *   1. IOR's segmented pattern (rank r's k-th piece at (k P + r) B), calls
 *      of 64 bytes and of colio_stage_bytes: the file; the strategy
 *      "staged" on every rank; the first rank's one storage call per call
 *      (the node's pieces follow one another);
 *   2. pieces apart, over old content, from strided memory (a vector
 *      memory type), one rank empty: holes keep their old bytes;
 *   3. one call mixing staged pieces, a piece over the limit (early
 *      direct) and a rank of many pieces through aggregators, whose holes
 *      (rewritten by read-modify-write) hold the staged pieces;
 *   4. the first rank's storage write of the staged pieces fails (fault
 *      backend): every rank returns the same error and message, and the
 *      one storage call was the first rank's;
 *   5. one rank passes a negative count: the same error everywhere and
 *      the file unchanged where pieces were staged (an early direct piece
 *      lands before the agreement);
 *   6. colio_stage_bytes=0 and romio_cb_write=enable: nothing staged, the
 *      same bytes;
 *   7. a nonblocking write of the same bytes still in flight, then a
 *      blocking one-piece write: the file holds the later one;
 *   8. colio_agreements switched by colio_set_info (p2p, shm, p2p): staged
 *      only while shm (a file of its own makes and gives back its slots).
 * The `nodes` runs (MPI_THREAD_MULTIPLE, colio_node_size=2) stage on two
 * emulated nodes, each node's first rank writing its node's pieces.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { CALLS = 40, SMALL = 64, LIMIT = 1024, SPACED = 300, FILE_BYTES = 1 << 16 };

static unsigned char byte_of(int rank, int64_t off) { return pattern_new(rank, off, 7); }

static colio_file *open_with(const char *path, const char *hints)
{
    colio_file *fh = NULL;
    MPI_Info info = test_info(hints);
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    expect_all(rc, COLIO_SUCCESS, fh, "open", NULL);
    return fh;
}

static int hint_int(colio_file *fh, const char *key)
{
    char v[32] = "";
    int flag = 0;
    colio_get_hint(fh, key, v, sizeof v, &flag);
    return flag ? atoi(v) : 0;
}

/*
 * The first rank and the size of rank r's node as the file's slots see them: colio_node_size's emulated
 * nodes where the file has a duplicate of its own (MPI_THREAD_MULTIPLE), else the machine's (MPI's).
 */
static void node_of(colio_file *fh, int r, int *first, int *n)
{
    int level = MPI_THREAD_SINGLE, size = hint_int(fh, "colio_node_size");
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE || size <= 0) {
        test_node_of(r, first, n);
        return;
    }
    *first = r - r % size;
    *n = t_nprocs - *first < size ? t_nprocs - *first : size;
}

/* Whether rank r's blocking calls stage: agreements in node-shared memory, two ranks or more on its node. */
static int rank_stages(colio_file *fh, int r)
{
    char v[32] = "";
    int flag = 0, first, n;
    colio_get_hint(fh, "colio_agreements", v, sizeof v, &flag);
    node_of(fh, r, &first, &n);
    return n > 1 && flag && strcmp(v, "shm") == 0;
}

static int stages(colio_file *fh) { return rank_stages(fh, t_rank); }

/* Whether this rank makes the storage calls of its staged writes: its node's first, or alone. */
static int writes_staged(colio_file *fh)
{
    int first, n;
    node_of(fh, t_rank, &first, &n);
    return first == t_rank;
}

/* The strategy of the last call must be want on every rank. */
static void expect_strategy(colio_file *fh, const char *want, const char *what)
{
    colio_stats st;
    CHECK(colio_get_stats(fh, &st) == COLIO_SUCCESS && strcmp(st.last.strategy, want) == 0,
          "%s: strategy \"%s\", expected \"%s\"", what, st.last.strategy, want);
}

/* 1. IOR's segmented pattern; strategy: the first call's where it may stage ("staged": else "early"). */
static void segmented(const char *path, int bytes, const char *hints, const char *strategy)
{
    char what[96];
    snprintf(what, sizeof what, "segmented %d B (%s)", bytes, hints[0] ? hints : "defaults");
    test_prefill(path, 0);
    colio_file *fh = open_with(path, hints);
    if (strcmp(strategy, "staged") == 0 && !stages(fh))
        strategy = "early";
    int64_t size = (int64_t)CALLS * t_nprocs * bytes;
    unsigned char *buf = malloc((size_t)bytes), *image = malloc((size_t)size);
    int64_t calls0 = 0;
    for (int k = 0; k < CALLS; k++) {
        int64_t off = ((int64_t)k * t_nprocs + t_rank) * bytes;
        for (int i = 0; i < bytes; i++)
            buf[i] = byte_of(t_rank, off + i);
        int rc = tu_write_at_all(fh, off, buf, bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_all(rc, COLIO_SUCCESS, fh, what, NULL);
        colio_stats st;
        colio_get_stats(fh, &st);
        calls0 += st.last.io_calls;
        if (k == 0 && !tu_nonblocking())
            expect_strategy(fh, strategy, what);
    }
    if (strcmp(strategy, "staged") == 0 && !tu_nonblocking())
        CHECK(calls0 == (writes_staged(fh) ? CALLS : 0), "%s: %lld storage calls on this rank, expected %d", what,
              (long long)calls0, writes_staged(fh) ? CALLS : 0);
    colio_close(&fh);
    for (int64_t x = 0; x < size; x++)
        image[x] = byte_of((int)(x / bytes % t_nprocs), x);
    test_check_file(path, image, size, what);
    free(buf);
    free(image);
}

/* Rank r's spaced piece: SPACED bytes at 1000 r + 17, the last rank none. */
static int64_t spaced_at(int r) { return 1000 * (int64_t)r + 17; }
static int spaced_len(int r) { return t_nprocs > 1 && r == t_nprocs - 1 ? 0 : SPACED; }

/* 2. Pieces apart over old content, from strided memory. */
static void spaced(const char *path)
{
    const char *what = "spaced pieces from strided memory";
    test_prefill(path, FILE_BYTES);
    colio_file *fh = open_with(path, "");
    MPI_Datatype every_other;
    MPI_Type_vector(SPACED / 4, 4, 8, MPI_BYTE, &every_other);
    MPI_Type_commit(&every_other);
    unsigned char mem[2 * SPACED];
    memset(mem, 0xEE, sizeof mem);
    for (int i = 0; i < SPACED; i++)
        mem[i / 4 * 8 + i % 4] = byte_of(t_rank, spaced_at(t_rank) + i);
    int rc = tu_write_at_all(fh, spaced_at(t_rank), mem, spaced_len(t_rank) ? 1 : 0, every_other, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_SUCCESS, fh, what, NULL);
    MPI_Type_free(&every_other);
    colio_close(&fh);
    unsigned char *image = malloc(FILE_BYTES);
    for (int64_t x = 0; x < FILE_BYTES; x++)
        image[x] = pattern_old(x);
    for (int r = 0; r < t_nprocs; r++)
        for (int i = 0; i < spaced_len(r); i++)
            image[spaced_at(r) + i] = byte_of(r, spaced_at(r) + i);
    test_check_file(path, image, FILE_BYTES, what);
    free(image);
}

/*
 * 3. Rank 1 one piece over the limit (early), rank 2 sixteen small pieces in
 * every rank's region (two-phase: aggregators rewrite the holes between
 * them), the others one small piece each (staged) inside those holes.
 */
enum { MIX_BIG = 3 * LIMIT, MIX_PER_REGION = 16, MIX_SMALLS = 4 * MIX_PER_REGION, MIX_REGION = 8192 };
static int mix_pieces(int r, MPI_Offset *off, MPI_Offset *len)
{
    int64_t base = (int64_t)r * MIX_REGION;
    if (r == 1) {
        off[0] = base + 100, len[0] = MIX_BIG;
        return 1;
    }
    if (r == 2) {
        int n = 0;
        for (int q = 0; q < t_nprocs && n + MIX_PER_REGION <= MIX_SMALLS; q++)
            for (int i = 0; i < MIX_PER_REGION; i++, n++)
                off[n] = (int64_t)q * MIX_REGION + 4000 + 250 * i, len[n] = 24;
        return n;
    }
    off[0] = base + 5, len[0] = SMALL;
    return 1;
}

static void mixed(const char *path)
{
    const char *what = "staged, early and two-phase ranks in one call";
    int64_t size = (int64_t)t_nprocs * MIX_REGION;
    test_prefill(path, size);
    /* the fixed rules send rank 2's small pieces through aggregators, which fill the holes by rewriting them */
    colio_file *fh = open_with(path, "colio_storage_model=off;romio_ds_write=enable");
    MPI_Offset off[MIX_SMALLS], len[MIX_SMALLS];
    int n = mix_pieces(t_rank, off, len);
    unsigned char buf[MIX_BIG];
    int64_t at = 0;
    for (int i = 0; i < n; i++)
        for (int64_t j = 0; j < len[i]; j++)
            buf[at++] = byte_of(t_rank, off[i] + j);
    int rc = tu_write_list_all(fh, n, off, len, buf);
    expect_all(rc, COLIO_SUCCESS, fh, what, NULL);
    if (t_nprocs > 2 && !tu_nonblocking())
        expect_strategy(fh, "two-phase", what);
    colio_close(&fh);
    unsigned char *image = malloc((size_t)size);
    for (int64_t x = 0; x < size; x++)
        image[x] = pattern_old(x);
    for (int r = 0; r < t_nprocs; r++) {
        int m = mix_pieces(r, off, len);
        for (int i = 0; i < m; i++)
            for (int64_t j = 0; j < len[i]; j++)
                image[off[i] + j] = byte_of(r, off[i] + j);
    }
    test_check_file(path, image, size, what);
    free(image);
}

/* 4. The first rank's write fails: everyone says so. */
static void leader_fails(const char *path)
{
    test_prefill(path, 4096);
    colio_file *fh = open_with(path, "colio_backend=fault;colio_fault=write:1:ENOSPC:0");
    unsigned char buf[SMALL];
    memset(buf, 0x5A, sizeof buf);
    int rc = tu_write_at_all(fh, (MPI_Offset)t_rank * SMALL, buf, SMALL, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_NOSPC, fh, "the first rank's write of the staged pieces fails", NULL);
    colio_stats st;
    colio_get_stats(fh, &st);
    if (stages(fh) && !tu_nonblocking()) /* the one failing call is the first rank's, made for everyone */
        CHECK(st.last.io_calls == (writes_staged(fh) ? 1 : 0), "staged failure: %lld storage calls here",
              (long long)st.last.io_calls);
    colio_close(&fh);
}

/* 5. A rank's bad argument: the same error everywhere, nothing written. */
static void bad_argument(const char *path)
{
    test_prefill(path, 4096);
    colio_file *fh = open_with(path, "");
    unsigned char buf[SMALL];
    memset(buf, 0x5A, sizeof buf);
    int count = t_rank == t_nprocs - 1 ? -1 : SMALL;
    int rc = colio_write_at_all(fh, (MPI_Offset)t_rank * SMALL, buf, count, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_ARG, fh, "a negative count on one rank", "negative count");
    /* staged pieces wait for the agreement, which fails: none lands (an early piece went before it) */
    unsigned char image[4096];
    for (int x = 0; x < 4096; x++)
        image[x] = x < (t_nprocs - 1) * SMALL && !rank_stages(fh, x / SMALL) ? 0x5A : pattern_old(x);
    int staged = stages(fh);
    colio_close(&fh);
    test_check_file(path, image, 4096, staged ? "a failed call writes no staged piece" : "a failed call");
}

/*
 * 7. A nonblocking write of the same bytes still in flight: the blocking
 * one-piece write after it must land after it (issue order), so it is not
 * staged past it; the file holds the second write.
 */
static void after_nonblocking(const char *path)
{
    const char *what = "a staged-size write after a nonblocking one of the same bytes";
    int64_t size = (int64_t)t_nprocs * SMALL;
    test_prefill(path, size);
    colio_file *fh = open_with(path, "");
    unsigned char first[SMALL], second[SMALL];
    int64_t off = (int64_t)t_rank * SMALL;
    for (int i = 0; i < SMALL; i++)
        first[i] = 0x11, second[i] = byte_of(t_rank, off + i);
    colio_request *req = NULL;
    int rc = colio_iwrite_at_all(fh, off, first, SMALL, MPI_BYTE, &req);
    expect_all(rc, COLIO_SUCCESS, fh, "the nonblocking write", NULL);
    rc = colio_write_at_all(fh, off, second, SMALL, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_SUCCESS, fh, what, NULL);
    rc = colio_wait(&req, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_SUCCESS, fh, "its wait", NULL);
    colio_close(&fh);
    unsigned char *image = malloc((size_t)size);
    for (int64_t x = 0; x < size; x++)
        image[x] = byte_of((int)(x / SMALL), x);
    test_check_file(path, image, size, what);
    free(image);
}

/*
 * 8. Agreements switched by colio_set_info after open (p2p, shm, p2p): a
 * file with slots of its own (MPI_THREAD_MULTIPLE) makes them once the
 * hints say shm and gives them back after; writes stage only meanwhile.
 */
static void agreements_switched(const char *path)
{
    const char *what = "agreements switched after open";
    static const char *modes[] = {"colio_agreements=p2p", "colio_agreements=shm", "colio_agreements=p2p"};
    int64_t size = 3 * (int64_t)t_nprocs * SMALL;
    test_prefill(path, 0);
    colio_file *fh = open_with(path, modes[0]);
    unsigned char buf[SMALL];
    for (int k = 0; k < 3; k++) {
        MPI_Info info = test_info(modes[k]);
        int rc = colio_set_info(fh, info);
        MPI_Info_free(&info);
        expect_all(rc, COLIO_SUCCESS, fh, modes[k], NULL);
        int64_t off = ((int64_t)k * t_nprocs + t_rank) * SMALL;
        for (int i = 0; i < SMALL; i++)
            buf[i] = byte_of(t_rank, off + i);
        rc = tu_write_at_all(fh, off, buf, SMALL, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_all(rc, COLIO_SUCCESS, fh, what, NULL);
        if (!tu_nonblocking())
            expect_strategy(fh, stages(fh) ? "staged" : "early", modes[k]);
    }
    colio_close(&fh);
    unsigned char *image = malloc((size_t)size);
    for (int64_t x = 0; x < size; x++)
        image[x] = byte_of((int)(x / SMALL % t_nprocs), x);
    test_check_file(path, image, size, what);
    free(image);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[256];
    test_path(path, sizeof path, "stage");
    segmented(path, SMALL, "", "staged");
    segmented(path, LIMIT, "", "staged");
    segmented(path, SMALL, "colio_stage_bytes=0", "early");
    segmented(path, SMALL, "romio_cb_write=enable", "two-phase");
    spaced(path);
    mixed(path);
    if (t_nprocs > 1)
        leader_fails(path);
    bad_argument(path);
    after_nonblocking(path);
    agreements_switched(path);
    test_unlink(path);
    return test_finish("test_stage");
}
