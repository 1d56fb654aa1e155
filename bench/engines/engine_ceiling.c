/*
 * Engine "ceiling": each rank moves the same number of bytes as its access,
 * as one contiguous call at a disjoint offset, all ranks at once: what the
 * storage gives this many processes on this machine. With --steps, that many times on one open file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "posix_io.h"

/* The ceiling's region: this rank's byte count at the prefix sum of the ranks before it. */
static int64_t ceiling_offset(const bench_engine_ctx_t *c, const bench_access_t *a)
{
    return bench_exscan_sum(a->bytes, c->comm);
}

static int ceiling_run(const bench_engine_ctx_t *c, const bench_access_t *a, char *buf, int write,
                       bench_sample_t *s, char *err, size_t errlen)
{
    int64_t off = ceiling_offset(c, a);
    MPI_Barrier(c->comm);
    double t0 = MPI_Wtime();
    int fd = open_file(c, write), rc = fd < 0 ? -1 : 0, steps = bench_steps(c);
    for (int k = 0; k < steps && rc == 0; k++)
        rc = xfer(fd, buf, a->bytes, off, write);
    if (rc == 0)
        rc = flush_fd(c, fd, write);
    if (fd >= 0)
        close(fd);
    s->time = (MPI_Wtime() - t0) / steps;
    if (rc != 0)
        snprintf(err, errlen, "ceiling: %s: %s", c->path, strerror(errno));
    return rc;
}

static int ceiling_write(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                         char *err, size_t errlen)
{
    return ceiling_run(c, a, (char *)buf, 1, s, err, errlen);
}

static int ceiling_read(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s, char *err,
                        size_t errlen)
{
    return ceiling_run(c, a, buf, 0, s, err, errlen);
}

const bench_engine_t bench_engine_ceiling = {
    .name = "ceiling", .region = ceiling_offset, .write = ceiling_write, .read = ceiling_read};
