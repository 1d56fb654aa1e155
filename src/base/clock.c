/* The statistics' clock: the TSC scaled, where the kernel trusts it, else clock_gettime (see clock.h). */
#include "base/clock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifdef COLIO_SMPI
#include <mpi.h>
#endif

#if defined(__x86_64__) && !defined(COLIO_SMPI)
#include <x86intrin.h>
#define COLIO_HAVE_TSC 1
#endif

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef COLIO_HAVE_TSC
enum { READ_UNSET, READ_GETTIME, READ_TSC };
static int which; /* set once by calibrate, read without a lock: pthread_once costs a call per read */
static uint64_t tsc0;
static double seconds0, seconds_per_tick;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The kernel keeps time with the TSC only when it found it invariant and in step across cores. */
static int kernel_uses_tsc(void)
{
    char name[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == NULL)
        return 0;
    int ok = fgets(name, sizeof name, f) != NULL && strcmp(name, "tsc\n") == 0;
    fclose(f);
    return ok;
}

/* Whether N reads of the TSC take clearly less than N of clock_gettime (a hypervisor may trap the TSC). */
static int tsc_is_cheaper(void)
{
    enum { N = 256 };
    volatile uint64_t sink = 0;
    double t0 = monotonic();
    for (int i = 0; i < N; i++)
        sink += __rdtsc();
    double t1 = monotonic();
    for (int i = 0; i < N; i++)
        sink += (uint64_t)monotonic();
    double t2 = monotonic();
    (void)sink;
    return t1 - t0 < 0.75 * (t2 - t1);
}

/*
 * A CLOCK_MONOTONIC reading and the TSC at the same moment: the reading
 * between two TSC reads, the tightest of a few tries (a preemption between
 * the reads would otherwise skew the factor for the whole process).
 */
static void reading_pair(double *t, uint64_t *c)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t before = __rdtsc();
        double m = monotonic();
        uint64_t after = __rdtsc();
        if (after - before < best)
            best = after - before, *t = m, *c = before + (after - before) / 2;
    }
}

static int tsc_factor(void)
{
    if (!kernel_uses_tsc() || !tsc_is_cheaper())
        return 0;
    double a = 0, b = 0;
    uint64_t c0 = 0, c1 = 0;
    reading_pair(&a, &c0);
    do /* 1 ms: the factor within about 1e-4 */
        reading_pair(&b, &c1);
    while (b - a < 1e-3);
    if (c1 <= c0)
        return 0;
    tsc0 = c0;
    seconds0 = a;
    seconds_per_tick = (b - a) / (double)(c1 - c0);
    return 1;
}

static void calibrate(void) { __atomic_store_n(&which, tsc_factor() ? READ_TSC : READ_GETTIME, __ATOMIC_RELEASE); }

static int clock_kind(void)
{
    int k = __atomic_load_n(&which, __ATOMIC_ACQUIRE);
    if (k == READ_UNSET) {
        pthread_once(&once, calibrate);
        k = __atomic_load_n(&which, __ATOMIC_ACQUIRE);
    }
    return k;
}

double colio_clock_wall(void)
{
    if (clock_kind() == READ_TSC)
        return seconds0 + (double)(__rdtsc() - tsc0) * seconds_per_tick;
    return monotonic();
}

int colio_clock_uses_tsc(void) { return clock_kind() == READ_TSC; }
#else
double colio_clock_wall(void) { return monotonic(); }
int colio_clock_uses_tsc(void) { return 0; }
#endif

#ifdef COLIO_SMPI
double colio_clock_now(void) { return MPI_Wtime(); }
double colio_clock_now_at(double wall)
{
    (void)wall; /* the simulated clock is not the wall clock */
    return MPI_Wtime();
}
#else
double colio_clock_now(void) { return colio_clock_wall(); }
double colio_clock_now_at(double wall) { return wall; }
#endif
