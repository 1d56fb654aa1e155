/*
 * A plain MPI-IO program (it knows nothing of colio): run with and without
 * libcolio_mpiio, its files must be byte-identical (run_client.cmake).
 *
 * usage: mpiio_basic PATH
 *
 * One file, in order: collective writes at the file pointer through an
 * interleaved vector view (the pointer moves between calls), an explicit
 * offset collective write over part of it, an independent write (not
 * intercepted: the MPI library's own path) between collective ones, a
 * collective read of everything back checked against a model every rank
 * computes, a read at the file pointer past the end of file, atomic mode
 * (collective writes then go to the MPI library), and a view with a
 * non-byte etype, nonblocking and split collectives. Exits non-zero on
 * any wrong byte or error. MPIIO_CLIENT_THREADS=multiple initialises MPI
 * with MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_init.h"

#define PIECE 100 /* bytes of each rank per block of the vector view */
#define BLOCKS 20

static int rank, nprocs, failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "[rank %d] line %d: ", rank, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#define MPI_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static unsigned char datum(int r, long i, int salt) { return (unsigned char)(r * 37 + i * 11 + salt * 101 + 1); }

/* File offset of byte i of rank r's stream under the vector view. */
static long view_off(int r, long i) { return (i / PIECE) * PIECE * nprocs + r * PIECE + i % PIECE; }

