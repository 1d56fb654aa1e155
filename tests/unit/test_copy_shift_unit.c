/*
 * The rule that sends a direct read through the bounce buffer
 * (base/copy_shift.h), from given probe results: on the AMD EPYC measured,
 * only memory 1-31 bytes past the file offset within a page copies slowly
 * (1040 bytes past does not), so a program's buffer 16 bytes past a page
 * is bounced for page-aligned offsets and not for offsets 1 KiB further.
 * Each expectation is written out, not derived from the rule. Then
 * colio_copy_bytes, forced to copy slow shifts in pieces: every byte lands,
 * none around it moves, at each size and shift either side of its limits.
 * And the waypoint where a read's message lands instead of a slow shift.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access/copy.h"
#include "base/copy_shift.h"
#include "testutil.h"

static void expect(const char *what, const colio_copy_penalty_t *p, unsigned shift, int want)
{
    int got = colio_copy_shift_slow(p, shift);
    CHECK(got == want, "%s: shift %u: %s, expected %s", what, shift, got ? "slow" : "fast", want ? "slow" : "fast");
}

/* Which copies colio_copy_bytes considers for pieces: sizes 2 KiB to 512 KiB, shifts 1-63 within a page. */
static void may_alias_edges(void)
{
    static char page[3 * 4096] __attribute__((aligned(4096)));
    const char *src = page;
    const struct {
        size_t n;
        unsigned shift;
        int want;
    } cases[] = {{2047, 16, 0}, {2048, 16, 1}, {(512 << 10) - 1, 16, 1}, {512 << 10, 16, 0}, {4096, 0, 0},
                 {4096, 1, 1},  {4096, 32, 1}, {4096, 63, 1},            {4096, 64, 0},    {4096, 4095, 0},
                 {4096, 4096 + 16, 1}};
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = colio_copy_may_alias(src + cases[i].shift, src, cases[i].n);
        CHECK(got == cases[i].want, "%zu bytes at shift %u: %s, expected %s", cases[i].n, cases[i].shift,
              got ? "considered for pieces" : "one memcpy", cases[i].want ? "considered" : "one memcpy");
    }
    /* the shift is the destination's past the source, not the other way round */
    CHECK(!colio_copy_may_alias(src, src + 16, 4096), "destination 16 bytes before the source taken as 16 past");
}

/* Copy n bytes into memory `shift` bytes past the source modulo 4 KiB; check them and 64 guard bytes each side. */
static void copy_at(const unsigned char *src, unsigned char *dst_page, size_t n, unsigned shift)
{
    unsigned char *dst = dst_page + 64 + shift;
    memset(dst_page, 0xEE, n + 64 + shift + 64);
    colio_copy_bytes((char *)dst, (const char *)src, n);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (dst[i] != src[i] && wrong++ == 0)
            first = i;
    CHECK(wrong == 0, "copy of %zu bytes at shift %u: %zu wrong bytes, the first at %zu", n, shift, wrong, first);
    for (size_t i = 0; i < 64 + shift; i++)
        CHECK(dst_page[i] == 0xEE, "copy of %zu bytes at shift %u wrote %zu bytes before its start", n, shift, 64 + shift - i);
    for (size_t i = 0; i < 64; i++)
        CHECK(dst[n + i] == 0xEE, "copy of %zu bytes at shift %u wrote byte %zu past its end", n, shift, i);
}

static void copies_land(void)
{
    const size_t sizes[] = {1, 33, 2047, 2048, 3000, 4096, 5000, 70001, (512 << 10) - 1, 512 << 10, 600000};
    const unsigned shifts[] = {0, 1, 16, 31, 32, 33, 63, 64, 1040, 4064, 4095};
    size_t most = 600000;
    unsigned char *src = NULL, *dst = NULL;
    int ok = posix_memalign((void **)&src, 4096, most) == 0 && posix_memalign((void **)&dst, 4096, most + 3 * 4096) == 0;
    CHECK(ok, "memory for the copies");
    if (!ok)
        return;
    for (size_t i = 0; i < most; i++)
        src[i] = (unsigned char)(i * 131 + (i >> 9));
    /* dst + 64 + shift - src is 64 + shift modulo 4 KiB: take 64 off so the shift is the one named */
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (unsigned j = 0; j < sizeof shifts / sizeof *shifts; j++)
            copy_at(src, dst + 4096 - 64, sizes[k], shifts[j]);
    free(src), free(dst);
}

