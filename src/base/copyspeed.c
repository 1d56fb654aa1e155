/* Whether reads into misaligned memory copy slowly here (copyspeed.h). */
#define _GNU_SOURCE /* pipe2 */
#include "base/copyspeed.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"

/* The two shifts measured: one for each half of the 64-byte alignment (copyspeed.h). */
enum { PROBE_LEN = 32 << 10, PROBE_TRIES = 8, PROBE_OFF_LOW = 16, PROBE_OFF_HIGH = 48 };

static int slow_low, slow_high; /* shifts 1-31, 33-63 */
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
        slow_low = slow_high = strcmp(env, "slow") == 0;
        return;
    }
    int fd[2];
    if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) != 0) /* a pipe shrunk by the user's pipe limit must not block */
        return;
    char *src = NULL, *dst = NULL;
    if (posix_memalign((void **)&src, 4096, PROBE_LEN) == 0 && posix_memalign((void **)&dst, 4096, PROBE_LEN + 64) == 0) {
        memset(src, 1, PROBE_LEN);
        memset(dst, 0, PROBE_LEN + 64);
        double aligned = best_read(fd, src, dst, PROBE_LEN), low = best_read(fd, src, dst + PROBE_OFF_LOW, PROBE_LEN),
               high = best_read(fd, src, dst + PROBE_OFF_HIGH, PROBE_LEN);
        slow_low = aligned > 0 && low > 1.5 * aligned;
        slow_high = aligned > 0 && high > 1.5 * aligned;
    }
    free(src), free(dst);
    close(fd[0]), close(fd[1]);
}

int colio_misaligned_read_slow(unsigned shift)
{
    shift %= 64;
    if (shift % 32 == 0)
        return 0;
    pthread_once(&once, measure);
    return shift < 32 ? slow_low : slow_high;
}
