/* Request lists without MPI traffic: sorting, merging, overlap, clipping, views by brute force. */
#include <stdlib.h>
#include <string.h>

#include "access/access.h"
#include "testutil.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

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

static void lists(void)
{
    colio_access_t acc;
    colio_err_t e = {0};
    MPI_Offset off[] = {100, 0, 10, 50, 20, 60}, len[] = {5, 10, 10, 0, 5, 3};
    CHECK(colio_access_from_list(6, off, len, &acc, &e) == 0, "valid list: %s", e.msg);
    /* sorted, 0 (pos 5), 10 (pos 15) and 20 (pos 25) are adjacent in file and stream: one piece */
    CHECK(acc.n == 3 && acc.nbytes == 33 && !acc.stream_order, "pieces %lld bytes %lld", (long long)acc.n,
          (long long)acc.nbytes);
    CHECK(acc.pieces[0].off == 0 && acc.pieces[0].len == 25 && acc.pieces[0].pos == 5, "merged first piece");
    CHECK(acc.pieces[1].off == 60 && acc.pieces[1].pos == 30, "60 keeps its stream position");
    CHECK(acc.pieces[2].off == 100 && acc.pieces[2].pos == 0, "100 came first in the list");
    colio_access_clip(&acc, 62);
    CHECK(acc.n == 2 && acc.pieces[1].len == 2 && acc.nbytes == 27, "clip at 62: n %lld bytes %lld", (long long)acc.n,
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
    for (int round = 0; round < 200; round++) {
        int nb = 1 + (int)(next() % 6);
        colio_flat_t f = {0};
        int64_t disp[8], lens[8], prefix[9];
        int64_t at = (int64_t)(next() % 4);
        prefix[0] = 0;
        for (int i = 0; i < nb; i++) {
            disp[i] = at;
            lens[i] = 1 + (int64_t)(next() % 5);
            at += lens[i] + (int64_t)(next() % 3); /* gaps of 0..2 (0: adjacent blocks, not merged) */
            prefix[i + 1] = prefix[i] + lens[i];
        }
        f = (colio_flat_t){.n = nb, .disp = disp, .len = lens, .prefix = prefix, .size = prefix[nb],
                           .extent = at + (int64_t)(next() % 3), .monotonic = 1, .nonneg = 1};
        colio_view_t v = {.disp = (int64_t)(next() % 10), .etype_size = 1, .ftype = &f};
        int64_t start = (int64_t)(next() % 20), nbytes = (int64_t)(next() % 60);
        colio_access_t acc;
        colio_err_t e = {0};
        CHECK(colio_access_from_view(&v, start, nbytes, &acc, &e) == 0, "view: %s", e.msg);
        /* expected: stream byte s -> disp + tile * extent + block offset */
        int bad = 0;
        int64_t k = 0, in = 0;
        for (int64_t s = 0; s < nbytes; s++) {
            int64_t q = start + s, tile = q / f.size, w = q % f.size, b = 0;
            while (prefix[b + 1] <= w)
                b++;
            int64_t want = v.disp + tile * f.extent + disp[b] + (w - prefix[b]);
            while (k < acc.n && in == acc.pieces[k].len)
                k++, in = 0;
            if (k >= acc.n || acc.pieces[k].off + in != want || acc.pieces[k].pos + in != s)
                bad++;
            in++;
        }
        for (int64_t i = 1; i < acc.n; i++)
            bad += acc.pieces[i].off < acc.pieces[i - 1].off + acc.pieces[i - 1].len;
        CHECK(bad == 0 && acc.nbytes == nbytes, "view round %d: %d mismatches", round, bad);
        colio_access_free(&acc);
    }
}

int main(void)
{
    radix_vs_qsort();
    lists();
    views();
    return unit_finish("test_lists_unit");
}