static void set_vector_view(MPI_File fh)
{
    MPI_Datatype vec, ft;
    MPI_Type_vector(1, PIECE, PIECE * nprocs, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)PIECE * nprocs, &ft);
    MPI_Type_commit(&ft);
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * PIECE, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiio_basic PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    long stream = (long)PIECE * BLOCKS, size = stream * nprocs;
    long room = size + 4 * (64 + 10 * nprocs); /* the int sections (8., 9.) may reach past the streams */
    unsigned char *model = calloc((size_t)room, 1), *buf = malloc((size_t)stream), *back = malloc((size_t)room);
    MPI_File fh;
    MPI_File_delete(path, MPI_INFO_NULL); /* may not exist */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);

    /* 1. the stream in two collective writes at the file pointer */
    set_vector_view(fh);
    for (long i = 0; i < stream; i++)
        buf[i] = datum(rank, i, 1);
    MPI_OK(MPI_File_write_all(fh, buf, (int)(stream / 2), MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == stream / 2, "file pointer %lld after the first write, expected %ld", (long long)pos, stream / 2);
    MPI_Status st;
    MPI_OK(MPI_File_write_all(fh, buf + stream / 2, (int)(stream - stream / 2), MPI_BYTE, &st));
    int cnt = -1;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == stream - stream / 2, "write_all status count %d", cnt);
    for (int r = 0; r < nprocs; r++)
        for (long i = 0; i < stream; i++)
            model[view_off(r, i)] = datum(r, i, 1);

    /* 2. an explicit-offset collective write over blocks 3..5 of every stream */
    for (long i = 0; i < 3 * PIECE; i++)
        buf[i] = datum(rank, i, 2);
    MPI_OK(MPI_File_write_at_all(fh, 3 * PIECE, buf, 3 * PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int r = 0; r < nprocs; r++)
        for (long i = 0; i < 3 * PIECE; i++)
            model[view_off(r, 3 * PIECE + i)] = datum(r, i, 2);

    /* 3. an independent write (the MPI library's path), made visible by sync-barrier-sync */
    if (rank == nprocs - 1) {
        for (long i = 0; i < PIECE; i++)
            buf[i] = datum(rank, i, 3);
        MPI_OK(MPI_File_write_at(fh, 10 * PIECE, buf, PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
        for (long i = 0; i < PIECE; i++)
            model[view_off(rank, 10 * PIECE + i)] = datum(rank, i, 3);
    }
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_sync(fh));
    MPI_Bcast(model + view_off(nprocs - 1, 10 * PIECE), PIECE, MPI_BYTE, nprocs - 1, MPI_COMM_WORLD);

    /* 4. everything back through a byte view, collectively */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    memset(back, 0xEE, (size_t)size);
    MPI_OK(MPI_File_read_at_all(fh, 0, back, (int)size, MPI_BYTE, MPI_STATUS_IGNORE));
    long bad = 0, first = -1;
    for (long i = 0; i < size; i++)
        if (back[i] != model[i] && bad++ == 0)
            first = i;
    CHECK(bad == 0, "%ld bytes differ from the model after the writes, the first at %ld (read %d, expected %d)", bad,
          first, first < 0 ? 0 : back[first], first < 0 ? 0 : model[first]);

    /* 5. at the file pointer past the end of file: a short read */
    MPI_OK(MPI_File_seek(fh, size - 10, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all(fh, back, 64, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    /* MPI says 10 (what was read); ROMIO and OMPIO say 64 (what was asked), colio 10 */
    CHECK(cnt == 10 || cnt == 64, "read past the end returned %d bytes, expected 10 (or 64)", cnt);
    CHECK(memcmp(back, model + size - 10, 10) == 0, "read past the end: wrong bytes");
    /* colio, OMPIO and ROMIO at several ranks move it by the request; ROMIO on one rank by what was read */
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == size + 54 || (pos == size && cnt == 10), "file pointer %lld after the read past the end, expected %ld",
          (long long)pos, size + 54);

    /* 6. atomic mode: collective writes go through the MPI library, still correct */
    MPI_OK(MPI_File_set_atomicity(fh, 1));
    for (long i = 0; i < 8; i++)
        buf[i] = datum(rank, i, 4);
    MPI_OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * 8, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_set_atomicity(fh, 0));
    for (int r = 0; r < nprocs; r++)
        for (long i = 0; i < 8; i++)
            model[r * 8 + i] = datum(r, i, 4);

    /* 7. an etype of 4 bytes: offsets and the file pointer count ints */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int ints[4] = {rank, rank + 100, rank + 200, rank + 300};
    MPI_OK(MPI_File_seek(fh, 4 * rank, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_all(fh, ints, 4, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 4 * rank + 4, "file pointer %lld in ints, expected %d", (long long)pos, 4 * rank + 4);
    for (int r = 0; r < nprocs; r++)
        for (int j = 0; j < 4; j++) {
            int v = r + 100 * j;
            memcpy(model + 16 * r + 4 * j, &v, 4);
        }

    /* 8. nonblocking and split collectives (ints view still on): each rank's ints [64 + 4r, 64 + 4r + 4) */
    int a[2] = {rank + 1000, rank + 2000}, b[2] = {rank + 3000, rank + 4000}, c[4], got[4];
    MPI_Request rq[2];
    MPI_OK(MPI_File_seek(fh, 64 + 4 * rank, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_all(fh, a, 2, MPI_INT, &rq[0])); /* the pointer moves at initiation */
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 64 + 4 * rank + 2, "file pointer %lld after iwrite_all, expected %d", (long long)pos, 64 + 4 * rank + 2);
    MPI_OK(MPI_File_iwrite_at_all(fh, 64 + 4 * rank + 2, b, 2, MPI_INT, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    c[0] = rank + 5000, c[1] = rank + 6000, c[2] = rank + 7000, c[3] = rank + 8000;
    MPI_OK(MPI_File_write_at_all_begin(fh, 64 + 4 * (nprocs + rank), c, 4, MPI_INT));
    MPI_OK(MPI_File_write_at_all_end(fh, c, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_seek(fh, 64 + 4 * rank, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all_begin(fh, got, 4, MPI_INT));
    MPI_OK(MPI_File_read_all_end(fh, got, &st));
    CHECK(got[0] == a[0] && got[1] == a[1] && got[2] == b[0] && got[3] == b[1], "split read: %d %d %d %d", got[0],
          got[1], got[2], got[3]);
    MPI_OK(MPI_File_iread_at_all(fh, 64 + 4 * (nprocs + rank), got, 4, MPI_INT, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 4 && memcmp(got, c, sizeof c) == 0, "iread_at_all: %d ints, %d %d %d %d", cnt, got[0], got[1],
          got[2], got[3]);
    for (int r = 0; r < nprocs; r++) {
        int v[8] = {r + 1000, r + 2000, r + 3000, r + 4000, r + 5000, r + 6000, r + 7000, r + 8000};
        memcpy(model + 4 * (64 + 4 * r), v, 16);
        memcpy(model + 4 * (64 + 4 * (nprocs + r)), v + 4, 16);
    }

    /* 9. a hint value colio refuses but the MPI library ignores (unknown key to it): the
     * call succeeds and the file carries on through MPI-IO, the next write lands */
    MPI_Info bad_hint;
    MPI_Info_create(&bad_hint);
    MPI_Info_set(bad_hint, "colio_exchange", "no-such-kernel");
    MPI_OK(MPI_File_set_info(fh, bad_hint));
    MPI_Info_free(&bad_hint);
    int d[2] = {rank + 9000, rank + 9500};
    MPI_OK(MPI_File_write_at_all(fh, 64 + 8 * nprocs + 2 * rank, d, 2, MPI_INT, MPI_STATUS_IGNORE));
    for (int r = 0; r < nprocs; r++) {
        int v[2] = {r + 9000, r + 9500};
        memcpy(model + 4 * (64 + 8 * nprocs + 2 * r), v, 8);
    }
    long end = 4 * (64 + 10 * nprocs);
    if (end > size)
        size = end;

    MPI_OK(MPI_File_close(&fh));
    if (rank == 0) { /* the whole file against the model, with plain stdio */
        FILE *f = fopen(path, "rb");
        long n = f ? (long)fread(back, 1, (size_t)size, f) : -1;
        if (f)
            fclose(f);
        CHECK(n == size, "file has %ld bytes, expected %ld", n, size);
        bad = 0;
        for (long i = 0; i < n; i++)
            bad += back[i] != model[i];
        CHECK(bad == 0, "%ld bytes of the final file differ from the model", bad);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpiio_basic on %d ranks: %s\n", nprocs, all ? "FAIL" : "PASS");
    free(model), free(buf), free(back);
    MPI_Finalize();
    return all ? 1 : 0;
}
