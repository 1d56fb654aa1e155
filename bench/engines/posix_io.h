/* Plain POSIX transfers shared by the posix, ceiling and alltoallv engines. */
#ifndef COLIO_BENCH_POSIX_IO_H
#define COLIO_BENCH_POSIX_IO_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "../bench.h"

static inline int xfer(int fd, char *buf, int64_t len, int64_t off, int write)
{
    for (int64_t done = 0; done < len;) {
        ssize_t k = write ? pwrite(fd, buf + done, (size_t)(len - done), off + done)
                          : pread(fd, buf + done, (size_t)(len - done), off + done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        done += k;
    }
    return 0;
}

/* --sync: a write's bytes to storage before the clock stops. */
static inline int flush_fd(const bench_engine_ctx_t *c, int fd, int write)
{
    return c->sync && write && fd >= 0 ? fsync(fd) : 0;
}

/* Rank 0 creates the file before the others open it with flags (for writes). */
static inline int open_file_flags(const bench_engine_ctx_t *c, int write, int flags)
{
    if (write && c->rank == 0) { /* create before the others open */
        int fd = open(c->path, O_WRONLY | O_CREAT, 0644);
        if (fd >= 0)
            close(fd);
    }
    if (write)
        MPI_Barrier(c->comm);
    return open(c->path, flags);
}

static inline int open_file(const bench_engine_ctx_t *c, int write)
{
    return open_file_flags(c, write, write ? O_WRONLY : O_RDONLY);
}

#endif
