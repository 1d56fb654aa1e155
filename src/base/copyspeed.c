/* Whether copies into memory off the source's alignment run slowly here: reads, memcpy, MPI's (copyspeed.h). */
#define _GNU_SOURCE /* pipe2 */
#include "base/copyspeed.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"

/* The shifts measured: each half of 64 bytes at a page's start and further in (copyspeed.h). */
enum { PROBE_LEN = 32 << 10, PROBE_TRIES = 8, PROBE_LOW = 16, PROBE_HIGH = 48, PROBE_FAR = 1024 };

static colio_copy_penalty_t here; /* this machine's, measured once */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The best time of reading len bytes written into the pipe into dst; -1 when the pipe fails. */
static double best_read(const int fd[2], const char *src, char *dst, size_t len)
{
    double best = -1;
    for (int i = 0; i < PROBE_TRIES; i++) {
        if (write(fd[1], src, len) != (ssize_t)len)
            return -1;
        double t0 = colio_clock_wall();
        for (size_t got = 0; got < len;) {
            ssize_t n = read(fd[0], dst + got, len - got);
            if (n <= 0)
                return -1;
            got += (size_t)n;
        }
        double t = colio_clock_wall() - t0;
        best = best < 0 || t < best ? t : best;
    }
    return best;
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
    if (posix_memalign((void **)&src, COLIO_COPY_PAGE, PROBE_LEN) == 0 &&
        posix_memalign((void **)&dst, COLIO_COPY_PAGE, PROBE_LEN + COLIO_COPY_PAGE) == 0) {
        memset(src, 1, PROBE_LEN);
        memset(dst, 0, PROBE_LEN + COLIO_COPY_PAGE);
        double aligned = best_read(fd, src, dst, PROBE_LEN);
        int *slow[] = {&here.low, &here.high, &here.far_low, &here.far_high};
        const int off[] = {PROBE_LOW, PROBE_HIGH, PROBE_FAR + PROBE_LOW, PROBE_FAR + PROBE_HIGH};
        for (int i = 0; i < 4; i++)
            *slow[i] = aligned > 0 && best_read(fd, src, dst + off[i], PROBE_LEN) > 1.5 * aligned;
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
