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
 * the engine took are counted; under the default hints a run must have seen
 * the one-piece paths it is meant to mix with the others. Then the same
 * kind of calls through the fault backend, one storage write or read of
 * one rank failing (ENOSPC or EIO) in each of a few opens: the call that
 * meets it returns that error with one message on every rank, the others
 * succeed, and a failed write changes no byte outside its own pieces.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define FILE_MAX (1 << 19)
#define CALLS 150
#define FAULT_OPENS 6
#define FAULT_CALLS 16
#define MAX_PIECES 8192 /* 64 KiB of 8-byte blocks */
#define SLOT_SMALL 2048
#define SLOT_LARGE 40960

enum { SHAPE_SMALL, SHAPE_LARGE, SHAPE_BLOCKS, SHAPE_RUNS, NSHAPES };
enum { VIA_AT, VIA_LIST, VIA_VIEW };
static const char *shape_name[] = {"one small piece", "one large piece", "interleaved blocks", "random runs"};
static const char *via_name[] = {"offset", "list", "view"};

typedef struct {
    int64_t off[MAX_PIECES], len[MAX_PIECES];
    int owner[MAX_PIECES];
    int n;
} pieces_t;

typedef struct {
    int shape, via, reading, nonblocking, follow, salt;
    uint64_t seed;
} call_t;

/* A generator of its own from a seed drawn from another (xorshift's next states would repeat that one's). */
static uint64_t own_stream(uint64_t seed, uint64_t salt)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (salt + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (z ^ (z >> 31)) | 1;
}

static unsigned char value(int64_t x, int salt) { return (unsigned char)(x * 151 + salt * 37 + (x >> 9) * 5 + 3); }

static void add(pieces_t *p, int64_t off, int64_t len, int owner)
{
    if (p->n < MAX_PIECES && len > 0)
        p->off[p->n] = off, p->len[p->n] = len, p->owner[p->n++] = owner;
}

/* One piece per rank in slots of slot bytes from base, some ranks empty; or packed, a few bytes apart or none. */
static void one_each(pieces_t *p, uint64_t *g, int64_t base, int64_t slot, int64_t least)
{
    int packed = test_xorshift(g) % 3 == 0;
    for (int r = 0, x = 0; r < t_nprocs; r++) {
        if (test_xorshift(g) % 6 == 0)
            continue;
        int64_t len = least + (int64_t)(test_xorshift(g) % (uint64_t)(slot / 2 - least));
        if (test_xorshift(g) % 5 == 0) /* the sizes that sit on the staging limit and IOR's */
            len = test_xorshift(g) % 2 ? 1024 : 64;
        int64_t at = packed ? x + (int64_t)(test_xorshift(g) % 4)
                            : r * slot + (int64_t)(test_xorshift(g) % (uint64_t)(slot - len + 1));
        add(p, base + at, len, r);
        x = (int)(at + len);
    }
}

/* Every rank's pieces of the call, in file order (the same on every rank); second: its follow-up. */
static void call_pieces(const call_t *c, pieces_t *p, int second)
{
    uint64_t g = own_stream(c->seed, 0);
    p->n = 0;
    int64_t span = c->shape == SHAPE_LARGE ? (int64_t)t_nprocs * SLOT_LARGE : 65536;
    int64_t base = (int64_t)(test_xorshift(&g) % (uint64_t)(FILE_MAX - span));
    if (second) { /* small pieces over the start of the first write's bytes */
        g ^= 0x51EDF00DULL;
        one_each(p, &g, base, SLOT_SMALL / 2, 1);
    } else if (c->shape == SHAPE_SMALL)
        one_each(p, &g, base, SLOT_SMALL, 1);
    else if (c->shape == SHAPE_LARGE)
        one_each(p, &g, base, SLOT_LARGE, SLOT_SMALL);
    else if (c->shape == SHAPE_BLOCKS) {
        static const int64_t blocks[] = {8, 64, 512, 4096};
        int64_t b = blocks[test_xorshift(&g) % 4], step = (t_nprocs + (int64_t)(test_xorshift(&g) % 2)) * b;
        for (int64_t x = base; x + step <= base + span; x += step)
            for (int r = 0; r < t_nprocs; r++)
                add(p, x + r * b, b, r);
    } else {
        int64_t most = test_xorshift(&g) % 3 == 0 ? 5000 : test_xorshift(&g) % 2 ? 300 : 8;
        for (int64_t x = base;;) {
            int64_t len = 1 + (int64_t)(test_xorshift(&g) % (uint64_t)most);
            int owner = (int)(test_xorshift(&g) % (uint64_t)(t_nprocs + 1)); /* t_nprocs: a hole */
            if (x + len > base + span)
                break;
            if (owner < t_nprocs)
                add(p, x, len, owner);
            x += len + (test_xorshift(&g) % 3 == 0 ? (int64_t)(test_xorshift(&g) % 200) : 0);
        }
    }
}

