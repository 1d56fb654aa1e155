/*
 * Plan reuse under random calls (colio_plan_cache, moved plans): a seeded
 * sequence of list writes and reads with three access shapes, each at one
 * of a few bases or moved a little from one, sometimes with one rank moved
 * elsewhere or without pieces, sometimes two nonblocking writes in flight;
 * a small cache (3 plans) so plans are evicted, reused exactly and reused
 * moved in every order. After each write the file is compared with a
 * shadow image every rank keeps from the formula; each read with the
 * shadow. The decisions to reuse are the engine's; only the bytes are
 * checked (and that some plans were reused, so the test covers reuse).
 * The ctest entries add striping_unit and kernels through COLIO_HINTS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SPAN 3000           /* bytes one call's pattern covers */
#define FILE_MAX (1 << 17)  /* the file never grows past this */
#define CALLS 120
#define NBASES 6

static unsigned char value(int64_t x, int salt) { return (unsigned char)(x * 131 + salt * 29 + (x >> 8) * 7 + 1); }

/* Rank r's sorted, disjoint pieces of shape s in [0, SPAN): interleaved blocks or random runs. */
static int64_t shape_pieces(int s, int r, MPI_Offset *off, MPI_Offset *len)
{
    uint64_t st = 0x9E3779B97F4A7C15ULL * (uint64_t)(s + 1) + (uint64_t)r * 1234567 + 1;
    int64_t n = 0;
    if (s == 0) {
        for (int64_t k = r; k * 16 + 16 <= SPAN; k += t_nprocs)
            off[n] = k * 16, len[n++] = 16;
        return n;
    }
    for (int64_t x = (int64_t)(test_xorshift(&st) % 50); x < SPAN;) {
        int64_t l = 1 + (int64_t)(test_xorshift(&st) % (s == 1 ? 40 : 7));
        if (x + l > SPAN)
            break;
        off[n] = x, len[n++] = l;
        x += l + 1 + (int64_t)(test_xorshift(&st) % 60);
    }
    return n;
}

typedef struct call {
    int shape, salt, reading, nonblocking;
    int empty_rank, odd_rank;      /* -1: none */
    int64_t base, odd_base, base2; /* base2: the second nonblocking write */
} call_t;

/* Where rank r's pieces of the call start. */
static int64_t base_of(const call_t *c, int r, int second) { return r == c->odd_rank ? c->odd_base : second ? c->base2 : c->base; }

/* The shadow after the call's writes (every rank's pieces); *eof grows with them. */
static void shadow_write(const call_t *c, int second, unsigned char *shadow, int64_t *eof)
{
    MPI_Offset *off = malloc(sizeof *off * SPAN), *len = malloc(sizeof *len * SPAN);
    for (int r = 0; r < t_nprocs; r++) {
        if (r == c->empty_rank)
            continue;
        int64_t n = shape_pieces(c->shape, r, off, len), b = base_of(c, r, second);
        for (int64_t i = 0; i < n; i++) {
            for (int64_t x = off[i] + b; x < off[i] + b + len[i]; x++)
                shadow[x] = value(x, c->salt + second);
            if (off[i] + b + len[i] > *eof)
                *eof = off[i] + b + len[i];
        }
    }
    free(off), free(len);
}

/* This rank's pieces of the call at their file offsets, and the bytes a write sends. */
static int64_t my_pieces(const call_t *c, int second, MPI_Offset *off, MPI_Offset *len, unsigned char *buf)
{
    if (t_rank == c->empty_rank)
        return 0;
    int64_t n = shape_pieces(c->shape, t_rank, off, len), b = base_of(c, t_rank, second), k = 0;
    for (int64_t i = 0; i < n; i++) {
        off[i] += b;
        for (int64_t x = off[i]; x < off[i] + len[i]; x++)
            buf[k++] = value(x, c->salt + second);
    }
    return n;
}

