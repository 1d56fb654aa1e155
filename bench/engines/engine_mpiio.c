/*
 * Engine "mpiio": the same view through the MPI library's own collective
 * MPI-IO (ROMIO in MPICH, OMPIO in Open MPI), with the standard hints of
 * --hints (colio_* keys are left out).
 */
#include <limits.h>
#include <stdio.h>

#include "../bench.h"

static int fail(int rc, const char *what, char *err, size_t errlen)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    snprintf(err, errlen, "MPI-IO %s: %s", what, text);
    return -1;
}

/* A datatype of n bytes, so counts above INT_MAX work with MPI-3 calls too. */
static int bytes_type(int64_t n, MPI_Datatype *t, int *count)
{
    if (n <= INT_MAX) {
        *t = MPI_BYTE;
        *count = (int)n;
        return 0;
    }
    const int64_t chunk = 1 << 20;
    MPI_Datatype whole, rest, parts;
    MPI_Type_contiguous(chunk, MPI_BYTE, &whole);
    MPI_Type_contiguous((int)(n % chunk), MPI_BYTE, &rest);
    int bl[2] = {(int)(n / chunk), 1};
    MPI_Aint d[2] = {0, (MPI_Aint)(n / chunk * chunk)};
    MPI_Datatype ts[2] = {whole, rest};
    MPI_Type_create_struct(2, bl, d, ts, &parts);
    MPI_Type_commit(&parts);
    MPI_Type_free(&whole);
    MPI_Type_free(&rest);
    *t = parts;
    *count = 1;
    return 0;
}

/* IOR's segments: one collective call per piece at its offset (the default view; pieces under 2 GiB). */
static int call_per_piece(MPI_File fh, const bench_access_t *a, char *buf, int write)
{
    int rc = MPI_SUCCESS;
    for (int64_t i = 0, pos = 0; i < a->n && rc == MPI_SUCCESS; pos += a->len[i++])
        rc = write ? MPI_File_write_at_all(fh, a->off[i], buf + pos, (int)a->len[i], MPI_BYTE, MPI_STATUS_IGNORE)
                   : MPI_File_read_at_all(fh, a->off[i], buf + pos, (int)a->len[i], MPI_BYTE, MPI_STATUS_IGNORE);
    return rc;
}

static int run(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, int write, bench_sample_t *s,
               char *err, size_t errlen)
{
    MPI_Info info = bench_info(c->hints, 1);
    MPI_File fh;
    MPI_Datatype memtype;
    int count;
    bytes_type(a->bytes, &memtype, &count);
    double t0 = MPI_Wtime();
    int rc = MPI_File_open(c->comm, c->path, write ? MPI_MODE_WRONLY | MPI_MODE_CREATE : MPI_MODE_RDONLY, info, &fh);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return fail(rc, "open", err, errlen);
    int steps = bench_steps(c);
    if (!a->call_per_piece)
        rc = MPI_File_set_view(fh, a->disp, MPI_BYTE, a->filetype, "native", MPI_INFO_NULL);
    for (int k = 0; k < steps && rc == MPI_SUCCESS; k++)
        if (a->call_per_piece)
            rc = call_per_piece(fh, a, buf, write);
        else
            rc = write ? MPI_File_write_at_all(fh, 0, buf, count, memtype, MPI_STATUS_IGNORE)
                       : MPI_File_read_at_all(fh, 0, buf, count, memtype, MPI_STATUS_IGNORE);
    const char *what = write ? "write_all" : "read_all";
    if (rc == MPI_SUCCESS && write && c->sync)
        rc = MPI_File_sync(fh), what = "sync";
    int crc = MPI_File_close(&fh);
    s->time = (MPI_Wtime() - t0) / steps;
    if (memtype != MPI_BYTE)
        MPI_Type_free(&memtype);
    if (rc != MPI_SUCCESS)
        return fail(rc, what, err, errlen);
    return crc == MPI_SUCCESS ? 0 : fail(crc, "close", err, errlen);
}

static int mpiio_write(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                       char *err, size_t errlen)
{
    return run(c, a, (void *)buf, 1, s, err, errlen);
}

static int mpiio_read(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s, char *err,
                      size_t errlen)
{
    return run(c, a, buf, 0, s, err, errlen);
}

const bench_engine_t bench_engine_mpiio = {.name = "mpiio", .write = mpiio_write, .read = mpiio_read};