static call_t draw(uint64_t *g, int i)
{
    call_t c = {.shape = (int)(test_xorshift(g) % NSHAPES), .salt = i + 1, .seed = test_xorshift(g)};
    int one_piece = c.shape == SHAPE_SMALL || c.shape == SHAPE_LARGE;
    c.via = one_piece ? (int)(test_xorshift(g) % 3) : test_xorshift(g) % 2 ? VIA_LIST : VIA_VIEW;
    c.reading = test_xorshift(g) % 3 == 0;
    c.nonblocking = c.via != VIA_VIEW && test_xorshift(g) % 4 == 0; /* no set_view with requests in flight */
    c.follow = c.nonblocking && !c.reading && test_xorshift(g) % 2;
    return c;
}

/* The shadow after a write of pieces p with salt. */
static void shadow_write(const pieces_t *p, int salt, unsigned char *shadow)
{
    for (int i = 0; i < p->n; i++)
        for (int64_t x = p->off[i]; x < p->off[i] + p->len[i]; x++)
            shadow[x] = value(x, salt);
}

/* This rank's share of a call: its pieces and the memory they move through. */
typedef struct {
    MPI_Offset off[MAX_PIECES], len[MAX_PIECES];
    int n;
    int64_t bytes;
    int strided;        /* memory: every other byte (one piece through an offset only) */
    unsigned char *mem; /* 2 * bytes + 2 */
    MPI_Datatype memtype, filetype;
} share_t;

static void share_of(const pieces_t *p, const call_t *c, int second, share_t *s)
{
    s->n = 0, s->bytes = 0;
    for (int i = 0; i < p->n; i++)
        if (p->owner[i] == t_rank) {
            s->off[s->n] = p->off[i], s->len[s->n++] = p->len[i];
            s->bytes += p->len[i];
        }
    uint64_t g = own_stream(c->seed, 2 + 2 * (uint64_t)t_rank + (uint64_t)second);
    s->strided = !second && c->via == VIA_AT && s->n == 1 && test_xorshift(&g) % 2;
    s->mem = malloc((size_t)(2 * s->bytes + 2));
    memset(s->mem, 0xEE, (size_t)(2 * s->bytes + 2));
    s->memtype = MPI_BYTE;
    if (s->strided) {
        MPI_Type_vector((int)s->bytes, 1, 2, MPI_BYTE, &s->memtype);
        MPI_Type_commit(&s->memtype);
    }
}

/* Where byte k of the share sits in its memory. */
static int64_t mem_at(const share_t *s, int64_t k) { return s->strided ? 2 * k : k; }

static void fill(share_t *s, int salt)
{
    for (int i = 0, k = 0; i < s->n; i++)
        for (int64_t x = s->off[i]; x < s->off[i] + s->len[i]; x++, k++)
            s->mem[mem_at(s, k)] = value(x, salt);
}

static void share_free(share_t *s)
{
    if (s->strided)
        MPI_Type_free(&s->memtype);
    free(s->mem);
}

/* Wrong bytes of a read: the shadow's bytes at the share's offsets, memory between them untouched. */
static int64_t read_mismatches(const share_t *s, const unsigned char *shadow)
{
    int64_t bad = 0, k = 0;
    for (int i = 0; i < s->n; i++)
        for (int64_t x = s->off[i]; x < s->off[i] + s->len[i]; x++, k++)
            bad += s->mem[mem_at(s, k)] != shadow[x];
    for (int64_t m = 0; s->strided && m < 2 * s->bytes; m += 2)
        bad += s->mem[m + 1] != 0xEE;
    bad += s->mem[2 * s->bytes] != 0xEE || s->mem[2 * s->bytes + 1] != 0xEE;
    return bad;
}

/* A view of the share's pieces (a rank without pieces: a view of one byte, which it does not use). */
static int set_share_view(colio_file *fh, share_t *s)
{
    MPI_Aint *disp = malloc(sizeof *disp * (size_t)(s->n + 1));
    int *len = malloc(sizeof *len * (size_t)(s->n + 1));
    for (int i = 0; i < s->n; i++)
        disp[i] = (MPI_Aint)s->off[i], len[i] = (int)s->len[i];
    if (s->n == 0)
        disp[0] = 0, len[0] = 1;
    MPI_Type_create_hindexed(s->n ? s->n : 1, len, disp, MPI_BYTE, &s->filetype);
    MPI_Type_commit(&s->filetype);
    free(disp), free(len);
    return colio_set_view(fh, 0, MPI_BYTE, s->filetype, MPI_INFO_NULL);
}