static call_t draw(uint64_t *g, const int64_t *bases, int i)
{
    call_t c = {.shape = (int)(test_xorshift(g) % 3), .salt = 2 * i + 1, .empty_rank = -1, .odd_rank = -1};
    int b = (int)(test_xorshift(g) % NBASES);
    c.base = bases[b];
    if (test_xorshift(g) % 3 == 0) /* a little further on: moved plans, some by striping_unit multiples */
        c.base = (c.base + (int64_t)(test_xorshift(g) % 8) * 32) % (FILE_MAX - 2 * SPAN);
    c.base2 = bases[(b + 1) % NBASES];
    if (test_xorshift(g) % 4 == 0)
        c.empty_rank = (int)(test_xorshift(g) % (uint64_t)t_nprocs);
    if (test_xorshift(g) % 8 == 0) { /* elsewhere, never over the others' pieces (one call must not overlap) */
        c.odd_rank = (int)(test_xorshift(g) % (uint64_t)t_nprocs);
        c.odd_base = (int64_t)(test_xorshift(g) % (FILE_MAX - 2 * SPAN));
        if (c.odd_base < c.base + SPAN && c.base < c.odd_base + SPAN)
            c.odd_base = c.base + SPAN;
    }
    c.reading = test_xorshift(g) % 3 == 0;
    c.nonblocking = !c.reading && c.odd_rank < 0 && test_xorshift(g) % 4 == 0;
    return c;
}

static int64_t run_call(colio_file *fh, const call_t *c, unsigned char *shadow, int64_t eof)
{
    MPI_Offset *off = malloc(sizeof *off * 2 * SPAN), *len = malloc(sizeof *len * 2 * SPAN);
    unsigned char *buf = malloc(2 * SPAN + 2), *back = malloc(2 * SPAN + 2);
    int64_t n = my_pieces(c, 0, off, len, buf), bad = 0;
    if (c->reading) {
        memset(back, 0xEE, 2 * SPAN + 2);
        CHECK_RC(tu_read_list_all(fh, n, off, len, back), COLIO_SUCCESS, fh);
        for (int64_t i = 0, k = 0; i < n; i++)
            for (MPI_Offset x = off[i]; x < off[i] + len[i]; x++, k++)
                bad += back[k] != (x < eof ? shadow[x] : 0xEE); /* past the end: untouched */
    } else if (c->nonblocking) {
        colio_request *r1, *r2;
        my_pieces(c, 1, off + SPAN, len + SPAN, back);
        CHECK_RC(colio_iwrite_list_all(fh, n, off, len, buf, &r1), COLIO_SUCCESS, fh);
        CHECK_RC(colio_iwrite_list_all(fh, n, off + SPAN, len + SPAN, back, &r2), COLIO_SUCCESS, fh);
        CHECK_RC(colio_wait(&r1, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        CHECK_RC(colio_wait(&r2, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    } else {
        CHECK_RC(tu_write_list_all(fh, n, off, len, buf), COLIO_SUCCESS, fh);
    }
    free(off), free(len), free(buf), free(back);
    return bad;
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "plans_random");
    test_prefill(path, 0);
    unsigned char *shadow = calloc(FILE_MAX, 1);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", "256");
    MPI_Info_set(info, "cb_nodes", t_nprocs > 1 ? "2" : "1");
    MPI_Info_set(info, "colio_plan_cache", "3");
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    uint64_t g = 0x5EED0001ULL;
    int64_t bases[NBASES], eof = 0, reused = 0;
    for (int b = 0; b < NBASES; b++)
        bases[b] = (int64_t)(test_xorshift(&g) % (FILE_MAX - 2 * SPAN));
    for (int i = 0; i < CALLS && fh; i++) {
        call_t c = draw(&g, bases, i);
        int64_t bad = run_call(fh, &c, shadow, eof);
        colio_stats st;
        colio_get_stats(fh, &st);
        reused += st.last.plans_reused;
        if (!c.reading) {
            shadow_write(&c, 0, shadow, &eof);
            if (c.nonblocking)
                shadow_write(&c, 1, shadow, &eof);
            bad += test_check_file(path, shadow, eof, "the file after the call");
            bad += t_rank == 0 && test_file_size(path) != eof;
        }
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(bad == 0, "call %d (shape %d, %s%s, base %lld, empty rank %d, odd rank %d): %lld wrong bytes", i, c.shape,
              c.reading ? "read" : "write", c.nonblocking ? ", two nonblocking" : "", (long long)c.base, c.empty_rank,
              c.odd_rank, (long long)bad);
        if (bad)
            break;
    }
    MPI_Allreduce(MPI_IN_PLACE, &reused, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("test_plans_random: %lld of %d calls reused a plan\n", (long long)reused, CALLS);
    CHECK(reused > 0, "no plan was reused in %d calls: the test no longer covers reuse", CALLS);
    colio_close(&fh);
    free(shadow);
    test_unlink(path);
    return test_finish("test_plans_random");
}
