/*
 * Random collective calls for the tests that mix every path in one seeded
 * sequence (tests/mpi/test_mix_random.c through colio's API,
 * tests/clients/mpiio_random.c through plain MPI-IO): each call's pieces for
 * every rank, drawn from the call's seed so every rank knows them all; the
 * bytes a write puts there (a formula of the offset and the call); this
 * rank's share and its memory (contiguous, or every other byte through a
 * vector type); the checks of a read against the shadow image. MPI only,
 * no colio, so the drop-in clients can use it too. rc_setup first.
 */
#ifndef COLIO_RANDOM_CALLS_H
#define COLIO_RANDOM_CALLS_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rc_rank, rc_nprocs;

static inline void rc_setup(MPI_Comm comm)
{
    MPI_Comm_rank(comm, &rc_rank);
    MPI_Comm_size(comm, &rc_nprocs);
}

/* xorshift64 */
static inline uint64_t rc_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#define RC_MAX_PIECES 8192 /* 64 KiB of 8-byte blocks */
#define RC_SLOT_SMALL 2048
#define RC_SLOT_LARGE 40960

/* The file's bytes: 512 KiB, or room for two calls of one large piece per rank (beyond 6 ranks; rc_setup first). */
static inline int64_t rc_file_max(void)
{
    int64_t need = 2 * (int64_t)rc_nprocs * RC_SLOT_LARGE;
    return need > (1 << 19) ? need : (1 << 19);
}
#define RC_FILE_MAX rc_file_max()

enum { RC_SHAPE_SMALL, RC_SHAPE_LARGE, RC_SHAPE_BLOCKS, RC_SHAPE_RUNS, RC_NSHAPES };
enum { RC_VIA_AT, RC_VIA_LIST, RC_VIA_VIEW };
static const char *const rc_shape_name[] = {"one small piece", "one large piece", "interleaved blocks", "random runs"};

typedef struct {
    int64_t off[RC_MAX_PIECES], len[RC_MAX_PIECES];
    int owner[RC_MAX_PIECES];
    int n;
} rc_pieces_t;

typedef struct {
    int shape, via, reading, nonblocking, follow, salt;
    uint64_t seed;
} rc_call_t;

/* A generator of its own from a seed drawn from another (xorshift's next states would repeat that one's). */
static inline uint64_t rc_own_stream(uint64_t seed, uint64_t salt)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (salt + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (z ^ (z >> 31)) | 1;
}

static inline unsigned char rc_value(int64_t x, int salt) { return (unsigned char)(x * 151 + salt * 37 + (x >> 9) * 5 + 3); }

static inline void rc_add(rc_pieces_t *p, int64_t off, int64_t len, int owner)
{
    if (p->n < RC_MAX_PIECES && len > 0)
        p->off[p->n] = off, p->len[p->n] = len, p->owner[p->n++] = owner;
}

/* One piece per rank in slots of slot bytes from base, some ranks empty; or packed, a few bytes apart or none. */
static inline void rc_one_each(rc_pieces_t *p, uint64_t *g, int64_t base, int64_t slot, int64_t least)
{
    int packed = rc_xorshift(g) % 3 == 0;
    for (int r = 0, x = 0; r < rc_nprocs; r++) {
        if (rc_xorshift(g) % 6 == 0)
            continue;
        int64_t len = least + (int64_t)(rc_xorshift(g) % (uint64_t)(slot / 2 - least));
        if (rc_xorshift(g) % 5 == 0) /* the sizes that sit on the staging limit and IOR's */
            len = rc_xorshift(g) % 2 ? 1024 : 64;
        int64_t at = packed ? x + (int64_t)(rc_xorshift(g) % 4)
                            : r * slot + (int64_t)(rc_xorshift(g) % (uint64_t)(slot - len + 1));
        rc_add(p, base + at, len, r);
        x = (int)(at + len);
    }
}

/* Every rank's pieces of the call, in file order (the same on every rank); second: its follow-up. */
static inline void rc_call_pieces(const rc_call_t *c, rc_pieces_t *p, int second)
{
    uint64_t g = rc_own_stream(c->seed, 0);
    p->n = 0;
    int64_t span = c->shape == RC_SHAPE_LARGE ? (int64_t)rc_nprocs * RC_SLOT_LARGE : 65536;
    int64_t base = (int64_t)(rc_xorshift(&g) % (uint64_t)(RC_FILE_MAX - span));
    if (second) { /* small pieces over the start of the first write's bytes */
        g ^= 0x51EDF00DULL;
        rc_one_each(p, &g, base, RC_SLOT_SMALL / 2, 1);
    } else if (c->shape == RC_SHAPE_SMALL)
        rc_one_each(p, &g, base, RC_SLOT_SMALL, 1);
    else if (c->shape == RC_SHAPE_LARGE)
        rc_one_each(p, &g, base, RC_SLOT_LARGE, RC_SLOT_SMALL);
    else if (c->shape == RC_SHAPE_BLOCKS) {
        static const int64_t blocks[] = {8, 64, 512, 4096};
        int64_t b = blocks[rc_xorshift(&g) % 4], step = (rc_nprocs + (int64_t)(rc_xorshift(&g) % 2)) * b;
        for (int64_t x = base; x + step <= base + span; x += step)
            for (int r = 0; r < rc_nprocs; r++)
                rc_add(p, x + r * b, b, r);
    } else {
        int64_t most = rc_xorshift(&g) % 3 == 0 ? 5000 : rc_xorshift(&g) % 2 ? 300 : 8;
        for (int64_t x = base;;) {
            int64_t len = 1 + (int64_t)(rc_xorshift(&g) % (uint64_t)most);
            int owner = (int)(rc_xorshift(&g) % (uint64_t)(rc_nprocs + 1)); /* rc_nprocs: a hole */
            if (x + len > base + span)
                break;
            if (owner < rc_nprocs)
                rc_add(p, x, len, owner);
            x += len + (rc_xorshift(&g) % 3 == 0 ? (int64_t)(rc_xorshift(&g) % 200) : 0);
        }
    }
}

