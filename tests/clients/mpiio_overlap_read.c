/*
 * A view with overlapping pieces on a file opened read-only: MPI forbids overlap only where the file is open for writing; a
 * read-only view may name a byte twice as long as its displacements do not
 * go down. A plain, self-checking MPI-IO program, run bare and through
 * libcolio_mpiio.
 *
 * usage: mpiio_overlap_read PATH
 *
 * Rank 0 writes the file with POSIX (byte off holds bval(off)); then every
 * rank reads collectively through (a) an hindexed byte filetype whose
 * blocks overlap (displacements 0, 8, 8: lengths 16, 16, 4) tiled over its
 * region, and (b) an int filetype MPI_Type_vector(4, 2, 1) (ints 0 1 1 2 2 3
 * 3 4), with read_all at the pointer and read_at_all; each buffer is checked
 * against the same typemap walked here by hand. Through libcolio_mpiio, the
 * reads must be colio's: its statistics (hint colio_stats, or the one
 * COLIO_HINTS names) hold one record per rank and read call on this file.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_check.h"
#include "client_init.h"

/*
 * set_view, or 0 where the MPI library itself refuses the overlapping view:
 * Open MPI's OMPIO (4.1 and 5.0) answers MPI_ERR_TYPE even on a read-only
 * file, and the view never reaches colio (the MPI library's handle must take
 * every view, for the calls colio leaves to it).
 */
static int set_overlapping_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ft)
{
    int rc = MPI_File_set_view(fh, disp, etype, ft, "native", MPI_INFO_NULL);
#ifdef OPEN_MPI
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_TYPE) {
        if (client_rank == 0)
            printf("case %s skipped: Open MPI refuses overlapping filetypes (MPI_ERR_TYPE)\n", client_case);
        return 0;
    }
#endif
    MPI_OK(rc);
    return 1;
}

enum { REGION = 4096, TILES = 20 };

static unsigned char bval(long off) { return (unsigned char)(off * 11 + off / 256 + 3); }

