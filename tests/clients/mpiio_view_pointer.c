/*
 * Collective calls at the individual file pointer after a view whose
 * filetype has a lower bound above 0: a plain,
 * self-checking MPI-IO program, run bare and through libcolio_mpiio.
 *
 * usage: mpiio_view_pointer PATH
 *
 * Each rank's region holds ints; its view is MPI_INT resized to lb = 4,
 * extent = 12 (every third int). write_all at the pointer twice (it moves
 * between the calls), MPI_File_seek back by MPI_SEEK_SET and MPI_SEEK_CUR,
 * read_all, and a nonblocking and a split collective at the pointer; the
 * file is then checked with POSIX reads against a formula. Through colio the
 * pointer positions are checked too (MPICH 4.0.2's own MPI_File_get_position
 * is wrong after such a view: -1 or a short count).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_check.h"
#include "client_init.h"

enum { K = 40, OLD = 55, REGION_INTS = 3 * 4 * K };

static int interposed;

static int ival(int r, int i) { return r * 100000 + i + 1; }

static void expect_position(MPI_File fh, MPI_Offset want, const char *after)
{
    MPI_Offset at = -2;
    MPI_OK(MPI_File_get_position(fh, &at));
    if (interposed)
        CHECK(at == want, "position after %s: %lld, expected %lld", after, (long long)at, (long long)want);
}

static void fill(int *v, int first, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = ival(client_rank, first + i);
}

static void expect_ints(const int *v, int first, int n, const char *what)
{
    long bad = 0;
    for (int i = 0; i < n; i++)
        bad += v[i] != ival(client_rank, first + i);
    CHECK(bad == 0, "%s: %ld of %d ints wrong (first %d, expected %d)", what, bad, n, v[0], ival(client_rank, first));
}

static void write_region_old(MPI_File fh, MPI_Offset mine)
{
    int *old = malloc(sizeof(int) * REGION_INTS);
    for (int i = 0; i < REGION_INTS; i++)
        old[i] = OLD;
    MPI_OK(MPI_File_write_at(fh, mine, old, REGION_INTS, MPI_INT, MPI_STATUS_IGNORE));
    free(old);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
}

/* The pointer through write_all, seek, read_all, iwrite_all and a split collective. */
static void pointer_calls(MPI_File fh)
{
    int v[2 * K];
    fill(v, 0, K);
    MPI_OK(MPI_File_write_all(fh, v, K, MPI_INT, MPI_STATUS_IGNORE));
    expect_position(fh, K, "write_all");
    fill(v, K, K);
    MPI_OK(MPI_File_write_all(fh, v, K, MPI_INT, MPI_STATUS_IGNORE));
    expect_position(fh, 2 * K, "a second write_all");
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(v, 0, sizeof v);
    MPI_OK(MPI_File_read_all(fh, v, 2 * K, MPI_INT, MPI_STATUS_IGNORE));
    expect_ints(v, 0, 2 * K, "read_all of both writes");
    expect_position(fh, 2 * K, "read_all");
    MPI_OK(MPI_File_seek(fh, -K, MPI_SEEK_CUR));
    memset(v, 0, sizeof v);
    MPI_OK(MPI_File_read_all(fh, v, K, MPI_INT, MPI_STATUS_IGNORE));
    expect_ints(v, K, K, "read_all after MPI_SEEK_CUR back");
    MPI_Request req;
    fill(v, 2 * K, K);
    MPI_OK(MPI_File_iwrite_all(fh, v, K, MPI_INT, &req));
    expect_position(fh, 3 * K, "iwrite_all (moves at once)");
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    fill(v + K, 3 * K, K);
    MPI_OK(MPI_File_write_all_begin(fh, v + K, K, MPI_INT));
    MPI_OK(MPI_File_write_all_end(fh, v + K, MPI_STATUS_IGNORE));
    expect_position(fh, 4 * K, "a split write_all");
}

/* POSIX reads of every rank's region: every third int written, the others old. */
static void check_file(const char *path)
{
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int *got = malloc(sizeof(int) * REGION_INTS);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? pread(fd, got, sizeof(int) * REGION_INTS, (off_t)sizeof(int) * REGION_INTS * client_rank) : -1;
    CHECK(n == (ssize_t)(sizeof(int) * REGION_INTS), "reading the region back: %zd bytes", n);
    if (fd >= 0)
        close(fd);
    long bad = 0;
    for (int i = 0; i < REGION_INTS && n > 0; i++)
        bad += got[i] != (i % 3 == 0 ? ival(client_rank, i / 3) : OLD);
    CHECK(bad == 0, "%ld of %d ints of rank %d's region wrong", bad, REGION_INTS, client_rank);
    free(got);
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &client_rank);
    if (argc < 2) {
        if (client_rank == 0)
            fprintf(stderr, "usage: mpiio_view_pointer PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    interposed = client_through_colio();
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* may not exist */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    client_case = "write_all, read_all, seek at the file pointer through a resized view (lb > 0)";
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    MPI_Offset mine = (MPI_Offset)sizeof(int) * REGION_INTS * client_rank;
    write_region_old(fh, mine);
    MPI_Datatype ft;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 4, 12, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, mine, MPI_INT, ft, "native", MPI_INFO_NULL));
    expect_position(fh, 0, "set_view");
    pointer_calls(fh);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft));
    check_file(argv[1]);
    int rc = client_result("mpiio_view_pointer");
    MPI_Finalize();
    return rc;
}
