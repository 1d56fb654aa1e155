/*
 * The per-call strategy (src/engine/strategy.c) in real calls: with storage
 * figures given by colio_storage_model, interleaved blocks of 64 B, 4 KiB
 * and 64 KiB with a hole after every round of blocks are written and read
 * back; the file (holes keep their old bytes) and the bytes read are
 * checked against a formula, and every rank must report the same path, the
 * one the model picks for such figures (two-phase for small pieces, direct
 * for large ones on fast storage; two-phase for all on slow storage). Then
 * that the runs SETUP counts reach the model (one strided run a rank is
 * predicted cheaper than a record per piece). Then round sizes the model
 * chooses, or colio_round_size gives. Then the probe: colio_storage_cache
 * names a file, which the first open fills.
 * The direct path's jobs handed to the executor where storage calls wait.
 * And a bad colio_storage_model fails the open on every rank.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define FAST "write_call=0.6e-6,write_bw=2.5G,read_call=0.5e-6,read_bw=9G,copy_bw=10G,write_streams=1," \
             "read_streams=1.6,write_call_streams=1,read_call_streams=1.6,shared=0"
#define SLOW "write_call=1e-3,write_bw=2.5G,read_call=1e-3,read_bw=9G,copy_bw=10G,write_call_streams=2," \
             "read_call_streams=2,shared=0"

enum { STRIPES = 64, LAYOUT_STRIPES = 512, LAYOUT_BLOCK = 64 };

/* Block j of rank r sits at stripe j: p blocks and one hole of a block per stripe. */
static int64_t block_off(int r, int64_t j, int64_t block) { return (j * (t_nprocs + 1) + r) * block; }

static unsigned char datum(int r, int64_t j, int64_t i, int salt) { return pattern_new(r, j * 4099 + i, salt); }

/* Every rank's path of a call, compared as text across ranks. */
static void same_path_everywhere(const colio_stats *st, const char *want, const char *what)
{
    char mine[16] = {0}, lo[16], hi[16];
    snprintf(mine, sizeof mine, "%s", st->last.strategy);
    MPI_Allreduce(mine, lo, 16, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 16, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD);
    CHECK(memcmp(lo, hi, 16) == 0, "%s: the ranks took different paths (%s on rank %d)", what, mine, t_rank);
    if (want)
        CHECK(strcmp(mine, want) == 0, "%s: path %s, expected %s (predicted two-phase %g s, direct %g s)", what,
              mine, want, st->last.predicted_two_phase, st->last.predicted_direct);
}

/*
 * Open path with hints and set this rank's view of `stripes` blocks of
 * `block` bytes (*ftype, freed by the caller after the close); NULL when
 * the open failed (checked).
 */