static void expect_way(const char *what, const colio_copy_penalty_t *p, unsigned shift, unsigned want)
{
    unsigned got = colio_copy_waypoint(p, shift);
    CHECK(got == want, "%s: waypoint for shift %u: %u bytes past the source, expected %u", what, shift, got, want);
}

/*
 * Where a two-phase read's message lands instead of a slow shift
 * (engine/round.c, put_aside): a multiple of 32 past the source whose
 * remaining shift to the destination is fast; 0 where the shift is fast
 * already or no place helps.
 */
static void waypoints(const colio_copy_penalty_t *epyc, const colio_copy_penalty_t *every64,
                      const colio_copy_penalty_t *forced)
{
    expect_way("page-start penalty", epyc, 16, 32); /* 16 past a page: 32 past the source, 16 short of the user's */
    expect_way("page-start penalty", epyc, 1, 32);
    expect_way("page-start penalty", epyc, 31, 32);
    expect_way("page-start penalty", epyc, 4096 + 16, 32);
    expect_way("page-start penalty", epyc, 0, 0);
    expect_way("page-start penalty", epyc, 48, 0);
    expect_way("page-start penalty", epyc, 1040, 0);
    expect_way("penalty every 64 bytes", every64, 16, 32);
    const colio_copy_penalty_t all_but_high_near = {.low = 1, .high = 0, .far_low = 1, .far_high = 1};
    expect_way("only 33-63 fast", &all_but_high_near, 16, 4064); /* 16 - 4064 = 48 modulo the page */
    expect_way("every shift slow", forced, 16, 0);
    for (unsigned shift = 0; shift < 4096; shift++) {
        unsigned way = colio_copy_waypoint(epyc, shift);
        if (way == 0)
            continue;
        CHECK(way % 32 == 0 && !colio_copy_shift_slow(epyc, shift - way),
              "waypoint %u for shift %u: a slow leg", way, shift);
    }
}

int main(void)
{
    setenv("COLIO_MISALIGNED_READS", "slow", 1); /* every slow shift copied in pieces, whatever this CPU does */
    const colio_copy_penalty_t epyc = {.low = 1, .high = 0, .far_low = 0, .far_high = 0};
    const unsigned epyc_slow[] = {1, 8, 16, 24, 31, 4096 + 16, 8192 + 1};
    const unsigned epyc_fast[] = {0, 32, 33, 40, 48, 63, 64, 80, 1040, 2064, 4064, 4080, 4095, 4096, 4096 + 32};
    for (unsigned i = 0; i < sizeof epyc_slow / sizeof *epyc_slow; i++)
        expect("page-start penalty", &epyc, epyc_slow[i], 1);
    for (unsigned i = 0; i < sizeof epyc_fast / sizeof *epyc_fast; i++)
        expect("page-start penalty", &epyc, epyc_fast[i], 0);

    const colio_copy_penalty_t every64 = {.low = 1, .high = 0, .far_low = 1, .far_high = 0};
    expect("penalty every 64 bytes", &every64, 1040, 1);
    expect("penalty every 64 bytes", &every64, 4080, 0);
    expect("penalty every 64 bytes", &every64, 2048 + 8, 1);
    expect("penalty every 64 bytes", &every64, 2048 + 32, 0);

    const colio_copy_penalty_t high_every64 = {.low = 0, .high = 1, .far_low = 0, .far_high = 1};
    expect("upper half slow", &high_every64, 16, 0);
    expect("upper half slow", &high_every64, 48, 1);
    expect("upper half slow", &high_every64, 1024 + 48, 1);
    expect("upper half slow", &high_every64, 96, 0);

    const colio_copy_penalty_t high_near = {.low = 0, .high = 1, .far_low = 0, .far_high = 0};
    expect("upper half slow at a page's start", &high_near, 48, 1);
    expect("upper half slow at a page's start", &high_near, 4096 + 48, 1);
    expect("upper half slow at a page's start", &high_near, 1072, 0);
    expect("upper half slow at a page's start", &high_near, 16, 0);

    const colio_copy_penalty_t none = {0, 0, 0, 0};
    for (unsigned s = 0; s < 8192; s += 8)
        expect("no penalty", &none, s, 0);

    const colio_copy_penalty_t forced = {1, 1, 1, 1}; /* COLIO_MISALIGNED_READS=slow */
    for (unsigned s = 0; s < 8192; s++)
        expect("forced slow", &forced, s, s % 32 != 0);

    waypoints(&epyc, &every64, &forced);
    may_alias_edges();
    copies_land();
    return unit_finish("test_copy_shift_unit");
}
