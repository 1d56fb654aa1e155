/*
 * Every path in one random sequence of calls, under the hints the run gives
 * (the defaults unless COLIO_HINTS says otherwise): a seeded series of
 * writes and reads over one file, each call of one shape
 *   - one small piece per rank, in slots apart or packed a few bytes
 *     apart (staged or early direct, by size),
 *   - one large piece per rank (early direct),
 *   - interleaved blocks of 8 B-4 KiB, with or without holes between
 *     rounds (two-phase, sieved or direct, as the call's strategy picks),
 *   - random runs owned by random ranks, holes between (the same),
 * made through one of three interfaces (an offset and a count, memory
 * contiguous or every other byte; a list of pieces; a file view of the
 * pieces, then a call at its offset 0), some ranks empty, some writes
 * nonblocking with a blocking small write over the same bytes issued
 * before the wait (it must land after them, in issue order). Every rank
 * computes all ranks' pieces from the seed; after each write rank 0
 * compares the whole file with a shadow image kept from the formula (holes
 * keep their old bytes), after each read every rank compares its bytes
 * with the shadow (memory between strided bytes untouched). The strategies
 * the engine took are counted; where romio_cb_write is automatic a run must
 * have seen the one-piece paths it is meant to mix with the others (staged
 * ones where agreements go through node-shared memory, also under
 * MPI_THREAD_MULTIPLE). Then the same
 * kind of calls through the fault backend, one storage write or read of
 * one rank failing (ENOSPC or EIO) in each of a few opens (on a subfiled
 * file one per subfile): the call that meets it returns that error with
 * one message on every rank, the others succeed, and a failed write
 * changes no byte outside its own pieces. With COLIO_TEST_SUBFILING=1 and
 * colio_subfiles in COLIO_HINTS the file is subfiled (testutil.h);
 * COLIO_TEST_SEED=N draws another sequence (ctest keeps the default one).
 */
#include <stdlib.h>
#include <string.h>

#include "random_calls.h"
#include "testutil.h"

#define CALLS 150
#define FAULT_OPENS 6
#define FAULT_CALLS 16

static const char *via_name[] = {"offset", "list", "view"};

/* A view of the share's pieces. */
static int set_share_view(colio_file *fh, rc_share_t *s)
{
    rc_share_filetype(s);
    return colio_set_view(fh, 0, MPI_BYTE, s->filetype, MPI_INFO_NULL);
}

/* Start (nonblocking) or make (blocking) the share's call; *req set when started. */
static int issue(colio_file *fh, const rc_call_t *c, rc_share_t *s, colio_request **req)
{
    int rd = c->reading;
    MPI_Count count = s->strided ? 1 : s->bytes;
    MPI_Offset at = s->n ? s->off[0] : 0;
    if (c->via == RC_VIA_VIEW) {
        int rc = set_share_view(fh, s);
        if (rc == COLIO_SUCCESS)
            rc = rd ? colio_read_at_all(fh, 0, s->mem, s->bytes, MPI_BYTE, MPI_STATUS_IGNORE)
                    : colio_write_at_all(fh, 0, s->mem, s->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        int rc2 = colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
        MPI_Type_free(&s->filetype);
        return rc != COLIO_SUCCESS ? rc : rc2;
    }
    if (c->via == RC_VIA_AT && s->n <= 1) {
        if (req)
            return rd ? colio_iread_at_all(fh, at, s->mem, count, s->memtype, req)
                      : colio_iwrite_at_all(fh, at, s->mem, count, s->memtype, req);
        return rd ? colio_read_at_all(fh, at, s->mem, count, s->memtype, MPI_STATUS_IGNORE)
                  : colio_write_at_all(fh, at, s->mem, count, s->memtype, MPI_STATUS_IGNORE);
    }
    if (req)
        return rd ? colio_iread_list_all(fh, s->n, s->off, s->len, s->mem, req)
                  : colio_iwrite_list_all(fh, s->n, s->off, s->len, s->mem, req);
    return rd ? colio_read_list_all(fh, s->n, s->off, s->len, s->mem)
              : colio_write_list_all(fh, s->n, s->off, s->len, s->mem);
}

/* Strategies the engine reported, counted by name. */
typedef struct {
    char name[8][12];
    int count[8], n;
} tally_t;

static void count_strategy(colio_file *fh, tally_t *t)
{
    colio_stats st;
    if (colio_get_stats(fh, &st) != COLIO_SUCCESS)
        return;
    int i = 0;
    while (i < t->n && strcmp(t->name[i], st.last.strategy) != 0)
        i++;
    if (i == t->n && t->n < 8)
        snprintf(t->name[t->n++], sizeof t->name[0], "%s", st.last.strategy);
    if (i < t->n)
        t->count[i]++;
}

static int hint_is(colio_file *fh, const char *key, const char *value)
{
    char v[64] = "";
    int flag = 0;
    colio_get_hint(fh, key, v, sizeof v, &flag);
    return flag && strcmp(v, value) == 0;
}

static int seen(const tally_t *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0)
            return t->count[i];
    return 0;
}

