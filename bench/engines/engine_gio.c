/*
 * Engine "gio": the same pieces through GIO (PnetCDF's default I/O driver
 * since 1.15, also a library of its own): collective writes and reads of
 * offset-length lists, POSIX calls underneath. The standard hints of --hints
 * go in its MPI_Info. Built where CMake found GIO (scripts/peers.sh).
 */
#include <fcntl.h>
#include <gio.h>
#include <stdio.h>

#include "../bench.h"

static int fail(int64_t rc, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "GIO %s: %s", what, GIO_strerror((int)rc));
    return -1;
}

/* One collective call of the pieces [first, first + n), their bytes at buf, contiguous. */
static MPI_Offset transfer(GIO_File fh, const bench_access_t *a, int64_t first, int64_t n, char *buf, int64_t bytes,
                           int write)
{
    MPI_Offset zero = 0, len = bytes;
    const MPI_Offset *off = a->off + first, *lens = a->len + first;
    return write ? GIO_write_all(fh, buf, n, off, lens, 1, &zero, &len) : GIO_read_all(fh, buf, n, off, lens, 1, &zero, &len);
}

static int run(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, int write, bench_sample_t *s,
               char *err, size_t errlen)
{
    MPI_Info info = bench_info(c->hints, 1);
    GIO_File fh;
    double t0 = MPI_Wtime();
    int rc = GIO_open(c->comm, c->path, write ? O_CREAT | O_RDWR : O_RDONLY, info, &fh);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (rc != 0)
        return fail(rc, "open", err, errlen);
    int steps = bench_steps(c);
    MPI_Offset got = 0;
    for (int k = 0; k < steps && got >= 0; k++) {
        if (!a->call_per_piece) {
            got = transfer(fh, a, 0, a->n, buf, a->bytes, write);
            continue;
        }
        for (int64_t i = 0, pos = 0; i < a->n && got >= 0; pos += a->len[i++]) /* IOR's segments */
            got = transfer(fh, a, i, 1, (char *)buf + pos, a->len[i], write);
    }
    int src = got >= 0 && write && c->sync ? GIO_sync(fh) : 0;
    int crc = GIO_close(&fh);
    s->time = (MPI_Wtime() - t0) / steps;
    if (got < 0)
        return fail(got, write ? "write_all" : "read_all", err, errlen);
    if (src != 0)
        return fail(src, "sync", err, errlen);
    return crc == 0 ? 0 : fail(crc, "close", err, errlen);
}

static int gio_write(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                     char *err, size_t errlen)
{
    return run(c, a, (void *)buf, 1, s, err, errlen);
}

static int gio_read(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s, char *err,
                    size_t errlen)
{
    return run(c, a, buf, 0, s, err, errlen);
}

const bench_engine_t bench_engine_gio = {.name = "gio", .write = gio_write, .read = gio_read};
