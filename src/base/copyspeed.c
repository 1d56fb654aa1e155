/* Whether reads into misaligned memory copy slowly here (copyspeed.h). */
#define _GNU_SOURCE /* pipe2 */
#include "base/copyspeed.h"

#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"

/* The shifts measured: one for each half of 64 bytes, one past the page's first 64 (copyspeed.h). */
enum { PROBE_LEN = 32 << 10, PROBE_TRIES = 8, PROBE_OFF_LOW = 16, PROBE_OFF_HIGH = 48, PROBE_OFF_FAR = 1024 + 16 };
enum { PAGE = 4096 };

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
        here.low = here.high = here.repeats = strcmp(env, "slow") == 0;
        return;
    }
    int fd[2];
    if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) != 0) /* a pipe shrunk by the user's pipe limit must not block */
        return;
    char *src = NULL, *dst = NULL;
    if (posix_memalign((void **)&src, 4096, PROBE_LEN) == 0 && posix_memalign((void **)&dst, PAGE, PROBE_LEN + PAGE) == 0) {
        memset(src, 1, PROBE_LEN);
        memset(dst, 0, PROBE_LEN + PAGE);
        double aligned = best_read(fd, src, dst, PROBE_LEN), low = best_read(fd, src, dst + PROBE_OFF_LOW, PROBE_LEN),
               high = best_read(fd, src, dst + PROBE_OFF_HIGH, PROBE_LEN),
               far = best_read(fd, src, dst + PROBE_OFF_FAR, PROBE_LEN);
        here.low = aligned > 0 && low > 1.5 * aligned;
        here.high = aligned > 0 && high > 1.5 * aligned;
        here.repeats = aligned > 0 && far > 1.5 * aligned;
    }
    free(src), free(dst);
    close(fd[0]), close(fd[1]);
}

int colio_copy_shift_slow(const colio_copy_penalty_t *p, unsigned shift)
{
    shift %= PAGE;
    if (shift % 32 == 0 || (shift >= 64 && !p->repeats))
        return 0;
    return shift % 64 < 32 ? p->low : p->high;
}

int colio_misaligned_read_slow(unsigned shift)
{
    if (shift % 32 == 0)
        return 0;
    pthread_once(&once, measure);
    return colio_copy_shift_slow(&here, shift);
}

void colio_copy_aliased(char *d, const char *s, size_t n)
{
    enum { PIECE = 1024 };
    if (!colio_misaligned_read_slow((unsigned)(((uintptr_t)d - (uintptr_t)s) % PAGE))) {
        memcpy(d, s, n);
        return;
    }
    for (size_t at = 0; at < n; at += PIECE)
        memcpy(d + at, s + at, n - at < PIECE ? n - at : PIECE);
}
