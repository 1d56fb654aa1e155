/* Request lists without MPI traffic: sorting, merging, overlap, clipping, views by brute force. */
#include <stdlib.h>
#include <string.h>

#include "access/access.h"
#include "access/coverage.h"
#include "testutil.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) { return test_xorshift(&rng); }

static int by_off(const void *a, const void *b)
{
    int64_t x = ((const colio_piece_t *)a)->off, y = ((const colio_piece_t *)b)->off;
    return (x > y) - (x < y);
}

static void radix_vs_qsort(void)
{
    for (int round = 0; round < 20; round++) {
        int64_t n = 1 + (int64_t)(next() % 5000);
        uint64_t span = round % 3 == 0 ? 100 : (round % 3 == 1 ? (1ULL << 40) : (1ULL << 62));
        colio_piece_t *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n), *t = malloc(sizeof *t * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            a[i] = b[i] = (colio_piece_t){(int64_t)(next() % span), 1, i};
        colio_pieces_sort(a, n, t);
        qsort(b, (size_t)n, sizeof *b, by_off);
        int bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += a[i].off != b[i].off;
        for (int64_t i = 1; i < n; i++) /* stable: equal offsets keep their order */
            bad += a[i].off == a[i - 1].off && a[i].pos < a[i - 1].pos;
        CHECK(bad == 0, "radix sort round %d: %d mismatches", round, bad);
        free(a), free(b), free(t);
    }
}

/* The pieces of an access, runs expanded, in file order (out holds them all). */
static int64_t expand(const colio_access_t *acc, colio_piece_t *out, int64_t max)
{
    int64_t n = 0;
    for (int64_t i = 0; i < acc->n; i++) {
        colio_run_t r = colio_access_run(acc, i);
        for (int64_t k = 0; k < r.count && n < max; k++)
            out[n++] = (colio_piece_t){r.off + k * r.stride, r.len, r.pos + k * r.len};
    }
    return n;
}

static void lists(void)
{
    colio_access_t acc;
    colio_err_t e = {0};
    colio_piece_t p[16];
    MPI_Offset off[] = {100, 0, 10, 50, 20, 60}, len[] = {5, 10, 10, 0, 5, 3};
    CHECK(colio_access_from_list(6, off, len, &acc, &e) == 0, "valid list: %s", e.msg);
    /* sorted, 0 (pos 5), 10 (pos 15) and 20 (pos 25) are adjacent in file and stream: one piece */
    int64_t n = expand(&acc, p, 16);
    CHECK(n == 3 && acc.npieces == 3 && acc.nbytes == 33 && !acc.stream_order, "pieces %lld bytes %lld", (long long)n,
          (long long)acc.nbytes);
    CHECK(p[0].off == 0 && p[0].len == 25 && p[0].pos == 5, "merged first piece");
    CHECK(p[1].off == 60 && p[1].pos == 30, "60 keeps its stream position");
    CHECK(p[2].off == 100 && p[2].pos == 0, "100 came first in the list");
    CHECK(colio_access_clip(&acc, 62) == 0, "clip");
    n = expand(&acc, p, 16);
    CHECK(n == 2 && p[1].len == 2 && acc.nbytes == 27, "clip at 62: n %lld bytes %lld", (long long)n,
          (long long)acc.nbytes);
    colio_access_free(&acc);

    /* regularly spaced pieces in stream order become one strided run */
    MPI_Offset o4[] = {0, 10, 20, 30, 45}, l4[] = {4, 4, 4, 4, 4};
    CHECK(colio_access_from_list(5, o4, l4, &acc, &e) == 0 && acc.n == 2 && acc.runs[0].count == 4 &&
              acc.runs[0].stride == 10, "strided run: %lld runs", (long long)acc.n);
    CHECK(colio_access_clip(&acc, 22) == 0 && acc.nbytes == 10 && acc.npieces == 3, "clip inside a strided run: %lld bytes",
          (long long)acc.nbytes);
    colio_access_free(&acc);

    MPI_Offset o2[] = {0, 5}, l2[] = {6, 2};
    CHECK(colio_access_from_list(2, o2, l2, &acc, &e) == COLIO_ERR_ARG && strstr(e.msg, "overlap"), "overlap rejected");
    colio_err_clear(&e);
    MPI_Offset o3[] = {INT64_MAX - 2}, l3[] = {5};
    CHECK(colio_access_from_list(1, o3, l3, &acc, &e) == COLIO_ERR_ARG, "overflow rejected");
    colio_err_clear(&e);
    CHECK(colio_access_from_list(-1, NULL, NULL, &acc, &e) == COLIO_ERR_ARG, "negative count");
    colio_err_clear(&e);
    CHECK(colio_access_from_list(0, NULL, NULL, &acc, &e) == 0 && acc.n == 0, "empty list");
}

