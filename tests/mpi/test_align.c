/*
 * Aligned reads (src/engine/direct.c, round.c; docs/DESIGN.md, "Aligned
 * reads"): a read goes through memory at its file offset's alignment, the
 * direct path's bounce buffer when the user's memory is off it, the
 * collective buffer moved to each round's alignment. Every rank reads a list
 * of pieces of 100 B to 300 KB whose file offsets leave every remainder
 * modulo 64, into memory 0, 8, 16, 24... bytes past a page, through every
 * path a read can take: direct one call per piece, direct sieved, two-phase
 * with small rounds (pipelined read-ahead) starting off the alignment, and
 * two-phase with one-sided data. Each piece must hold the file's bytes, as
 * computed here from the prefill formula, and the bytes around the user's
 * memory must stay untouched; then the same through colio_read_at_all of one
 * piece per rank. Misaligned direct reads go through the bounce buffer
 * only where this CPU copies them slowly (base/copy_shift.h), and so do
 * two-phase reads' messages land aside first: the suite runs this with
 * COLIO_MISALIGNED_READS=slow and fast too. Last, blocks written direct
 * and two-phase from memory at each shift, which may go through colio's
 * buffers first; under the forced rules the statistics' detour_bytes must
 * say whether they did.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { NPIECES = 7, STRIDE = 310000, GUARD = 64, FIRST = 37, NBLOCKS = 6, BLOCK = 20011 };

static const int64_t piece_len[NPIECES] = {100, 1000, 1024, 4101, 65539, 300000, 2048};

static int64_t piece_off(int r, int j) { return FIRST + (int64_t)(r + j * t_nprocs) * STRIDE + (j * 13 + r * 5) % 64; }

static int64_t file_size(void) { return FIRST + (int64_t)t_nprocs * NPIECES * STRIDE + STRIDE; }

/* The user's memory: bytes from `shift` past a page, guard bytes of 0xEE on both sides. */
static unsigned char *user_memory(int64_t bytes, int shift, unsigned char **base_p)
{
    unsigned char *base = NULL;
    if (posix_memalign((void **)&base, 4096, (size_t)(bytes + 2 * GUARD + 4096)) != 0)
        return NULL;
    memset(base, 0xEE, (size_t)(bytes + 2 * GUARD + 4096));
    *base_p = base;
    return base + GUARD + shift;
}

static void check_memory(const unsigned char *m, int64_t bytes, const MPI_Offset *off, const MPI_Offset *len, int n,
                         const char *what)
{
    int64_t bad = 0, first = -1;
    for (int p = 0, at = 0; p < n; p++)
        for (int64_t i = 0; i < len[p]; i++, at++)
            if (m[at] != pattern_old(off[p] + i) && bad++ == 0)
                first = at;
    int guards = 1;
    for (int g = 1; g <= GUARD; g++)
        guards &= m[-g] == 0xEE && m[bytes + g - 1] == 0xEE;
    CHECK(bad == 0 && guards, "%s: %lld wrong bytes (the first at %lld of %lld), guards %s", what, (long long)bad,
          (long long)first, (long long)bytes, guards ? "kept" : "overwritten");
}

static void read_lists(const char *path, const char *hints, int shift)
{
    MPI_Offset off[NPIECES], len[NPIECES];
    int64_t bytes = 0;
    for (int j = 0; j < NPIECES; j++) {
        off[j] = piece_off(t_rank, j), len[j] = piece_len[j];
        bytes += len[j];
    }
    unsigned char *base = NULL, *m = user_memory(bytes, shift, &base);
    CHECK(m != NULL, "memory for %lld bytes", (long long)bytes);
    if (m == NULL)
        return;
    colio_file *fh = test_open(path, MPI_MODE_RDONLY, hints);
    char what[256];
    snprintf(what, sizeof what, "list read, %s, memory %d bytes off", hints, shift);
    if (fh) {
        CHECK_RC(tu_read_list_all(fh, NPIECES, off, len, m), COLIO_SUCCESS, fh);
        check_memory(m, bytes, off, len, NPIECES, what);
        /* one piece per rank, its memory one byte further along each time */
        int j = 5;
        memset(base, 0xEE, (size_t)(bytes + 2 * GUARD + 4096));
        unsigned char *one = m + 1;
        MPI_Status st;
        CHECK_RC(tu_read_at_all(fh, off[j], one, len[j], MPI_BYTE, &st), COLIO_SUCCESS, fh);
        snprintf(what, sizeof what, "read_at_all, %s, memory %d bytes off", hints, shift + 1);
        check_memory(one, len[j], &off[j], &len[j], 1, what);
        colio_close(&fh);
    }
    free(base);
}

/*
 * Under a forced rule the statistics must say whether pieces went a detour
 * (COLIO_MISALIGNED_READS=fast: none; slow: some, where this rank has
 * pieces to move at a slow shift: shifts vary from block to block). TAM
 * relays messages, so its messages never go one.
 */
static void check_detours(colio_file *fh, int direct, const char *what)
{
    const char *rule = getenv("COLIO_MISALIGNED_READS");
    colio_stats st;
    if (rule == NULL || colio_get_stats(fh, &st) != COLIO_SUCCESS)
        return;
    if (strcmp(rule, "fast") == 0)
        CHECK(st.last.detour_bytes == 0, "%s: %lld bytes went a detour where no shift is slow", what,
              (long long)st.last.detour_bytes);
    else if (strcmp(rule, "slow") == 0 && (direct || (t_nprocs > 1 && strcmp(st.last.data_kernel, "tam") != 0)))
        CHECK(st.last.detour_bytes > 0, "%s: no detour where every shift but multiples of 32 is slow", what);
}

