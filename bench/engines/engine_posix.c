/*
 * Engine "posix": each rank pwrite()s / pread()s its own pieces, one call
 * per piece, no coordination: the naive floor. With --steps, that many times on one open file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../bench.h"

#include "posix_io.h"

static int posix_run(const bench_engine_ctx_t *c, const bench_access_t *a, char *buf, int write, bench_sample_t *s,
                     char *err, size_t errlen)
{
    double t0 = MPI_Wtime();
    int fd = open_file(c, write), rc = fd < 0 ? -1 : 0, steps = bench_steps(c);
    for (int k = 0; k < steps && rc == 0; k++)
        for (int64_t i = 0, pos = 0; rc == 0 && i < a->n; pos += a->len[i], i++)
            rc = xfer(fd, buf + pos, a->len[i], a->off[i], write);
    if (rc == 0)
        rc = flush_fd(c, fd, write);
    if (fd >= 0)
        close(fd);
    s->time = (MPI_Wtime() - t0) / steps;
    if (rc != 0)
        snprintf(err, errlen, "posix: %s: %s", c->path, strerror(errno));
    return rc;
}

static int posix_write(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                       char *err, size_t errlen)
{
    return posix_run(c, a, (char *)buf, 1, s, err, errlen);
}

static int posix_read(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s, char *err,
                      size_t errlen)
{
    return posix_run(c, a, buf, 0, s, err, errlen);
}

const bench_engine_t bench_engine_posix = {.name = "posix", .write = posix_write, .read = posix_read};
