/*
 * libcolio_gio's answers to bad calls, as GIO documents them: built against
 * GIO's own header, linked with libcolio_gio. Each case runs on every rank and
 * must return the same GIO code there; the file keeps what was written.
 *
 * usage: gio_errors DIR
 */
#include <fcntl.h>
#include <gio.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_check.h"

static int rank, nprocs;

/* The code is want on this rank and the same on every rank. */
static void expect(long long got, long long want, const char *what)
{
    long long in[2] = {got, -got}, out[2];
    MPI_Allreduce(in, out, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    CHECK(got == want, "%s: %lld (%s), expected %lld (%s)", what, got, GIO_strerrno((int)got), want,
          GIO_strerrno((int)want));
    CHECK(out[0] == -out[1], "%s: codes differ across ranks (%lld..%lld)", what, out[0], -out[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    client_rank = rank;
    char path[4096], missing[4096];
    snprintf(path, sizeof path, "%s/gio_errors.dat", argc > 1 ? argv[1] : ".");
    snprintf(missing, sizeof missing, "%s/no/such/dir/f.dat", argc > 1 ? argv[1] : ".");
    GIO_File fh = GIO_FILE_NULL;

    expect(GIO_open(MPI_COMM_WORLD, path, O_RDONLY | O_CREAT, MPI_INFO_NULL, &fh), GIO_EINVAL, "read-only create");
    expect(GIO_open(MPI_COMM_WORLD, path, rank == nprocs - 1 ? O_RDWR : O_CREAT | O_RDWR, MPI_INFO_NULL, &fh),
           nprocs > 1 ? GIO_EMULTIDEFINE_AMODE : GIO_ENOENT, "open modes differ (one rank: a missing file)");
    if (fh != GIO_FILE_NULL)
        GIO_close(&fh);
    expect(GIO_open(MPI_COMM_WORLD, missing, O_RDONLY, MPI_INFO_NULL, &fh), GIO_ENOENT, "missing file");

    /* each rank writes 8 bytes at 8 * rank, collectively, then again independently */
    CHECK(GIO_open(MPI_COMM_WORLD, path, O_CREAT | O_RDWR, MPI_INFO_NULL, &fh) == GIO_NOERR, "open");
    char mine[8];
    memset(mine, 'a' + rank % 26, sizeof mine);
    MPI_Offset off = 8 * rank, len = 8, zero = 0;
    expect(GIO_write_all(fh, mine, 1, &off, &len, 1, &zero, &len), 8, "collective write of 8 bytes");
    MPI_Offset neg = -1;
    expect(GIO_write_all(fh, mine, neg, &off, &len, 1, &zero, &len), GIO_ENEGATIVECNT, "negative count");
    MPI_Offset badlen = -4;
    expect(GIO_write_all(fh, mine, 1, &off, &badlen, 1, &zero, &len), GIO_EINVAL, "negative length");
    /* bad arguments on one rank only: every rank returns that rank's code */
    int last = rank == nprocs - 1;
    expect(GIO_write_all(fh, mine, last ? neg : 1, &off, &len, 1, &zero, &len), GIO_ENEGATIVECNT,
           "negative count on the last rank");
    expect(GIO_read_all(fh, mine, 1, &off, rank == 0 ? &badlen : &len, 1, &zero, &len), GIO_EINVAL,
           "negative length on the first rank");
    MPI_Offset four = 4;
    expect(GIO_write_all(fh, mine, 1, &off, &len, 1, &zero, &four), GIO_EINVAL, "memory shorter than the file list");
    MPI_Offset size = 0;
    expect(GIO_get_size(fh, &size), GIO_NOERR, "size");
    CHECK(size == 8 * nprocs, "file size %lld, expected %d", (long long)size, 8 * nprocs);
    expect(GIO_close(&fh), GIO_NOERR, "close");

    CHECK(GIO_open(MPI_COMM_WORLD, path, O_RDONLY, MPI_INFO_NULL, &fh) == GIO_NOERR, "reopen");
    expect(GIO_write_all(fh, mine, 1, &off, &len, 1, &zero, &len), GIO_EPERM, "write to a read-only file");
    expect(GIO_write(fh, mine, 1, &off, &len, 1, &zero, &len), GIO_EPERM, "independent write to a read-only file");
    char back[8];
    expect(GIO_read_all(fh, back, 1, &off, &len, 1, &zero, &len), 8, "collective read");
    CHECK(memcmp(back, mine, 8) == 0, "read back other bytes than written");
    expect(GIO_close(&fh), GIO_NOERR, "close read-only");
    expect(GIO_close(&fh), GIO_EINVAL, "close of a closed handle");
    CHECK(strcmp(GIO_strerrno(GIO_EPERM), "GIO_EPERM") == 0, "GIO_strerrno names the code");
    CHECK(GIO_strerror(GIO_ENOENT)[0] != '\0', "GIO_strerror gives a message");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    int rc = client_result("gio_errors");
    MPI_Finalize();
    return rc;
}