static colio_file *open_blocks(const char *path, const char *hints, int64_t block, int64_t stripes,
                               MPI_Datatype *ftype)
{
    MPI_Info info = test_info(hints);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    if (fh == NULL)
        return NULL;
    MPI_Type_vector((int)stripes, (int)block, (int)(block * (t_nprocs + 1)), MPI_BYTE, ftype);
    MPI_Type_commit(ftype);
    CHECK_RC(colio_set_view(fh, block_off(t_rank, 0, block), MPI_BYTE, *ftype, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    return fh;
}

/*
 * Interleaved blocks under `hints`, `stripes` blocks a rank, written and read
 * back: the bytes read and the whole file (holes keep their old bytes)
 * checked. *w and *r: the write's and the read's statistics.
 */
static void run_case(const char *path, const char *hints, const char *what, int64_t block, int64_t stripes,
                     colio_stats *w, colio_stats *r, const char *read_hints)
{
    int64_t size = stripes * (t_nprocs + 1) * block, mine = stripes * block;
    memset(w, 0, sizeof *w), memset(r, 0, sizeof *r);
    test_prefill(path, size);
    MPI_Datatype ftype;
    colio_file *fh = open_blocks(path, hints, block, stripes, &ftype);
    if (fh == NULL)
        return;
    unsigned char *buf = malloc((size_t)mine), *back = malloc((size_t)mine);
    for (int64_t j = 0; j < stripes; j++)
        for (int64_t i = 0; i < block; i++)
            buf[j * block + i] = datum(t_rank, j, i, (int)block);
    CHECK_RC(tu_write_at_all(fh, 0, buf, mine, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    colio_get_stats(fh, w);
    if (read_hints) { /* colio_set_info between the write and the read */
        MPI_Info then = test_info(read_hints);
        CHECK_RC(colio_set_info(fh, then), COLIO_SUCCESS, fh);
        MPI_Info_free(&then);
    }
    memset(back, 0xEE, (size_t)mine);
    CHECK_RC(tu_read_at_all(fh, 0, back, mine, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    colio_get_stats(fh, r);
    CHECK(memcmp(buf, back, (size_t)mine) == 0, "%s: the read returned other bytes", what);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    MPI_Type_free(&ftype);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) { /* the whole file: blocks, and holes with their old bytes */
        unsigned char *file = malloc((size_t)size);
        CHECK(test_read_file(path, file, size) == 0, "%s: read the file", what);
        int64_t bad = 0;
        for (int64_t j = 0; j < stripes; j++)
            for (int q = 0; q <= t_nprocs; q++)
                for (int64_t i = 0; i < block; i++) {
                    int64_t x = block_off(q, j, block) + i;
                    bad += file[x] != (q < t_nprocs ? datum(q, j, i, (int)block) : pattern_old(x));
                }
        CHECK(bad == 0, "%s: %lld wrong bytes in the file", what, (long long)bad);
        free(file);
    }
    free(buf), free(back);
}

static void one_case(const char *path, const char *name, const char *figures, int64_t block, const char *want_w,
                     const char *want_r)
{
    char hints[600], what[160];
    snprintf(hints, sizeof hints, "colio_storage_model=%s", figures);
    snprintf(what, sizeof what, "%s figures, %lld-byte blocks", name, (long long)block);
    colio_stats w, r;
    run_case(path, hints, what, block, STRIPES, &w, &r, NULL);
    same_path_everywhere(&w, want_w, what);
    same_path_everywhere(&r, want_r, what);
}

/*
 * This rank's `stripes` 64-byte blocks read through a view in which the
 * block of stripe j sits at slot r, or (alternating) slot r + 1 in odd
 * stripes: strides that never repeat, so runs of at most two pieces and a
 * record per piece, against one strided run a rank. The bytes read are the
 * file's old ones (checked); *predicted: the model's two-phase time.
 */
static void read_layout(const char *path, int alternating, int64_t stripes, double *predicted)
{
    enum { BLOCK = LAYOUT_BLOCK };
    MPI_Info info = test_info("colio_storage_model=" FAST);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    if (fh == NULL)
        return;
    int *lens = malloc((size_t)stripes * sizeof *lens), *disps = malloc((size_t)stripes * sizeof *disps);
    for (int64_t j = 0; j < stripes; j++)
        lens[j] = BLOCK, disps[j] = (int)((j * (t_nprocs + 1) + t_rank + (alternating ? (j & 1) : 0)) * BLOCK);
    MPI_Datatype ftype;
    MPI_Type_indexed((int)stripes, lens, disps, MPI_BYTE, &ftype);
    MPI_Type_commit(&ftype);
    CHECK_RC(colio_set_view(fh, 0, MPI_BYTE, ftype, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    unsigned char *back = malloc((size_t)(stripes * BLOCK));
    CHECK_RC(tu_read_at_all(fh, 0, back, (int)(stripes * BLOCK), MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    int64_t bad = 0;
    for (int64_t j = 0; j < stripes; j++)
        for (int i = 0; i < BLOCK; i++)
            bad += back[j * BLOCK + i] != pattern_old(disps[j] + i);
    CHECK(bad == 0, "%s blocks: %lld bytes read wrong", alternating ? "alternating" : "strided", (long long)bad);
    colio_stats st;
    colio_get_stats(fh, &st);
    *predicted = st.last.predicted_two_phase;
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    MPI_Type_free(&ftype);
    free(lens), free(disps), free(back);
}

/*
 * The runs reach the model (SETUP's runs_sum, engine/strategy.c): the same
 * bytes in one strided run a rank are predicted cheaper for two-phase than
 * in a record per piece (packed, 8 bytes); had the runs not been counted,
 * the strided call would be priced as two words a piece, dearer.
 */
static void runs_reach_the_model(const char *path)
{
    test_prefill(path, (LAYOUT_STRIPES * (t_nprocs + 1) + 1) * LAYOUT_BLOCK);
    double strided = 0, alternating = 0;
    read_layout(path, 0, LAYOUT_STRIPES, &strided);
    read_layout(path, 1, LAYOUT_STRIPES, &alternating);
    if (t_nprocs > 1)
        CHECK(strided > 0 && strided < alternating, "strided runs predicted at %g s for two-phase, a record per "
              "piece at %g s: the runs should make it cheaper", strided, alternating);
}

/* The most rounds a rank took part in. */
static int64_t max_rounds(const colio_stats *st)
{
    int64_t mine = st->last.rounds, most;
    MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

/*
 * Round sizes in real calls (colio_model_round_bytes): 1 MiB of 4 KiB
 * blocks a rank, two-phase forced. Fast figures: 1 MiB rounds, so an
 * aggregator's share of over 1 MiB takes several; no model: cb_buffer_size
 * (one round); colio_round_size smaller: more rounds, larger than
 * cb_buffer_size: cb_buffer_size; colio_set_info changes it for the next
 * call. The same bytes every time.
 */
static void round_sizes(const char *path)
{
    const char *force = "romio_cb_write=enable;romio_cb_read=enable";
    struct { const char *extra, *what; } cases[] = {
        {"colio_storage_model=" FAST, "chosen rounds"},
        {"colio_storage_model=off", "no model"},
        {"colio_storage_model=" FAST ";colio_round_size=262144", "256 KiB rounds"},
        {"colio_storage_model=" FAST ";colio_round_size=64m", "rounds above cb_buffer_size"},
    };
    int64_t wr[4], rr[4];
    char hints[4][700];
    for (int c = 0; c < 4; c++) {
        snprintf(hints[c], sizeof hints[c], "%s;%s", force, cases[c].extra);
        colio_stats w, r;
        run_case(path, hints[c], cases[c].what, 4096, 256, &w, &r, NULL);
        wr[c] = max_rounds(&w), rr[c] = max_rounds(&r);
    }
    colio_stats w, r;
    run_case(path, hints[0], "256 KiB rounds by colio_set_info", 4096, 256, &w, &r, "colio_round_size=256k");
    CHECK(max_rounds(&r) > max_rounds(&w) && max_rounds(&w) == wr[0],
          "colio_set_info(colio_round_size=256k): %lld rounds reading after %lld writing", (long long)max_rounds(&r),
          (long long)max_rounds(&w));
    CHECK(wr[0] >= 2 && rr[0] >= 2, "chosen 1 MiB rounds: %lld writing, %lld reading (at least 2)",
          (long long)wr[0], (long long)rr[0]);
    CHECK(wr[1] == 1 && rr[1] == 1 && wr[3] == 1 && rr[3] == 1,
          "cb_buffer_size rounds: %lld / %lld without a model, %lld / %lld capped", (long long)wr[1],
          (long long)rr[1], (long long)wr[3], (long long)rr[3]);
    CHECK(wr[2] > wr[0] && rr[2] > rr[0], "256 KiB rounds: %lld / %lld, more than chosen", (long long)wr[2],
          (long long)rr[2]);
}

/* The probe writes its figures to the cache file a hint names; the file holds one line for this file system. */
static void probe_cache(const char *path)
{
    char cache[600], hints[700];
    snprintf(cache, sizeof cache, "%s.figures", path);
    if (t_rank == 0)
        unlink(cache);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(hints, sizeof hints, "colio_storage_model=probe;colio_storage_cache=%s", cache);
    test_prefill(path, 4096);
    MPI_Info info = test_info(hints);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    if (fh)
        CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    if (t_rank == 0 && !test_is_subfiled(path)) { /* a subfiled file's figures are its first subfile's */
        FILE *f = fopen(cache, "r");
        char line[512] = "";
        CHECK(f && fgets(line, sizeof line, f) && strncmp(line, "fs=", 3) == 0 && strstr(line, "write_call="),
              "the cache file %s holds the probe's figures (\"%s\")", cache, line);
        if (f)
            fclose(f);
        unlink(cache);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The null backend without a cost model keeps the fixed rules: small pieces still aggregate. */
static void null_backend(const char *path)
{
    MPI_Info info = test_info("colio_backend=null");
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    if (fh == NULL)
        return;
    enum { N = 256, LEN = 16 };
    MPI_Offset off[N], len[N];
    char buf[N * LEN];
    memset(buf, t_rank, sizeof buf);
    for (int i = 0; i < N; i++)
        off[i] = ((MPI_Offset)i * t_nprocs + t_rank) * LEN, len[i] = LEN;
    CHECK_RC(colio_write_list_all(fh, N, off, len, buf), COLIO_SUCCESS, fh);
    colio_stats st;
    colio_get_stats(fh, &st);
    same_path_everywhere(&st, t_nprocs > 1 ? "two-phase" : NULL, "null backend, 16-byte pieces");
    CHECK(st.last.predicted_direct == 0 && st.last.predicted_two_phase == 0, "null backend: no model ran");
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
}

static void bad_model(const char *path)
{
    MPI_Info info = test_info("colio_storage_model=write_bw=fast");
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    expect_all(rc, COLIO_ERR_HINT, NULL, "colio_storage_model=write_bw=fast", "colio_storage_model");
}

/*
 * A failed read among jobs that run at once: the last rank's 20th storage
 * read fails (EIO). Every rank returns COLIO_ERR_IO with one message, the
 * file is untouched, and the next read, without the fault, returns every
 * block.
 */
static void overlapped_failure(const char *path, const char *force)
{
    enum { BLOCK = 4096 };
    int64_t size = STRIPES * (t_nprocs + 1) * BLOCK, mine = STRIPES * BLOCK;
    char hints[800];
    test_prefill(path, size);
    snprintf(hints, sizeof hints, "%s;colio_storage_model=%s;colio_backend=fault;colio_fault=read:20:EIO:%d", force,
             SLOW, t_nprocs - 1);
    MPI_Datatype ftype;
    colio_file *fh = open_blocks(path, hints, BLOCK, STRIPES, &ftype);
    if (fh == NULL)
        return;
    unsigned char *back = malloc((size_t)mine);
    int rc = tu_read_at_all(fh, 0, back, mine, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_IO, fh, "overlapped read jobs, one call failing", "at offset");
    colio_stats st;
    colio_get_stats(fh, &st);
    CHECK(st.last.io_jobs_handed >= 2 || t_rank != t_nprocs - 1, "the failing read ran %lld jobs at once",
          (long long)st.last.io_jobs_handed);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    MPI_Type_free(&ftype);
    snprintf(hints, sizeof hints, "%s;colio_storage_model=%s", force, SLOW);
    if ((fh = open_blocks(path, hints, BLOCK, STRIPES, &ftype)) != NULL) {
        memset(back, 0xEE, (size_t)mine);
        CHECK_RC(tu_read_at_all(fh, 0, back, mine, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        int64_t bad = 0;
        for (int64_t j = 0; j < STRIPES; j++)
            for (int64_t i = 0; i < BLOCK; i++)
                bad += back[j * BLOCK + i] != pattern_old(block_off(t_rank, j, BLOCK) + i);
        CHECK(bad == 0, "the read after the failure: %lld wrong bytes", (long long)bad);
        CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
        MPI_Type_free(&ftype);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) { /* a failed read writes nothing */
        unsigned char *file = malloc((size_t)size);
        CHECK(test_read_file(path, file, size) == 0, "overlapped failure: read the file");
        int64_t bad = 0;
        for (int64_t x = 0; x < size; x++)
            bad += file[x] != pattern_old(x);
        CHECK(bad == 0, "overlapped failure: %lld bytes of the file changed", (long long)bad);
        free(file);
    }
    free(back);
}

/*
 * The direct path's jobs on storage whose calls wait (direct.c,
 * calls_overlap): with slow figures a blocking read's 64 pieces go to the
 * I/O executor in several jobs that run at once (a write's stay one job);
 * with fast ones the call runs its one job itself. The bytes checked either
 * way.
 */
static void overlapped_jobs(const char *path)
{
    const char *force = "romio_cb_write=disable;romio_cb_read=disable;romio_ds_read=disable"; /* a call a piece */
    char hints[700];
    colio_stats w, r;
    snprintf(hints, sizeof hints, "%s;colio_storage_model=%s", force, SLOW);
    run_case(path, hints, "direct path, slow figures", 65536, STRIPES, &w, &r, NULL);
    same_path_everywhere(&w, "direct", "direct path, slow figures (write)");
    same_path_everywhere(&r, "direct", "direct path, slow figures (read)");
    CHECK(w.last.io_jobs_handed == 0 && r.last.io_jobs_handed >= 2,
          "slow figures: %lld jobs handed to the executor writing (none: one job in order), %lld reading (at least 2)",
          (long long)w.last.io_jobs_handed, (long long)r.last.io_jobs_handed);
    CHECK(w.last.io_calls == STRIPES && r.last.io_calls == STRIPES, "slow figures: %lld / %lld calls, one a piece",
          (long long)w.last.io_calls, (long long)r.last.io_calls);
    overlapped_failure(path, force);
    snprintf(hints, sizeof hints, "%s;colio_storage_model=%s", force, FAST);
    run_case(path, hints, "direct path, fast figures", 65536, STRIPES, &w, &r, NULL);
    CHECK(w.last.io_jobs_handed == 0 && r.last.io_jobs_handed == 0,
          "fast figures: %lld / %lld jobs handed to the executor (none: the call runs its own)",
          (long long)w.last.io_jobs_handed, (long long)r.last.io_jobs_handed);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "strategy");
    save_env_hints(); /* a matrix run's own hints would force the paths */
    unsetenv("COLIO_HINTS");
    const char *two = t_nprocs > 1 ? "two-phase" : NULL, *direct = "direct";
    one_case(path, "fast", FAST, 64, two, NULL);
    one_case(path, "fast", FAST, 4096, NULL, NULL);
    one_case(path, "fast", FAST, 65536, direct, direct);
    one_case(path, "slow", SLOW, 64, two, NULL);
    one_case(path, "slow", SLOW, 4096, two, NULL);
    runs_reach_the_model(path);
    round_sizes(path);
    overlapped_jobs(path);
    probe_cache(path);
    null_backend(path);
    bad_model(path);
    restore_env_hints();
    test_unlink(path);
    return test_finish("test_strategy");
}
