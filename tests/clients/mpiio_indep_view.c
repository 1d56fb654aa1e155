/*
 * Independent strided writes beside colio: a plain,
 * self-checking MPI-IO program. run_client.cmake runs it bare and through
 * libcolio_mpiio (preloaded, or linked) and compares the files too.
 *
 * usage: mpiio_indep_view PATH
 *
 * (a) MPI_File_write through a view whose filetype is MPI_INT resized to
 *     lb = 4, extent = 12: every third int of the rank's region, the others
 *     keep their old content; MPI_File_get_info reports no data-sieving
 *     setting the program never made; a collective read sees the bytes.
 *     (ROMIO's own strided write without data sieving puts such data at
 *     the wrong offsets.)
 * (b) What data sieving must not break: a nonblocking collective write in
 *     flight while the last rank writes the blocks between its pieces
 *     independently, through a strided view (the MPI library reads, fills
 *     and writes back whole spans: data sieving), over and over until the
 *     collective completes. Both writers' bytes must be in the file. Needs
 *     two ranks and MPI_THREAD_MULTIPLE (MPIIO_CLIENT_THREADS=multiple:
 *     colio's progress thread writes while the program runs); else skipped.
 *     Through colio only: MPICH 4.0.2 alone loses bytes here (its own
 *     collective writes take no lock against its sieving).
 * (c) The time of one independent strided write of 256 Ki ints at stride 2
 *     (MPIIO_STRIDED_INTS=N: N ints), printed (never judged here:
 *     docs/PERFORMANCE.md compares it).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_check.h"
#include "client_init.h"

enum { K = 64, OLD = 55, BLK = 4096, BLOCKS_PER_RANK = 96, ROUNDS = 4 };

static int nprocs;

static int ival(int r, int i) { return r * 100000 + i + 1; }

/* Read n bytes at off of path with POSIX: the reference, independent of MPI-IO. */
static void posix_read(const char *path, void *buf, size_t n, off_t off)
{
    int fd = open(path, O_RDONLY);
    ssize_t got = fd >= 0 ? pread(fd, buf, n, off) : -1;
    CHECK(got == (ssize_t)n, "reading %zu bytes of %s at %lld: got %zd", n, path, (long long)off, got);
    if (fd >= 0)
        close(fd);
}

static MPI_Datatype resized_int(void)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 4, 12, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

/*
 * (a) every third int through one MPI_File_write. (One call: MPICH 4.0.2's
 * own file pointer goes wrong after it with this filetype, so a second
 * independent call lands at the wrong place with or without colio;
 * mpiio_view_pointer shows that colio's collective calls do not.)
 */
