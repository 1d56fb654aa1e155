/* Strided runs, round coverage and strided copies against brute force, byte by byte. */
#include <stdlib.h>
#include <string.h>

#include "access/copy.h"
#include "access/coverage.h"
#include "access/run.h"
#include "testutil.h"

static uint64_t rng = 0x853c49e6748fea9bULL;
static int64_t rnd(int64_t n)
{
    return (int64_t)(test_xorshift(&rng) % (uint64_t)n);
}

static colio_run_t random_run(void)
{
    colio_run_t r = {rnd(50), 1 + rnd(6), 0, 1 + rnd(6), rnd(40)};
    r.stride = r.count > 1 ? r.len + 1 + rnd(5) : r.len;
    return r;
}

/* Expand runs into one (file offset, stream position) per byte. */
static int64_t bytes_of(const colio_runs_t *v, int64_t *off, int64_t *pos, int64_t max)
{
    int64_t n = 0;
    for (int64_t i = 0; i < v->n; i++)
        for (int64_t k = 0; k < v->r[i].count; k++)
            for (int64_t b = 0; b < v->r[i].len && n < max; b++, n++) {
                off[n] = v->r[i].off + k * v->r[i].stride + b;
                pos[n] = v->r[i].pos + k * v->r[i].len + b;
            }
    return n;
}

static void slices(void)
{
    int64_t off[512], pos[512], off2[512], pos2[512];
    for (int round = 0; round < 2000; round++) {
        colio_run_t r = random_run();
        colio_runs_t one = {0}, out = {0};
        colio_runs_append(&one, r);
        int64_t n = bytes_of(&one, off, pos, 512), bad = 0;
        /* by stream range */
        int64_t from = rnd(colio_run_bytes(&r) + 1), to = from + rnd(colio_run_bytes(&r) - from + 1);
        CHECK(colio_run_slice_stream(&r, from, to, &out) == 0, "slice_stream");
        int64_t m = bytes_of(&out, off2, pos2, 512);
        bad += m != to - from;
        for (int64_t i = 0; i < m && i < n; i++)
            bad += off2[i] != off[from + i] || pos2[i] != pos[from + i];
        /* by file range */
        out.n = 0;
        int64_t lo = r.off + rnd(colio_run_end(&r) - r.off + 2) - 1, hi = lo + rnd(40);
        CHECK(colio_run_slice_file(&r, lo, hi, &out) == 0, "slice_file");
        m = bytes_of(&out, off2, pos2, 512);
        int64_t j = 0;
        for (int64_t i = 0; i < n; i++)
            if (off[i] >= lo && off[i] < hi) {
                bad += j >= m || off2[j] != off[i] || pos2[j] != pos[i];
                j++;
            }
        bad += j != m;
        CHECK(bad == 0, "round %d: run {%lld %lld %lld %lld} slices wrong (%lld)", round, (long long)r.off,
              (long long)r.len, (long long)r.stride, (long long)r.count, (long long)bad);
        colio_runs_free(&one);
        colio_runs_free(&out);
    }
}

/* Pieces appended one by one come back, byte for byte, whatever the runs made of them. */
static void appends(void)
{
    for (int round = 0; round < 500; round++) {
        colio_runs_t v = {0};
        int64_t at = rnd(10), sp = rnd(5), off[600], pos[600], n = 0, len = 1 + rnd(4), gap = rnd(3);
        for (int i = 0; i < 40; i++) {
            int64_t l = round % 2 ? len : 1 + rnd(4);
            colio_runs_append(&v, colio_piece(at, l, sp));
            for (int64_t b = 0; b < l; b++)
                off[n] = at + b, pos[n++] = sp + b;
            at += l + (round % 2 ? gap : rnd(3));
            sp += l;
        }
        int64_t o2[600], p2[600], m = bytes_of(&v, o2, p2, 600), bad = m != n;
        for (int64_t i = 0; i < m && i < n; i++)
            bad += o2[i] != off[i] || p2[i] != pos[i];
        CHECK(bad == 0, "append round %d: %lld mismatches, %lld runs", round, (long long)bad, (long long)v.n);
        if (round % 2 && gap)
            CHECK(v.n == 1, "equal pieces at equal gaps make one run, not %lld", (long long)v.n);
        colio_runs_free(&v);
    }
}