static inline rc_call_t rc_draw(uint64_t *g, int i)
{
    rc_call_t c = {.shape = (int)(rc_xorshift(g) % RC_NSHAPES), .salt = i + 1, .seed = rc_xorshift(g)};
    int one_piece = c.shape == RC_SHAPE_SMALL || c.shape == RC_SHAPE_LARGE;
    c.via = one_piece ? (int)(rc_xorshift(g) % 3) : rc_xorshift(g) % 2 ? RC_VIA_LIST : RC_VIA_VIEW;
    c.reading = rc_xorshift(g) % 3 == 0;
    c.nonblocking = c.via != RC_VIA_VIEW && rc_xorshift(g) % 4 == 0; /* no set_view with requests in flight */
    c.follow = c.nonblocking && !c.reading && rc_xorshift(g) % 2;
    return c;
}

/* The shadow after a write of pieces p with salt. */
static inline void rc_shadow_write(const rc_pieces_t *p, int salt, unsigned char *shadow)
{
    for (int i = 0; i < p->n; i++)
        for (int64_t x = p->off[i]; x < p->off[i] + p->len[i]; x++)
            shadow[x] = rc_value(x, salt);
}

/* This rank's share of a call: its pieces and the memory they move through. */
typedef struct {
    MPI_Offset off[RC_MAX_PIECES], len[RC_MAX_PIECES];
    int n;
    int64_t bytes;
    int strided;        /* memory: every other byte (one piece through an offset only) */
    unsigned char *mem; /* 2 * bytes + 2 */
    MPI_Datatype memtype, filetype;
} rc_share_t;

static inline void rc_share_of(const rc_pieces_t *p, const rc_call_t *c, int second, rc_share_t *s)
{
    s->n = 0, s->bytes = 0;
    for (int i = 0; i < p->n; i++)
        if (p->owner[i] == rc_rank) {
            s->off[s->n] = p->off[i], s->len[s->n++] = p->len[i];
            s->bytes += p->len[i];
        }
    uint64_t g = rc_own_stream(c->seed, 2 + 2 * (uint64_t)rc_rank + (uint64_t)second);
    s->strided = !second && c->via == RC_VIA_AT && s->n == 1 && rc_xorshift(&g) % 2;
    s->mem = malloc((size_t)(2 * s->bytes + 2));
    memset(s->mem, 0xEE, (size_t)(2 * s->bytes + 2));
    s->memtype = MPI_BYTE;
    if (s->strided) {
        MPI_Type_vector((int)s->bytes, 1, 2, MPI_BYTE, &s->memtype);
        MPI_Type_commit(&s->memtype);
    }
}

/* Where byte k of the share sits in its memory. */
static inline int64_t rc_mem_at(const rc_share_t *s, int64_t k) { return s->strided ? 2 * k : k; }

static inline void rc_fill(rc_share_t *s, int salt)
{
    for (int i = 0, k = 0; i < s->n; i++)
        for (int64_t x = s->off[i]; x < s->off[i] + s->len[i]; x++, k++)
            s->mem[rc_mem_at(s, k)] = rc_value(x, salt);
}

static inline void rc_share_free(rc_share_t *s)
{
    if (s->strided)
        MPI_Type_free(&s->memtype);
    free(s->mem);
}

/* Wrong bytes of a read: the shadow's bytes at the share's offsets, memory between them untouched. */
static inline int64_t rc_read_mismatches(const rc_share_t *s, const unsigned char *shadow)
{
    int64_t bad = 0, k = 0;
    for (int i = 0; i < s->n; i++)
        for (int64_t x = s->off[i]; x < s->off[i] + s->len[i]; x++, k++)
            bad += s->mem[rc_mem_at(s, k)] != shadow[x];
    for (int64_t m = 0; s->strided && m < 2 * s->bytes; m += 2)
        bad += s->mem[m + 1] != 0xEE;
    bad += s->mem[2 * s->bytes] != 0xEE || s->mem[2 * s->bytes + 1] != 0xEE;
    return bad;
}

/* A view of the share's pieces (a rank without pieces: one byte, which it does not use): s->filetype. */
static inline void rc_share_filetype(rc_share_t *s)
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
}

#endif
