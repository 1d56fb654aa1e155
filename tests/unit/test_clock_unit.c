/*
 * The statistics' clock (base/clock.c): it never goes back, and over a
 * sleep it counts what CLOCK_MONOTONIC counts, whichever way it reads time
 * (the TSC scaled by its measured factor, or clock_gettime itself). The
 * bound is loose on purpose: the two clocks are read one after the other,
 * and the machine may be busy.
 */
#include <stdio.h>
#include <time.h>

#include "base/clock.h"
#include "testutil.h"

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void never_back(void)
{
    double last = colio_clock_wall();
    for (int i = 0; i < 100000; i++) {
        double t = colio_clock_wall();
        CHECK(t >= last, "read %d went back by %g s", i, last - t);
        last = t;
    }
}

static void counts_seconds(void)
{
    const double nap = 0.05;
    double c0 = colio_clock_wall(), m0 = monotonic();
    struct timespec ts = {0, (long)(nap * 1e9)};
    nanosleep(&ts, NULL);
    double c1 = colio_clock_wall(), m1 = monotonic();
    double dc = c1 - c0, dm = m1 - m0;
    CHECK(dm >= nap, "slept %g s of %g", dm, nap);
    CHECK(dc > 0.95 * dm - 0.002 && dc < 1.05 * dm + 0.002, "%s clock counted %g s where CLOCK_MONOTONIC counted %g",
          colio_clock_uses_tsc() ? "the TSC" : "the gettime", dc, dm);
    CHECK(colio_clock_now() - colio_clock_wall() < 1.0 && colio_clock_wall() - colio_clock_now() < 1.0,
          "an operation's clock is the wall clock outside SMPI");
}

int main(void)
{
    never_back();
    counts_seconds();
    printf("clock: %s\n", colio_clock_uses_tsc() ? "TSC, scaled" : "clock_gettime");
    return unit_finish("test_clock_unit");
}