static void coverage(void)
{
    colio_coverage_t c = {0};
    for (int round = 0; round < 500; round++) {
        int64_t lo = rnd(100), size = 1 + rnd(300);
        unsigned char seen[400] = {0};
        CHECK(colio_coverage_reset(&c, lo, size) == 0, "reset");
        int overlap = 0, any = 0;
        int64_t first = 0, last = 0;
        for (int n = rnd(6); n > 0; n--) {
            colio_run_t r = random_run();
            r.off = lo + rnd(size / 2 + 1);
            while (colio_run_end(&r) > lo + size && r.count > 1)
                r.count--;
            if (colio_run_end(&r) > lo + size)
                r.len = lo + size - r.off, r.stride = r.len;
            if (r.len <= 0)
                continue;
            colio_coverage_mark(&c, r.off, r.len, r.stride, r.count);
            colio_coverage_span(&c, r.off, colio_run_end(&r));
            for (int64_t k = 0; k < r.count; k++)
                for (int64_t b = 0; b < r.len; b++)
                    overlap |= seen[r.off - lo + k * r.stride + b]++ > 0;
            first = any && first < r.off ? first : r.off;
            last = any && last > colio_run_end(&r) ? last : colio_run_end(&r);
            any = 1;
        }
        int64_t covered = 0, intervals = 0;
        for (int64_t x = 0; x < size; x++) {
            covered += seen[x] > 0;
            intervals += seen[x] > 0 && (x == 0 || !seen[x - 1]);
        }
        CHECK(colio_coverage_runs(&c) == 0, "runs");
        int64_t bad = c.covered != covered || c.overlap != overlap || c.nruns != intervals;
        if (any)
            bad += c.first != first || c.last != last;
        for (int64_t i = 0; i < c.nruns; i++)
            for (int64_t b = 0; b < c.runs[i].len; b++)
                bad += !seen[c.runs[i].off - lo + b];
        CHECK(bad == 0, "coverage round %d: covered %lld/%lld runs %lld/%lld overlap %d/%d", round, (long long)c.covered,
              (long long)covered, (long long)c.nruns, (long long)intervals, c.overlap, overlap);
    }
    colio_coverage_free(&c);
}

/* Every block length 1-70 (the fixed-size and small-copy paths and memcpy), contiguous or strided. */
static void copies(void)
{
    static char src[4096], dst[4096], want[4096];
    for (int i = 0; i < (int)sizeof src; i++)
        src[i] = (char)(i * 7 + 3);
    for (int round = 0; round < 3000; round++) {
        int64_t len = 1 + round % 70, count = 1 + rnd(5), contiguous = rnd(3) == 0;
        int64_t ss = contiguous ? len : len + rnd(9), ds = contiguous ? len : len + rnd(9);
        int64_t s0 = rnd(64), d0 = rnd(64);
        memset(dst, 0x5a, sizeof dst);
        memset(want, 0x5a, sizeof want);
        for (int64_t k = 0; k < count; k++)
            for (int64_t b = 0; b < len; b++)
                want[d0 + k * ds + b] = src[s0 + k * ss + b];
        colio_copy_strided(dst + d0, ds, src + s0, ss, len, count);
        CHECK(memcmp(dst, want, sizeof dst) == 0, "copy round %d: len %lld count %lld strides %lld/%lld wrong", round,
              (long long)len, (long long)count, (long long)ds, (long long)ss);
    }
}

int main(void)
{
    slices();
    appends();
    coverage();
    copies();
    return unit_finish("test_runs_unit");
}