static void write_file(const char *path, long size)
{
    if (client_rank == 0) {
        unsigned char *b = malloc((size_t)size);
        for (long i = 0; i < size; i++)
            b[i] = bval(i);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CHECK(fd >= 0 && write(fd, b, (size_t)size) == size, "writing %s", path);
        if (fd >= 0)
            close(fd);
        free(b);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Expected bytes: tiles of (disp[i], len[i]) blocks at base + t * extent, in typemap order. */
static long expected(unsigned char *out, long base, long extent, int n, const long *disp, const long *len, int tiles)
{
    long k = 0;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < n; i++)
            for (long j = 0; j < len[i]; j++)
                out[k++] = bval(base + t * extent + disp[i] + j);
    return k;
}

static void compare(const unsigned char *got, const unsigned char *want, long n, const char *what)
{
    long bad = 0, first = -1;
    for (long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            bad++;
            first = first < 0 ? i : first;
        }
    CHECK(bad == 0, "%s: %ld of %ld bytes wrong (first at %ld)", what, bad, n, first);
}

/* The rank's region through the default view first (what every MPI library takes). */
static void case_plain(MPI_File fh)
{
    client_case = "plain read_at_all";
    const long disp[] = {0}, len[] = {REGION};
    unsigned char *got = calloc(REGION, 1), *want = malloc(REGION);
    expected(want, (long)REGION * client_rank, REGION, 1, disp, len, 1);
    MPI_OK(MPI_File_read_at_all(fh, (MPI_Offset)REGION * client_rank, got, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    compare(got, want, REGION, "read_at_all of the region");
    free(got), free(want);
}

/* (a) bytes: blocks (0,16) (8,16) (8,4), extent 24 */
static int case_bytes(MPI_File fh)
{
    client_case = "a (overlapping hindexed byte filetype, read-only)";
    const long disp[] = {0, 8, 8}, len[] = {16, 16, 4};
    int blens[] = {16, 16, 4};
    MPI_Aint adisp[] = {0, 8, 8};
    MPI_Datatype h, ft;
    MPI_OK(MPI_Type_create_hindexed(3, blens, adisp, MPI_BYTE, &h));
    MPI_OK(MPI_Type_create_resized(h, 0, 24, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    long base = (long)REGION * client_rank, per = 36;
    unsigned char got[36 * TILES], want[36 * TILES];
    if (!set_overlapping_view(fh, base, MPI_BYTE, ft)) {
        MPI_OK(MPI_Type_free(&h));
        MPI_OK(MPI_Type_free(&ft));
        return 0;
    }
    long n = expected(want, base, 24, 3, disp, len, TILES);
    memset(got, 0, sizeof got);
    MPI_OK(MPI_File_read_all(fh, got, (int)(per * TILES), MPI_BYTE, MPI_STATUS_IGNORE));
    compare(got, want, n, "read_all of every tile");
    memset(got, 0, sizeof got);
    MPI_OK(MPI_File_read_at_all(fh, per * 3, got, (int)(per * 5), MPI_BYTE, MPI_STATUS_IGNORE));
    compare(got, want + per * 3, per * 5, "read_at_all from the fourth tile on");
    MPI_OK(MPI_Type_free(&h));
    MPI_OK(MPI_Type_free(&ft));
    return 2;
}

/* (b) ints: MPI_Type_vector(4, 2, 1, MPI_INT) = ints 0 1 1 2 2 3 3 4 of each tile, tiled at MPI's extent */
static int case_ints(MPI_File fh)
{
    client_case = "b (vector of ints with stride below its block length, read-only)";
    MPI_Datatype ft;
    MPI_OK(MPI_Type_vector(4, 2, 1, MPI_INT, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_get_extent(ft, &lb, &extent));
    long base = (long)REGION * client_rank + 64;
    if (!set_overlapping_view(fh, base, MPI_INT, ft)) {
        MPI_OK(MPI_Type_free(&ft));
        return 0;
    }
    long disp[4], len[4];
    for (int i = 0; i < 4; i++)
        disp[i] = 4L * i, len[i] = 8;
    unsigned char want[32 * TILES];
    int got[8 * TILES];
    long n = expected(want, base, (long)extent, 4, disp, len, TILES);
    memset(got, 0, sizeof got);
    MPI_OK(MPI_File_read_all(fh, got, 8 * TILES, MPI_INT, MPI_STATUS_IGNORE));
    compare((unsigned char *)got, want, n, "read_all of every tile");
    MPI_OK(MPI_Type_free(&ft));
    return 1;
}

/* Where colio writes its statistics: COLIO_HINTS's colio_stats (it wins over MPI_Info), else stats_default. */
static const char *stats_path(const char *stats_default, char *buf, size_t len)
{
    const char *env = getenv("COLIO_HINTS"), *at = env ? strstr(env, "colio_stats=") : NULL;
    if (at == NULL)
        return stats_default;
    snprintf(buf, len, "%s", at + strlen("colio_stats="));
    buf[strcspn(buf, ";")] = '\0';
    return buf;
}

/* Rank 0: colio's read records of this file so far. */
static long colio_reads(const char *stats, const char *path)
{
    char line[8192], want[4200];
    snprintf(want, sizeof want, "\"path\":\"%s\"", path);
    long n = 0;
    FILE *f = client_rank == 0 ? fopen(stats, "r") : NULL;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "\"op\":\"colio_read") && strstr(line, want);
    if (f)
        fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &client_rank);
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (client_rank == 0)
            fprintf(stderr, "usage: mpiio_overlap_read PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    write_file(argv[1], (long)REGION * nprocs);
    char own[4200], buf[4200];
    snprintf(own, sizeof own, "%s.stats.jsonl", argv[1]);
    const char *stats = stats_path(own, buf, sizeof buf);
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "colio_stats", own));
    long before = colio_reads(stats, argv[1]);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, info, &fh));
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    case_plain(fh);
    int calls = 1;
    calls += case_bytes(fh);
    calls += case_ints(fh);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    long reads = colio_reads(stats, argv[1]) - before;
    client_case = "the reads went through colio";
    if (client_through_colio())
        CHECK(client_rank != 0 || reads == (long)calls * nprocs, "colio recorded %ld reads of %s, expected %d",
              reads, argv[1], calls * nprocs);
    int rc = client_result("mpiio_overlap_read");
    MPI_Finalize();
    return rc;
}