/* This rank's blocks: every t_nprocs-th BLOCK bytes from FIRST on. */
static void my_blocks(MPI_Offset off[NBLOCKS], MPI_Offset len[NBLOCKS])
{
    for (int j = 0; j < NBLOCKS; j++)
        off[j] = FIRST + (int64_t)(j * t_nprocs + t_rank) * BLOCK, len[j] = BLOCK;
}

/* Two-phase forced by cb_key, every rank an aggregator, rounds of about a block. */
static void two_phase_hints(char *hints, size_t n, const char *cb_key)
{
    snprintf(hints, n, "%s=enable;cb_nodes=%d;colio_round_size=%d", cb_key, t_nprocs, BLOCK + 4000);
}

/*
 * Blocks of BLOCK bytes dealt round-robin, read two-phase into one stretch
 * of memory, rounds of about a block: every round brings each rank one
 * piece of several KiB from every aggregator, which MPI copies in one, so
 * at a slow shift several of them land in colio's memory side by side
 * before they are copied out (round.c, put_aside).
 */
static void read_blocks(const char *path, int shift)
{
    MPI_Offset off[NBLOCKS], len[NBLOCKS];
    my_blocks(off, len);
    unsigned char *base = NULL, *m = user_memory((int64_t)NBLOCKS * BLOCK, shift, &base);
    CHECK(m != NULL, "memory for %d blocks", NBLOCKS);
    if (m == NULL)
        return;
    char hints[128], what[160];
    two_phase_hints(hints, sizeof hints, "romio_cb_read");
    colio_file *fh = test_open(path, MPI_MODE_RDONLY, hints);
    if (fh) {
        CHECK_RC(tu_read_list_all(fh, NBLOCKS, off, len, m), COLIO_SUCCESS, fh);
        snprintf(what, sizeof what, "blocks read two-phase, memory %d bytes off", shift);
        check_memory(m, (int64_t)NBLOCKS * BLOCK, off, len, NBLOCKS, what);
        check_detours(fh, 0, what);
        colio_close(&fh);
    }
    free(base);
}

/*
 * The same blocks written from memory at a shift, two-phase (MPI copies
 * each piece from user memory into the aggregator's collective buffer, and
 * where that copy is slow the piece is packed at a waypoint first: round.c,
 * put_aside) and direct (where pwrite's copy into the page cache is slow,
 * the piece goes through the bounce buffer at its offset's alignment:
 * direct.c). Every written byte is checked, and the holes keep the
 * prefilled bytes.
 */
static void write_blocks(const char *path, int two_phase, int shift)
{
    int64_t size = FIRST + (int64_t)NBLOCKS * t_nprocs * BLOCK + BLOCK;
    MPI_Offset off[NBLOCKS], len[NBLOCKS];
    my_blocks(off, len);
    unsigned char *base = NULL, *m = user_memory((int64_t)NBLOCKS * BLOCK, shift, &base);
    unsigned char *image = calloc((size_t)size, 1), *mask = calloc((size_t)size, 1);
    CHECK(m && image && mask, "memory for %d blocks", NBLOCKS);
    if (m && image && mask) {
        for (int j = 0; j < NBLOCKS; j++)
            for (int64_t i = 0; i < BLOCK; i++) {
                m[j * BLOCK + i] = pattern_new(t_rank, j * BLOCK + i, shift);
                image[off[j] + i] = m[j * BLOCK + i], mask[off[j] + i] = 1;
            }
        test_prefill(path, size);
        char hints[128], what[160];
        if (two_phase)
            two_phase_hints(hints, sizeof hints, "romio_cb_write");
        else
            snprintf(hints, sizeof hints, "romio_cb_write=disable");
        colio_file *fh = test_open(path, MPI_MODE_RDWR, hints);
        snprintf(what, sizeof what, "blocks written %s, memory %d bytes off", two_phase ? "two-phase" : "direct", shift);
        if (fh) {
            CHECK_RC(tu_write_list_all(fh, NBLOCKS, off, len, m), COLIO_SUCCESS, fh);
            check_detours(fh, !two_phase, what);
            colio_close(&fh);
        }
        int64_t bad = verify_file_images(path, image, mask, size, what);
        CHECK(bad == 0, "%s: %lld wrong bytes in the file", what, (long long)bad);
    }
    free(base), free(image), free(mask);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "align");
    test_prefill(path, file_size());
    static const char *paths[] = {
        "romio_cb_read=disable;romio_ds_read=disable",
        "romio_cb_read=disable;romio_ds_read=enable",
        "romio_cb_read=enable;colio_round_size=100000",
        "romio_cb_read=enable;colio_round_size=100000;colio_pipeline=1",
        "romio_cb_read=enable;colio_exchange=rma",
        "",
    };
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    for (size_t c = 0; c < sizeof paths / sizeof paths[0]; c++)
        /* Open MPI 4's one-sided pt2pt component refuses MPI_THREAD_MULTIPLE (as in test_open) */
        for (int shift = 0; shift < 64 && !(level == MPI_THREAD_MULTIPLE && strstr(paths[c], "rma")); shift += 24)
            read_lists(path, paths[c], (shift + 16 * t_rank + 8 * (int)c) % 64);
    for (int shift = 0; shift < 64; shift += 8)
        read_blocks(path, (shift + (int)(FIRST % 64) + 8 * t_rank) % 64);
    test_unlink(path);
    test_path(path, sizeof path, "align-write");
    for (int two_phase = 0; two_phase < 2; two_phase++)
        for (int shift = 0; shift < 64; shift += 8)
            write_blocks(path, two_phase, (shift + 8 * t_rank) % 64);
    test_unlink(path);
    return test_finish("test_align");
}
