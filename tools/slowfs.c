/*
 * libcolio_slowfs.so: slow storage for any program, by LD_PRELOAD. Every
 * read and write call (read, write, pread, pwrite, preadv, pwritev and
 * their 64/2 variants) on a file whose path starts with
 * $COLIO_SLOWFS_PREFIX first sleeps $COLIO_SLOWFS_DELAY_US microseconds
 * (default 1000). It puts colio and the MPI library's own MPI-IO behind the
 * same storage, which colio's fault backend (colio_fault=delay:US) cannot
 * do (issue 23: the sweep behind 1 ms storage calls; docs/PERFORMANCE.md).
 *
 *   LD_PRELOAD=build/NAME/tools/libcolio_slowfs.so COLIO_SLOWFS_PREFIX=/dev/shm/slow/ mpiexec ...
 *
 * A descriptor is judged at its first read or write by its path in
 * /proc/self/fd (so files opened inside the C library, mkstemp's, count
 * too) and forgotten when closed. Benchmarking only: not thread-safe
 * beyond what a racing first judgement costs (the same answer twice).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 65536

static signed char fd_state[MAX_FDS]; /* 0 not judged yet, 1 slow, -1 not */

static const char *prefix(void)
{
    const char *p = getenv("COLIO_SLOWFS_PREFIX");
    return p && *p ? p : NULL;
}

static long delay_us(void)
{
    const char *d = getenv("COLIO_SLOWFS_DELAY_US");
    return d && *d ? atol(d) : 1000;
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
    while (nanosleep(&ts, &ts) != 0)
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

#define POSITIONED(name, buf_t)                                                                                       \
    ssize_t name(int fd, buf_t buf, size_t n, off_t off)                                                             \
    {                                                                                                                  \
        REAL(name, ssize_t, int, buf_t, size_t, off_t)                                                                 \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, buf, n, off);                                                                           \
    }
POSITIONED(pread, void *)
POSITIONED(pread64, void *)
POSITIONED(pwrite, const void *)
POSITIONED(pwrite64, const void *)

#define VECTORED(name)                                                                                                \
    ssize_t name(int fd, const struct iovec *iov, int cnt, off_t off)                                                  \
    {                                                                                                                  \
        REAL(name, ssize_t, int, const struct iovec *, int, off_t)                                                    \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, iov, cnt, off);                                                                         \
    }
VECTORED(preadv)
VECTORED(preadv64)
VECTORED(pwritev)
VECTORED(pwritev64)

#define VECTORED2(name)                                                                                               \
    ssize_t name(int fd, const struct iovec *iov, int cnt, off_t off, int flags)                                       \
    {                                                                                                                  \
        REAL(name, ssize_t, int, const struct iovec *, int, off_t, int)                                               \
        slow_down(fd);                                                                                                 \
        return real_##name(fd, iov, cnt, off, flags);                                                                  \
    }
VECTORED2(preadv2)
VECTORED2(pwritev2)
