/* Whether copies into memory off the source's alignment run slowly here: reads, memcpy, MPI's (copy_shift.h). */
#define _GNU_SOURCE /* pipe2 */
#include "base/copy_shift.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"

/* The shifts measured: each half of 64 bytes at a page's start and further in (copy_shift.h). */
enum { PROBE_LEN = 32 << 10, PROBE_TRIES = 8, PROBE_LOW = 16, PROBE_HIGH = 48, PROBE_FAR = 1024 };

static colio_copy_penalty_t here; /* this machine's, measured once */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Seconds to read len bytes written into the pipe into dst; -1 when the pipe fails. */
static double timed_read(const int fd[2], const char *src, char *dst, size_t len)
{
    if (write(fd[1], src, len) != (ssize_t)len)
        return -1;
    double t0 = colio_clock_wall();
    for (size_t got = 0; got < len;) {
        ssize_t n = read(fd[0], dst + got, len - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return colio_clock_wall() - t0;
}

/* The shifts measured, after the aligned copy (index 0) they are compared with. */
static const int probe_off[1 + 4] = {0, PROBE_LOW, PROBE_HIGH, PROBE_FAR + PROBE_LOW, PROBE_FAR + PROBE_HIGH};

/*
 * One pass: which shifts read 1.5x slower than the aligned copy, the best
 * of PROBE_TRIES each. Every try reads at every shift in turn, so a stall
 * (time the CPU was taken away) slows them all alike, not just the
 * shift measured then: measured one after another, a shift of 16 came out
 * slow in one bench run of six on a CPU where no shift is, and its reads
 * took a needless bounce (colio-bench --size medium).
 */
static int slow_shifts(const int fd[2], const char *src, char *dst, int slow[4])
{
    double best[1 + 4];
    for (int v = 0; v < 1 + 4; v++)
        best[v] = -1;
    for (int i = 0; i < PROBE_TRIES; i++)
        for (int v = 0; v < 1 + 4; v++) {
            double t = timed_read(fd, src, dst + probe_off[v], PROBE_LEN);
            if (t < 0)
                return -1;
            best[v] = best[v] < 0 || t < best[v] ? t : best[v];
        }
    for (int v = 0; v < 4; v++)
        slow[v] = best[1 + v] > 1.5 * best[0];
    return 0;
}

static void measure(void)
{
    const char *env = getenv("COLIO_MISALIGNED_READS");
    if (env && (strcmp(env, "slow") == 0 || strcmp(env, "fast") == 0)) {
        here.low = here.high = here.far_low = here.far_high = strcmp(env, "slow") == 0;
        return;
    }
    int fd[2];
    if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) != 0) /* a pipe shrunk by the user's pipe limit must not block */
        return;
    char *src = NULL, *dst = NULL;
    int first[4], again[4];
    if (posix_memalign((void **)&src, COLIO_COPY_PAGE, PROBE_LEN) == 0 &&
        posix_memalign((void **)&dst, COLIO_COPY_PAGE, PROBE_LEN + COLIO_COPY_PAGE) == 0) {
        memset(src, 1, PROBE_LEN);
        memset(dst, 0, PROBE_LEN + COLIO_COPY_PAGE);
        if (slow_shifts(fd, src, dst, first) == 0) {
            int any = first[0] | first[1] | first[2] | first[3];
            /* a shift is slow when a second pass says so too: a penalty of the CPU's repeats, noise seldom */
            if (any && slow_shifts(fd, src, dst, again) != 0)
                any = 0;
            int *slow[] = {&here.low, &here.high, &here.far_low, &here.far_high};
            for (int v = 0; v < 4; v++)
                *slow[v] = any && first[v] && again[v];
        }
    }
    free(src), free(dst);
    close(fd[0]), close(fd[1]);
}

int colio_copy_shift_slow(const colio_copy_penalty_t *p, unsigned shift)
{
    shift %= COLIO_COPY_PAGE;
    if (shift % 32 == 0)
        return 0;
    int low = shift % 64 < 32;
    if (shift < 64)
        return low ? p->low : p->high;
    return low ? p->far_low : p->far_high;
}

unsigned colio_copy_waypoint(const colio_copy_penalty_t *p, unsigned shift)
{
    shift %= COLIO_COPY_PAGE;
    if (!colio_copy_shift_slow(p, shift))
        return 0;
    for (unsigned way = 32; way < COLIO_COPY_PAGE; way += 32)
        if (!colio_copy_shift_slow(p, shift - way)) /* unsigned: modulo the page, which divides 2^32 */
            return way;
    return 0; /* every shift slow: no better place */
}

unsigned colio_copy_waypoint_here(unsigned shift)
{
    if (shift % 32 == 0)
        return 0;
    pthread_once(&once, measure);
    return colio_copy_waypoint(&here, shift);
}

int colio_copy_slow_here(unsigned shift)
{
    if (shift % 32 == 0)
        return 0;
    pthread_once(&once, measure);
    return colio_copy_shift_slow(&here, shift);
}

void colio_copy_aliased(char *d, const char *s, size_t n)
{
    enum { PIECE = 1024 };
    if (!colio_copy_slow_here(colio_copy_shift((uintptr_t)d, (uintptr_t)s))) {
        memcpy(d, s, n);
        return;
    }
    for (size_t at = 0; at < n; at += PIECE)
        memcpy(d + at, s + at, n - at < PIECE ? n - at : PIECE);
}