/* A view on a hand-made flattened filetype against byte-by-byte expansion. */
static void views(void)
{
    for (int round = 0; round < 400; round++) {
        int nb = 1 + (int)(next() % 6);
        colio_flat_t f = {0};
        int64_t disp[8], lens[8], prefix[9];
        int64_t at = (int64_t)(next() % 4), regular = round % 2; /* half the types: equal blocks, equal gaps */
        prefix[0] = 0;
        for (int i = 0; i < nb; i++) {
            disp[i] = at;
            lens[i] = regular ? 3 : 1 + (int64_t)(next() % 5);
            at += lens[i] + (regular ? 2 : (int64_t)(next() % 3)); /* gaps of 0..2 (0: adjacent blocks) */
            prefix[i + 1] = prefix[i] + lens[i];
        }
        f = (colio_flat_t){.size = prefix[nb], .extent = at + (regular ? 0 : (int64_t)(next() % 3)), .monotonic = 1,
                           .nonneg = 1};
        for (int i = 0; i < nb; i++)
            colio_runs_append(&f.runs, colio_piece(disp[i], lens[i], prefix[i]));
        for (int64_t i = 0; i < f.runs.n; i++)
            f.npieces += f.runs.r[i].count;
        colio_view_t v = {.disp = (int64_t)(next() % 10), .etype_size = 1, .ftype = &f};
        int64_t start = (int64_t)(next() % 20), nbytes = (int64_t)(next() % 60);
        /* every third round one whole tile of a flattening cached on its type (counted: borrowed, not listed) */
        int counted = round % 3 == 2, whole_tile = counted;
        if (counted)
            start = (int64_t)(next() % 4) * f.size, nbytes = f.size, f.refs = 2; /* 2: the access's drop never frees it */
        colio_access_t acc;
        colio_err_t e = {0};
        CHECK(colio_access_from_view(&v, start, nbytes, &acc, &e) == 0, "view: %s", e.msg);
        whole_tile &= !colio_flat_dense(&f); /* a dense one is one piece, held in the access */
        CHECK(whole_tile == (acc.borrowed == &f), "view round %d: borrowed %d, expected %d", round, acc.borrowed != NULL,
              whole_tile);
        colio_piece_t *p = malloc(sizeof *p * (size_t)(nbytes + 1));
        int64_t np = expand(&acc, p, nbytes + 1);
        /* expected: stream byte s -> disp + tile * extent + block offset */
        int bad = 0;
        int64_t k = 0, in = 0;
        for (int64_t s = 0; s < nbytes; s++) {
            int64_t q = start + s, tile = q / f.size, w = q % f.size, b = 0;
            while (prefix[b + 1] <= w)
                b++;
            int64_t want = v.disp + tile * f.extent + disp[b] + (w - prefix[b]);
            while (k < np && in == p[k].len)
                k++, in = 0;
            if (k >= np || p[k].off + in != want || p[k].pos + in != s)
                bad++;
            in++;
        }
        for (int64_t i = 1; i < np; i++)
            bad += p[i].off < p[i - 1].off + p[i - 1].len;
        CHECK(bad == 0 && acc.nbytes == nbytes && np == acc.npieces, "view round %d: %d mismatches", round, bad);
        CHECK(np == 0 || acc.end == p[np - 1].off + p[np - 1].len, "view round %d: end %lld", round, (long long)acc.end);
        free(p);
        colio_access_free(&acc);
        CHECK(f.refs == (counted ? 2 : 0), "view round %d: the flattening's count %d after the access", round, f.refs);
        colio_runs_free(&f.runs);
    }
}

int main(void)
{
    radix_vs_qsort();
    lists();
    views();
    return unit_finish("test_lists_unit");
}
