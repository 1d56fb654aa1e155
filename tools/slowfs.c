/*
 * libcolio_slowfs.so: slow storage for any program, by LD_PRELOAD. Every
 * read and write call (read, write, pread, pwrite, preadv, pwritev and
 * their 64/2 variants) on a file whose path starts with
 * $COLIO_SLOWFS_PREFIX first sleeps $COLIO_SLOWFS_DELAY_US microseconds
 * (default 1000). It puts colio and the MPI library's own MPI-IO behind the
 * same storage, which colio's fault backend (colio_fault=delay:US) cannot
 * do (bench/suite.sh slow: the block sweep behind 1 ms storage calls).
 *
 *   LD_PRELOAD=build/NAME/tools/libcolio_slowfs.so COLIO_SLOWFS_PREFIX=/dev/shm/slow/ mpiexec ...
 *
 * A descriptor is judged at its first read or write by its path in
 * /proc/self/fd (so files opened inside the C library, mkstemp's, count
 * too; the prefix is compared after resolving its symbolic links) and
 * forgotten when closed (not when dup2 or fclose replace it). Not slowed:
 * the C library's POSIX aio (aio_read/aio_write, which MPI libraries use
 * for their nonblocking I/O) and io_uring, so compare blocking calls only.
 * Benchmarking only: not thread-safe beyond what a racing first judgement
 * costs (the same answer twice).
 */
#undef _FILE_OFFSET_BITS /* the 64-bit variants are defined here apart */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 65536

static signed char fd_state[MAX_FDS]; /* 0 not judged yet, 1 slow, -1 not */

/* The prefix with its symbolic links resolved (paths in /proc/self/fd are), a trailing '/' kept. */
static const char *prefix(void)
{
    static char resolved[PATH_MAX + 1];
    static int done;
    if (!done) {
        const char *p = getenv("COLIO_SLOWFS_PREFIX");
        size_t n = p ? strlen(p) : 0;
        if (n && realpath(p, resolved) != NULL) {
            if (p[n - 1] == '/' && strlen(resolved) < PATH_MAX)
                strcat(resolved, "/");
        } else if (n && n <= PATH_MAX) {
            strcpy(resolved, p); /* not there yet: as given */
        }
        done = 1;
    }
    return resolved[0] ? resolved : NULL;
}

static long delay_us(void)
{
    const char *d = getenv("COLIO_SLOWFS_DELAY_US");
    long us = d && *d ? atol(d) : 1000;
    return us > 0 ? us : 0;
}

static int is_slow(int fd)
{
    if (fd < 0 || fd >= MAX_FDS)
        return 0;
    if (fd_state[fd] == 0) {
        const char *p = prefix();
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = p ? readlink(link, path, sizeof path - 1) : -1;
        if (n >= 0)
            path[n] = '\0';
        fd_state[fd] = n >= 0 && strncmp(path, p, strlen(p)) == 0 ? 1 : -1;
    }
    return fd_state[fd] == 1;
}

static void slow_down(int fd)
{
    if (!is_slow(fd))
        return;
    long us = delay_us();
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

#define REAL(name, ret, ...)                                                                                          \
    static ret (*real_##name)(__VA_ARGS__);                                                                           \
    if (!real_##name)                                                                                                  \
        *(void **)&real_##name = dlsym(RTLD_NEXT, #name);

int close(int fd)
{
    REAL(close, int, int)
    if (fd >= 0 && fd < MAX_FDS)
        fd_state[fd] = 0;
    return real_close(fd);
}

ssize_t read(int fd, void *buf, size_t n)
{
    REAL(read, ssize_t, int, void *, size_t)
    slow_down(fd);
    return real_read(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write, ssize_t, int, const void *, size_t)
    slow_down(fd);
    return real_write(fd, buf, n);
}

#define POSITIONED(name, buf_t, off_type)                                                                             \
    ssize_t name(int fd, buf_t buf, size_t n, off_type off)                                                           \
    {                                                                                                                  \
        REAL(name, ssize_t, int, buf_t, size_t, off_type)                                                              \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, buf, n, off);                                                                           \
    }
POSITIONED(pread, void *, off_t)
POSITIONED(pread64, void *, off64_t)
POSITIONED(pwrite, const void *, off_t)
POSITIONED(pwrite64, const void *, off64_t)

#define VECTORED(name, off_type)                                                                                      \
    ssize_t name(int fd, const struct iovec *iov, int cnt, off_type off)                                               \
    {                                                                                                                  \
        REAL(name, ssize_t, int, const struct iovec *, int, off_type)                                                 \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, iov, cnt, off);                                                                         \
    }
VECTORED(preadv, off_t)
VECTORED(preadv64, off64_t)
VECTORED(pwritev, off_t)
VECTORED(pwritev64, off64_t)

#define VECTORED2(name, off_type)                                                                                     \
    ssize_t name(int fd, const struct iovec *iov, int cnt, off_type off, int flags)                                    \
    {                                                                                                                  \
        REAL(name, ssize_t, int, const struct iovec *, int, off_type, int)                                            \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, iov, cnt, off, flags);                                                                  \
    }
VECTORED2(preadv2, off_t)
VECTORED2(preadv64v2, off64_t)
VECTORED2(pwritev2, off_t)
VECTORED2(pwritev64v2, off64_t)

#define SEQUENTIAL_V(name)                                                                                            \
    ssize_t name(int fd, const struct iovec *iov, int cnt)                                                             \
    {                                                                                                                  \
        REAL(name, ssize_t, int, const struct iovec *, int)                                                           \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, iov, cnt);                                                                              \
    }
SEQUENTIAL_V(readv)
SEQUENTIAL_V(writev)