/*
 * The call's code, the same on every rank with one message: success, or in
 * an open with a fault (fault: its code) that code. 1 when the call failed.
 */
static int agreed(colio_file *fh, int rc, int fault, const char *what)
{
    int want = rc;
    MPI_Bcast(&want, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (want != fault)
        want = COLIO_SUCCESS;
    expect_all(rc, want, fh, what, NULL);
    return want != COLIO_SUCCESS;
}

/* After a failed write its pieces hold what the file holds (anything); the rest must not have moved. */
static void adopt_failed_pieces(const char *path, const rc_pieces_t *p, unsigned char *shadow)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unsigned char *f = malloc(RC_FILE_MAX);
        if (test_read_file(path, f, RC_FILE_MAX) == 0)
            for (int i = 0; i < p->n; i++)
                memcpy(shadow + p->off[i], f + p->off[i], (size_t)p->len[i]);
        free(f);
    }
    MPI_Bcast(shadow, RC_FILE_MAX, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/*
 * One call (and its follow-up): the wrong bytes it read or left in the
 * file. fault: the code a failing storage call gives in this open (0:
 * none); *failed set when the call returned it.
 */
static int64_t run_call(colio_file *fh, const char *path, const rc_call_t *c, unsigned char *shadow, tally_t *tally,
                        int fault, int *failed)
{
    rc_pieces_t *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    rc_share_t *s = malloc(sizeof *s), *f = malloc(sizeof *f);
    rc_call_pieces(c, p, 0);
    rc_share_of(p, c, 0, s);
    if (!c->reading)
        rc_fill(s, c->salt);
    colio_request *req = NULL;
    int rc = issue(fh, c, s, c->nonblocking ? &req : NULL);
    *failed = agreed(fh, rc, fault, "the call");
    if (!c->nonblocking)
        count_strategy(fh, tally);
    if (c->follow) { /* issued behind the first, before its wait: lands after it */
        rc_call_t fc = *c;
        fc.nonblocking = 0, fc.via = RC_VIA_AT;
        rc_call_pieces(c, q, 1);
        rc_share_of(q, &fc, 1, f);
        rc_fill(f, c->salt + 1000);
        rc = issue(fh, &fc, f, NULL);
        expect_all(rc, COLIO_SUCCESS, fh, "the follow-up write", NULL);
        count_strategy(fh, tally);
    }
    if (req)
        *failed |= agreed(fh, colio_wait(&req, MPI_STATUS_IGNORE), fault, "the wait");
    int64_t bad = 0;
    if (c->reading) {
        bad = *failed ? 0 : rc_read_mismatches(s, shadow); /* a failed read's bytes are anything */
    } else {
        rc_shadow_write(p, c->salt, shadow);
        if (c->follow)
            rc_shadow_write(q, c->salt + 1000, shadow);
        if (*failed)
            adopt_failed_pieces(path, p, shadow);
        bad = test_check_file(path, shadow, RC_FILE_MAX, "the file after the call");
    }
    rc_share_free(s);
    if (c->follow)
        rc_share_free(f);
    free(p), free(q), free(s), free(f);
    return bad;
}

/* n calls drawn from g on the open file: 0, or the first call's number that went wrong. */
static int run_calls(colio_file *fh, const char *path, uint64_t *g, int n, unsigned char *shadow, tally_t *tally,
                     int fault, int *failures)
{
    for (int i = 0; i < n; i++) {
        rc_call_t c = rc_draw(g, i);
        if (fault)
            c.follow = 0; /* a failed write in flight leaves the bytes behind it to anything */
        int failed = 0;
        int64_t bad = run_call(fh, path, &c, shadow, tally, fault, &failed);
        *failures += failed;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(bad == 0, "call %d (%s %s through %s%s%s): %lld wrong bytes", i, rc_shape_name[c.shape],
              c.reading ? "read" : "write", via_name[c.via], c.nonblocking ? ", nonblocking" : "",
              c.follow ? ", a small write behind it" : "", (long long)bad);
        if (bad || test_all_failures())
            return i + 1;
    }
    return 0;
}

/* The calls one injected fault may fail: one, or on a subfiled file one per subfile (the Nth call counts per subfile). */
static int faults_at_most(colio_file *fh)
{
    char v[32] = "";
    int flag = 0;
    colio_get_hint(fh, "colio_subfiles", v, sizeof v, &flag);
    int n = flag ? atoi(v) : 0;
    return n > 1 ? n : flag && strcmp(v, "node") == 0 ? t_nprocs : 1;
}

/* Opens with one storage call of one rank failing, the same kind of calls in each. */
static void faulty_opens(const char *path, uint64_t *g, unsigned char *shadow, tally_t *tally)
{
    int total = 0;
    for (int k = 0; k < FAULT_OPENS; k++) {
        int reads = test_xorshift(g) % 3 == 0, nth = 1 + (int)(test_xorshift(g) % 4);
        int rank = (int)(test_xorshift(g) % (uint64_t)t_nprocs), enospc = !reads && test_xorshift(g) % 2;
        char hints[128];
        snprintf(hints, sizeof hints, "colio_backend=fault;colio_fault=%s:%d:%s:%d", reads ? "read" : "write", nth,
                 enospc ? "ENOSPC" : "EIO", rank);
        MPI_Info info = test_info(hints);
        colio_file *fh = NULL;
        int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
        MPI_Info_free(&info);
        expect_all(rc, COLIO_SUCCESS, fh, hints, NULL);
        int failures = 0, wrong = fh ? run_calls(fh, path, g, FAULT_CALLS, shadow, tally,
                                                 enospc ? COLIO_ERR_NOSPC : COLIO_ERR_IO, &failures) : 1;
        CHECK(failures <= (fh ? faults_at_most(fh) : 1), "%s: %d calls failed", hints, failures);
        total += failures;
        colio_close(&fh);
        if (wrong)
            return;
    }
    if (t_rank == 0)
        printf("test_mix_random: %d of %d opens with a fault had a call fail\n", total, FAULT_OPENS);
    CHECK(total > 0, "no call met the injected fault in %d opens", FAULT_OPENS);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    rc_setup(MPI_COMM_WORLD);
    char path[512];
    test_path(path, sizeof path, "mix_random");
    test_prefill(path, RC_FILE_MAX);
    unsigned char *shadow = malloc(RC_FILE_MAX);
    for (int64_t x = 0; x < RC_FILE_MAX; x++)
        shadow[x] = pattern_old(x);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "open", NULL);
    const char *seed = getenv("COLIO_TEST_SEED"); /* another sequence, e.g. to search for failures */
    uint64_t g = seed && *seed ? rc_own_stream(strtoull(seed, NULL, 0), 0) : 0x3A1C0DE5ULL;
    if (seed && *seed && t_rank == 0)
        printf("test_mix_random: COLIO_TEST_SEED=%s\n", seed);
    tally_t tally = {0};
    int failures = 0, wrong = fh ? run_calls(fh, path, &g, CALLS, shadow, &tally, 0, &failures) : 1;
    if (t_rank == 0) {
        printf("test_mix_random: strategies on rank 0:");
        for (int i = 0; i < tally.n; i++)
            printf(" %s %d", tally.name[i], tally.count[i]);
        printf("\n");
    }
    if (fh && hint_is(fh, "romio_cb_write", "automatic")) { /* the one-piece paths mixed with the others */
        CHECK(seen(&tally, "early") > 0, "no call took the early direct path");
        /* under MPI_THREAD_MULTIPLE too (nbthread): files of their own keep node-shared slots */
        int staged = seen(&tally, "staged"); /* on some rank (one alone on an emulated node stages nothing) */
        MPI_Allreduce(MPI_IN_PLACE, &staged, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(test_largest_node() == 1 || !hint_is(fh, "colio_agreements", "shm") ||
                  hint_is(fh, "colio_stage_bytes", "0") || staged > 0,
              "no call was staged");
    }
    colio_close(&fh);
    if (!wrong)
        faulty_opens(path, &g, shadow, &tally);
    free(shadow);
    test_unlink(path);
    return test_finish("test_mix_random");
}