/* Start (nonblocking) or make (blocking) the share's call; *req set when started. */
static int issue(colio_file *fh, const call_t *c, share_t *s, colio_request **req)
{
    int rd = c->reading;
    MPI_Count count = s->strided ? 1 : s->bytes;
    MPI_Offset at = s->n ? s->off[0] : 0;
    if (c->via == VIA_VIEW) {
        int rc = set_share_view(fh, s);
        if (rc == COLIO_SUCCESS)
            rc = rd ? colio_read_at_all(fh, 0, s->mem, s->bytes, MPI_BYTE, MPI_STATUS_IGNORE)
                    : colio_write_at_all(fh, 0, s->mem, s->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        int rc2 = colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL);
        MPI_Type_free(&s->filetype);
        return rc != COLIO_SUCCESS ? rc : rc2;
    }
    if (c->via == VIA_AT && s->n <= 1) {
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
static void adopt_failed_pieces(const char *path, const pieces_t *p, unsigned char *shadow)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unsigned char *f = malloc(FILE_MAX);
        if (test_read_file(path, f, FILE_MAX) == 0)
            for (int i = 0; i < p->n; i++)
                memcpy(shadow + p->off[i], f + p->off[i], (size_t)p->len[i]);
        free(f);
    }
    MPI_Bcast(shadow, FILE_MAX, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/*
 * One call (and its follow-up): the wrong bytes it read or left in the
 * file. fault: the code a failing storage call gives in this open (0:
 * none); *failed set when the call returned it.
 */
static int64_t run_call(colio_file *fh, const char *path, const call_t *c, unsigned char *shadow, tally_t *tally,
                        int fault, int *failed)
{
    pieces_t *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    share_t *s = malloc(sizeof *s), *f = malloc(sizeof *f);
    call_pieces(c, p, 0);
    share_of(p, c, 0, s);
    if (!c->reading)
        fill(s, c->salt);
    colio_request *req = NULL;
    int rc = issue(fh, c, s, c->nonblocking ? &req : NULL);
    *failed = agreed(fh, rc, fault, "the call");
    if (!c->nonblocking)
        count_strategy(fh, tally);
    if (c->follow) { /* issued behind the first, before its wait: lands after it */
        call_t fc = *c;
        fc.nonblocking = 0, fc.via = VIA_AT;
        call_pieces(c, q, 1);
        share_of(q, &fc, 1, f);
        fill(f, c->salt + 1000);
        rc = issue(fh, &fc, f, NULL);
        expect_all(rc, COLIO_SUCCESS, fh, "the follow-up write", NULL);
        count_strategy(fh, tally);
    }
    if (req)
        *failed |= agreed(fh, colio_wait(&req, MPI_STATUS_IGNORE), fault, "the wait");
    int64_t bad = 0;
    if (c->reading) {
        bad = *failed ? 0 : read_mismatches(s, shadow); /* a failed read's bytes are anything */
    } else {
        shadow_write(p, c->salt, shadow);
        if (c->follow)
            shadow_write(q, c->salt + 1000, shadow);
        if (*failed)
            adopt_failed_pieces(path, p, shadow);
        bad = test_check_file(path, shadow, FILE_MAX, "the file after the call");
    }
    share_free(s);
    if (c->follow)
        share_free(f);
    free(p), free(q), free(s), free(f);
    return bad;
}

/* n calls drawn from g on the open file: 0, or the first call's number that went wrong. */
static int run_calls(colio_file *fh, const char *path, uint64_t *g, int n, unsigned char *shadow, tally_t *tally,
                     int fault, int *failures)
{
    for (int i = 0; i < n; i++) {
        call_t c = draw(g, i);
        if (fault)
            c.follow = 0; /* a failed write in flight leaves the bytes behind it to anything */
        int failed = 0;
        int64_t bad = run_call(fh, path, &c, shadow, tally, fault, &failed);
        *failures += failed;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(bad == 0, "call %d (%s %s through %s%s%s): %lld wrong bytes", i, shape_name[c.shape],
              c.reading ? "read" : "write", via_name[c.via], c.nonblocking ? ", nonblocking" : "",
              c.follow ? ", a small write behind it" : "", (long long)bad);
        if (bad || test_all_failures())
            return i + 1;
    }
    return 0;
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
        CHECK(failures <= 1, "%s: %d calls failed, one storage call did", hints, failures);
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
    char path[512];
    test_path(path, sizeof path, "mix_random");
    test_prefill(path, FILE_MAX);
    unsigned char *shadow = malloc(FILE_MAX);
    for (int64_t x = 0; x < FILE_MAX; x++)
        shadow[x] = pattern_old(x);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "open", NULL);
    uint64_t g = 0x3A1C0DE5ULL;
    tally_t tally = {0};
    int failures = 0, wrong = fh ? run_calls(fh, path, &g, CALLS, shadow, &tally, 0, &failures) : 1;
    const char *hints = getenv("COLIO_HINTS");
    char agree[16] = "";
    int flag = 0;
    if (fh)
        colio_get_hint(fh, "colio_agreements", agree, sizeof agree, &flag);
    if (t_rank == 0) {
        printf("test_mix_random: strategies on rank 0:");
        for (int i = 0; i < tally.n; i++)
            printf(" %s %d", tally.name[i], tally.count[i]);
        printf("\n");
    }
    if (hints == NULL || hints[0] == '\0') { /* the defaults: the one-piece paths mixed with the others */
        CHECK(seen(&tally, "early") > 0, "no call took the early direct path");
        CHECK(t_nprocs == 1 || !flag || strcmp(agree, "shm") != 0 || seen(&tally, "staged") > 0,
              "no call was staged");
    }
    colio_close(&fh);
    if (!wrong)
        faulty_opens(path, &g, shadow, &tally);
    free(shadow);
    test_unlink(path);
    return test_finish("test_mix_random");
}
