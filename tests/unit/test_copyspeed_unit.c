/*
 * The rule that sends a direct read through the bounce buffer
 * (base/copyspeed.h), from given probe results: on the AMD EPYC measured,
 * only memory 1-31 bytes past the file offset within a page copies slowly
 * (1040 bytes past does not), so a program's buffer 16 bytes past a page
 * is bounced for page-aligned offsets and not for offsets 1 KiB further.
 * Each expectation is written out, not derived from the rule.
 */
#include <stdio.h>

#include "base/copyspeed.h"
#include "testutil.h"

static void expect(const char *what, const colio_copy_penalty_t *p, unsigned shift, int want)
{
    int got = colio_copy_shift_slow(p, shift);
    CHECK(got == want, "%s: shift %u: %s, expected %s", what, shift, got ? "slow" : "fast", want ? "slow" : "fast");
}

int main(void)
{
    const colio_copy_penalty_t epyc = {.low = 1, .high = 0, .repeats = 0};
    const unsigned epyc_slow[] = {1, 8, 16, 24, 31, 4096 + 16, 8192 + 1};
    const unsigned epyc_fast[] = {0, 32, 33, 40, 48, 63, 64, 80, 1040, 2064, 4064, 4080, 4095, 4096, 4096 + 32};
    for (unsigned i = 0; i < sizeof epyc_slow / sizeof *epyc_slow; i++)
        expect("page-start penalty", &epyc, epyc_slow[i], 1);
    for (unsigned i = 0; i < sizeof epyc_fast / sizeof *epyc_fast; i++)
        expect("page-start penalty", &epyc, epyc_fast[i], 0);

    const colio_copy_penalty_t every64 = {.low = 1, .high = 0, .repeats = 1};
    expect("penalty every 64 bytes", &every64, 1040, 1);
    expect("penalty every 64 bytes", &every64, 4080, 0);
    expect("penalty every 64 bytes", &every64, 2048 + 8, 1);
    expect("penalty every 64 bytes", &every64, 2048 + 32, 0);

    const colio_copy_penalty_t high_only = {.low = 0, .high = 1, .repeats = 1};
    expect("upper half slow", &high_only, 16, 0);
    expect("upper half slow", &high_only, 48, 1);
    expect("upper half slow", &high_only, 1024 + 48, 1);
    expect("upper half slow", &high_only, 96, 0);

    const colio_copy_penalty_t none = {0, 0, 0};
    for (unsigned s = 0; s < 8192; s += 8)
        expect("no penalty", &none, s, 0);

    const colio_copy_penalty_t forced = {1, 1, 1}; /* COLIO_MISALIGNED_READS=slow */
    for (unsigned s = 0; s < 8192; s++)
        expect("forced slow", &forced, s, s % 32 != 0);

    return unit_finish("test_copyspeed_unit");
}