static void case_resized_view(const char *path)
{
    client_case = "a (independent write, resized filetype with lb > 0)";
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Offset region = (MPI_Offset)3 * K * sizeof(int), mine = region * client_rank;
    int old[3 * K], v[K];
    for (int i = 0; i < 3 * K; i++)
        old[i] = OLD;
    MPI_OK(MPI_File_write_at(fh, mine, old, 3 * K, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    MPI_Datatype ft = resized_int();
    MPI_OK(MPI_File_set_view(fh, mine, MPI_INT, ft, "native", MPI_INFO_NULL));
    for (int i = 0; i < K; i++)
        v[i] = ival(client_rank, i);
    MPI_OK(MPI_File_write(fh, v, K, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int found = 0;
    MPI_OK(MPI_File_get_info(fh, &used));
    MPI_OK(MPI_Info_get(used, "romio_ds_write", MPI_MAX_INFO_VAL, value, &found));
    MPI_OK(MPI_Info_free(&used));
    CHECK(!found || strcmp(value, "disable") != 0, "get_info reports romio_ds_write=disable, never set by the program");
    MPI_OK(MPI_File_sync(fh)); /* sync-barrier-sync: the collective read below sees the independent write */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    int back[3 * K];
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_read_at_all(fh, mine, back, 3 * K, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3 * K; i++)
        CHECK(back[i] == (i % 3 == 0 ? ival(client_rank, i / 3) : OLD), "read_at_all: int %d is %d", i, back[i]);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int got[3 * K];
    posix_read(path, got, sizeof got, (off_t)mine);
    for (int i = 0; i < 3 * K; i++) {
        int want = i % 3 == 0 ? ival(client_rank, i / 3) : OLD;
        CHECK(got[i] == want, "int %d of rank %d's region: %d, expected %d", i, client_rank, got[i], want);
    }
}

static unsigned char bval(long off, int salt) { return (unsigned char)(off * 7 + salt * 31 + 1); }

/* Blocks of BLK bytes: even ones written collectively (rank r the j-th with j % nprocs == r), odd ones independently. */
static MPI_Datatype every_nth_block(int n)
{
    MPI_Datatype c, t;
    MPI_OK(MPI_Type_contiguous(BLK, MPI_BYTE, &c));
    MPI_OK(MPI_Type_create_resized(c, 0, (MPI_Aint)BLK * n, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_free(&c));
    return t;
}

static void fill_blocks(unsigned char *buf, long first, long step, long n, int salt)
{
    for (long b = 0; b < n; b++)
        for (long i = 0; i < BLK; i++)
            buf[b * BLK + i] = bval((first + b * step) * BLK + i, salt);
}

/* One round of (b): returns the number of independent writes made while the collective was in flight. */
static int race_round(MPI_File coll, MPI_File indep, unsigned char *mine, unsigned char *odd, long nodd, int salt)
{
    long nmine = BLOCKS_PER_RANK;
    fill_blocks(mine, 2L * client_rank, 2L * nprocs, nmine, salt);
    fill_blocks(odd, 1, 2, nodd, salt);
    MPI_Request req;
    MPI_OK(MPI_File_iwrite_at_all(coll, 0, mine, (int)(nmine * BLK), MPI_BYTE, &req));
    int writes = 0, done = 0;
    if (indep != MPI_FILE_NULL)
        while (!done || writes < 2) {
            MPI_OK(MPI_File_write_at(indep, 0, odd, (int)(nodd * BLK), MPI_BYTE, MPI_STATUS_IGNORE));
            writes++;
            if (!done)
                MPI_OK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        }
    else
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (indep != MPI_FILE_NULL)
        MPI_OK(MPI_File_sync(indep));
    MPI_OK(MPI_File_sync(coll));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(coll));
    return writes;
}

/* Rank 0 checks every block of the file against the round's salt. */
static void check_race(const char *path, long nblocks, int salt)
{
    if (client_rank != 0)
        return;
    unsigned char *got = malloc((size_t)nblocks * BLK);
    posix_read(path, got, (size_t)nblocks * BLK, 0);
    long bad = 0, first = -1, zeros = 0;
    for (long i = 0; i < nblocks * BLK; i++)
        if (got[i] != bval(i, salt)) {
            bad++;
            zeros += got[i] == 0;
            first = first < 0 ? i : first;
        }
    CHECK(bad == 0, "round %d: %ld bytes lost (%ld of them zero; first at %ld, in a block written %s)", salt, bad,
          zeros, first, first / BLK % 2 ? "independently" : "collectively");
    free(got);
}

static void case_sieving_beside_collective(const char *base)
{
    client_case = "b (independent sieved writes beside a nonblocking collective write)";
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (nprocs < 2 || level != MPI_THREAD_MULTIPLE) {
        if (client_rank == 0)
            printf("case b skipped: needs 2 ranks and MPI_THREAD_MULTIPLE (MPIIO_CLIENT_THREADS=multiple)\n");
        return;
    }
    if (!client_through_colio()) { /* ROMIO's own collective writes take no locks: MPICH 4.0.2 loses bytes here */
        if (client_rank == 0)
            printf("case b skipped: it checks what colio guarantees, and runs through libcolio_mpiio only\n");
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.race", base);
    long nblocks = 2L * nprocs * BLOCKS_PER_RANK, nodd = nblocks / 2;
    MPI_File coll, indep = MPI_FILE_NULL;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &coll));
    MPI_Datatype even = every_nth_block(2 * nprocs), odds = every_nth_block(2);
    MPI_OK(MPI_File_set_view(coll, (MPI_Offset)2 * client_rank * BLK, MPI_BYTE, even, "native", MPI_INFO_NULL));
    if (client_rank == nprocs - 1) {
        MPI_OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, MPI_INFO_NULL, &indep));
        MPI_OK(MPI_File_set_view(indep, BLK, MPI_BYTE, odds, "native", MPI_INFO_NULL));
    }
    unsigned char *mine = malloc((size_t)BLOCKS_PER_RANK * BLK), *odd = malloc((size_t)nodd * BLK);
    int writes = 0;
    for (int salt = 1; salt <= ROUNDS; salt++) {
        writes += race_round(coll, indep, mine, odd, nodd, salt);
        check_race(path, nblocks, salt);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* the next round writes only once the check has read */
    }
    if (client_rank == nprocs - 1)
        printf("case b: %d independent strided writes beside %d nonblocking collective writes\n", writes, ROUNDS);
    if (indep != MPI_FILE_NULL)
        MPI_OK(MPI_File_close(&indep));
    MPI_OK(MPI_File_close(&coll));
    MPI_OK(MPI_Type_free(&even));
    MPI_OK(MPI_Type_free(&odds));
    free(mine);
    free(odd);
}

/* (c) rank 0 alone: N ints at stride 2 in one MPI_File_write (timed, then checked) */
static void case_strided_speed(const char *base)
{
    client_case = "c (independent strided write, timed)";
    if (client_rank != 0)
        return;
    const char *env = getenv("MPIIO_STRIDED_INTS");
    int N = env && atoi(env) > 0 ? atoi(env) : 1 << 18;
    char path[4096];
    snprintf(path, sizeof path, "%s.strided", base);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype ft;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 8, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *v = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        v[i] = i * 3 + 1;
    double t0 = MPI_Wtime();
    MPI_OK(MPI_File_write(fh, v, N, MPI_INT, MPI_STATUS_IGNORE));
    double t = MPI_Wtime() - t0;
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft));
    int *got = malloc(sizeof(int) * 2 * N);
    posix_read(path, got, sizeof(int) * (2 * N - 1), 0);
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += got[2 * i] != i * 3 + 1;
    CHECK(bad == 0, "%ld of %d ints at stride 2 wrong", bad, N);
    printf("case c: independent write of %d ints at stride 2: %.4f s\n", N, t);
    free(v);
    free(got);
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &client_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (client_rank == 0)
            fprintf(stderr, "usage: mpiio_indep_view PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* may not exist */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    case_resized_view(argv[1]);
    case_sieving_beside_collective(argv[1]);
    case_strided_speed(argv[1]);
    int rc = client_result("mpiio_indep_view");
    MPI_Finalize();
    return rc;
}
