/*
 * A plain, self-checking MPI-IO program on what keeps the collective and
 * the independent paths consistent; run_client.cmake compares its file
 * with and without libcolio_mpiio (which takes the collective calls only).
 *
 * usage: mpiio_consistency PATH
 *
 * (a) collective writes read back independently by another rank after
 * sync-barrier-sync, (b) the reverse, (c) MPI_File_set_size (shrink, grow)
 * and MPI_File_preallocate seen by collective reads, (d) the individual
 * file pointer across blocking, nonblocking and split collectives and
 * seeks, (e) collective reads across the end of file, (f) get_view,
 * get_amode, get_info, (g) preallocate and set_size while a nonblocking
 * collective write is in flight. Expected values are formulas of the file
 * offset.
 * MPIIO_CLIENT_THREADS=multiple initialises MPI with MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_init.h"

enum { PIECE = 64, NB = 6, D = 8192 }; /* region A: NB pieces a rank in turn; region D from byte D */
#define AMODE (MPI_MODE_CREATE | MPI_MODE_RDWR)

static int rank, nprocs, failures;
static const char *scase = "setup";

#define CHECK(cond, ...)                                                                                      \
    do {                                                                                                      \
        if (!(cond)) {                                                                                        \
            fprintf(stderr, "[rank %d] case %s, line %d: ", rank, scase, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                                     \
            fputc('\n', stderr);                                                                              \
            failures++;                                                                                       \
        }                                                                                                     \
    } while (0)

/* An MPI error ends the run at once: the collective calls after it could not match up. */
static void mpi_ok(int rc, const char *call, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "[rank %d] case %s, line %d: %s failed: %s\n", rank, scase, line, call, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
}
#define MPI_OK(call) mpi_ok((call), #call, __LINE__)

static unsigned char bval(long off, int salt) { return (unsigned char)(off * 13 + salt * 29 + 7); }
static int ival(long off) { return (int)(off * 7 + 100003); } /* the int at byte off of region D */
static unsigned char dbyte(long off) /* a byte of region D */
{
    int v = ival(off - off % 4);
    return ((unsigned char *)&v)[off % 4];
}

/* Count mismatches of got[0..n) against f(lo + i, salt). */
static long diff(const unsigned char *got, long lo, long n, int salt)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += got[i] != (salt ? bval(lo + i, salt) : dbyte(lo + i));
    return bad;
}

static void byte_view(MPI_File fh) { MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)); }
static void sync_barrier_sync(MPI_File fh)
{
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
}

/* Commit `count` etypes a rank in turn, each rank's first at disp + its rank * count. */
static MPI_Datatype turns(MPI_File fh, MPI_Offset disp, int count, MPI_Datatype etype)
{
    int size;
    MPI_Datatype c, ft;
    MPI_OK(MPI_Type_size(etype, &size));
    MPI_OK(MPI_Type_contiguous(count, etype, &c));
    MPI_OK(MPI_Type_create_resized(c, 0, (MPI_Aint)size * count * nprocs, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_Type_free(&c));
    MPI_OK(MPI_File_set_view(fh, disp + (MPI_Offset)size * count * rank, etype, ft, "native", MPI_INFO_NULL));
    return ft;
}

static long piece_off(int r, int b) { return ((long)b * nprocs + r) * PIECE; }

/* (a) write_all, then each rank reads the next rank's pieces with MPI_File_read_at */
static void case_coll_then_indep(MPI_File fh)
{
    scase = "a (write_all, then independent reads)";
    unsigned char buf[PIECE * NB];
    for (int i = 0; i < PIECE * NB; i++)
        buf[i] = bval(piece_off(rank, i / PIECE) + i % PIECE, 1);
    MPI_Datatype ft = turns(fh, 0, PIECE, MPI_BYTE);
    MPI_OK(MPI_File_write_all(fh, buf, PIECE * NB, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Type_free(&ft));
    byte_view(fh);
    sync_barrier_sync(fh);
    int next = (rank + 1) % nprocs;
    for (int b = 0; b < NB; b++) {
        MPI_OK(MPI_File_read_at(fh, piece_off(next, b), buf, PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
        CHECK(diff(buf, piece_off(next, b), PIECE, 1) == 0, "piece %d of rank %d differs", b, next);
    }
}

/* (b) a collective read, independent writes over the same bytes, then collective reads of another rank's */
static void case_indep_then_coll(MPI_File fh)
{
    scase = "b (independent writes, then read_at_all)";
    long share = PIECE * NB, mine = rank * share, next = (rank + 1) % nprocs * share;
    unsigned char *buf = malloc((size_t)share);
    MPI_OK(MPI_File_read_at_all(fh, next, buf, (int)share, MPI_BYTE, MPI_STATUS_IGNORE)); /* before: salt 1 */
    CHECK(diff(buf, next, share, 1) == 0, "the write_all data read collectively differs");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody overwrites what another is reading */
    for (long i = 0; i < share; i++)
        buf[i] = bval(mine + i, 2);
    MPI_OK(MPI_File_write_at(fh, mine, buf, (int)share, MPI_BYTE, MPI_STATUS_IGNORE));
    sync_barrier_sync(fh);
    MPI_OK(MPI_File_read_at_all(fh, next, buf, (int)share, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(diff(buf, next, share, 2) == 0, "read_at_all sees stale bytes of the independent writes");
    free(buf);
}

/* Collectively read `len` bytes at each rank's `off`: the count, or -1 if one is not zero */
static int read_zeros(MPI_File fh, long off, int len)
{
    unsigned char *buf = malloc((size_t)len + 1);
    MPI_Status st;
    int cnt = -1;
    memset(buf, 0xEE, (size_t)len);
    MPI_OK(MPI_File_read_at_all(fh, off, buf, len, MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    for (int i = 0; i < len; i++)
        cnt = buf[i] ? -1 : cnt;
    free(buf);
    return cnt;
}

/* (c) MPI_File_set_size and MPI_File_preallocate under the collective path */
static void case_size(MPI_File fh)
{
    scase = "c (set_size, preallocate)";
    long full = (long)PIECE * NB * nprocs, s1 = full - 107, s2 = s1 + 1000, s3 = s2 + 500;
    MPI_Offset size = -1;
    MPI_Status st;
    unsigned char buf[64];
    int cnt = -1;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* the reads of (b) are over before the file shrinks ... */
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == full, "size %lld, expected %ld", (long long)size, full);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* ... and nobody asks for the size after it changed */
    MPI_OK(MPI_File_set_size(fh, s1));
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == s1, "size %lld after shrinking, expected %ld", (long long)size, s1);
    /* every rank reads 16 bytes before the new end, 48 past it */
    MPI_OK(MPI_File_read_at_all(fh, s1 - 16, buf, 64, MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(diff(buf, s1 - 16, 16, 2) == 0, "the 16 bytes before the new end differ");
    /* MPI says 16 (what was read); ROMIO and OMPIO say 64 (what was asked) when more than one rank reads */
    CHECK(cnt == 16 || cnt == 64, "read_at_all across the new end: count %d, expected 16 (or 64)", cnt);
    MPI_OK(MPI_File_read_at(fh, s1 - 16, buf, 64, MPI_BYTE, &st)); /* the independent path is exact */
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == 16, "read_at across the new end: count %d, expected 16", cnt);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* all reads done before the size changes again */
    MPI_OK(MPI_File_set_size(fh, s2));
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == s2, "size %lld after growing, expected %ld", (long long)size, s2);
    long share = (s2 - s1) / nprocs; /* the grown bytes, in shares (the last one longer) */
    int len = (int)(rank == nprocs - 1 ? s2 - s1 - rank * share : share);
    CHECK(read_zeros(fh, s1 + rank * share, len) == len, "the grown region does not read as %d zeros", len);
    MPI_OK(MPI_File_read_at_all(fh, s1 - 16, buf, 16, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(diff(buf, s1 - 16, 16, 2) == 0, "the 16 bytes before the grown region differ");
#ifdef OPEN_MPI
    /* OMPIO (Open MPI 4.1.4) growing a file on several ranks races (a rank that sees the size already grown
       by rank 0 skips a collective the others enter), and a preallocate of the current size copies the file
       after itself (it reads and writes at the file pointer): only the smaller preallocate runs there */
    if (nprocs > 1)
        s3 = s2;
#endif
    if (s3 > s2) {
        MPI_OK(MPI_File_preallocate(fh, s3)); /* new bytes: "as if undefined data were written", not checked */
        MPI_OK(MPI_File_get_size(fh, &size));
        CHECK(size == s3, "size %lld after preallocate, expected %ld", (long long)size, s3);
    }
    MPI_OK(MPI_File_preallocate(fh, s1)); /* smaller than the file: no change */
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == s3, "size %lld after a smaller preallocate, expected %ld", (long long)size, s3);
}

static void expect_pos(MPI_File fh, MPI_Offset want, const char *after)
{
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == want, "file pointer %lld after %s, expected %lld", (long long)pos, after, (long long)want);
}

/* Byte of element k of rank r in region D: 2 ints a rank in turn */
static long elem_off(int r, long k) { return D + 8L * r + (k / 2) * 8L * nprocs + 4 * (k % 2); }

/* Elements [k0, k0 + n) of this rank, from the formula, or checked against it. */
static void fill(int *v, long k0, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = ival(elem_off(rank, k0 + i));
}
static void expect(const int *v, long k0, int n, const char *after)
{
    for (int i = 0; i < n; i++)
        CHECK(v[i] == ival(elem_off(rank, k0 + i)), "element %ld is %d after %s", k0 + i, v[i], after);
}

/* (d) the individual file pointer (in ints) through every kind of collective and seek */
static void case_pointer(MPI_File fh)
{
    scase = "d (individual file pointer)";
    int v[16];
    MPI_Request rq;
    MPI_Offset byte = -1;
    MPI_Datatype ft = turns(fh, D, 2, MPI_INT);
    /* writes of whole tiles only: with OMPIO (Open MPI 4.1.4), a hole past the end of file left by write_all
       and filled by the next iwrite_all read back as garbage in about 1 run in 40 on 3 ranks */
    fill(v, 0, 4);
    MPI_OK(MPI_File_write_all(fh, v, 4, MPI_INT, MPI_STATUS_IGNORE));
    expect_pos(fh, 4, "write_all");
    fill(v, 4, 4);
    MPI_OK(MPI_File_iwrite_all(fh, v, 4, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    expect_pos(fh, 8, "iwrite_all and MPI_Wait");
    fill(v, 8, 4);
    MPI_OK(MPI_File_write_all_begin(fh, v, 4, MPI_INT));
    MPI_OK(MPI_File_write_all_end(fh, v, MPI_STATUS_IGNORE));
    expect_pos(fh, 12, "write_all_begin/end");
    MPI_OK(MPI_File_seek(fh, -12, MPI_SEEK_CUR));
    memset(v, 0, sizeof v);
    MPI_OK(MPI_File_read_all(fh, v, 12, MPI_INT, MPI_STATUS_IGNORE));
    expect_pos(fh, 12, "seek back and read_all");
    expect(v, 0, 12, "read_all");
    MPI_OK(MPI_File_seek(fh, 2, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all_begin(fh, v, 3, MPI_INT));
    MPI_OK(MPI_File_read_all_end(fh, v, MPI_STATUS_IGNORE));
    expect_pos(fh, 5, "read_all_begin/end");
    expect(v, 2, 3, "read_all_begin/end");
    MPI_OK(MPI_File_iread_all(fh, v, 2, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    expect_pos(fh, 7, "iread_all and MPI_Wait");
    expect(v, 5, 2, "iread_all");
    MPI_OK(MPI_File_get_byte_offset(fh, 7, &byte));
    CHECK(byte == elem_off(rank, 7), "byte offset of element 7: %lld, expected %ld", (long long)byte,
          elem_off(rank, 7));
    /* the file ends at a whole tile (6 of 2 ints a rank): element 12 of every rank, once all see the size */
    sync_barrier_sync(fh);
    MPI_OK(MPI_File_seek(fh, -2, MPI_SEEK_END));
#ifdef OPEN_MPI
    /* OMPIO (4.1.4) puts the end of file at a wrong etype in a view with holes (element 2, not 12, here) */
    MPI_OK(MPI_File_seek(fh, 10, MPI_SEEK_SET));
#endif
    expect_pos(fh, 10, "MPI_SEEK_END - 2");
    fill(v, 10, 4);
    MPI_OK(MPI_File_write_all(fh, v, 4, MPI_INT, MPI_STATUS_IGNORE));
    expect_pos(fh, 14, "write_all after MPI_SEEK_END");
    MPI_OK(MPI_File_seek(fh, 10, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all(fh, v, 4, MPI_INT, MPI_STATUS_IGNORE));
    expect(v, 10, 4, "the write after MPI_SEEK_END");
    MPI_OK(MPI_Type_free(&ft));
}

/* (e) read_all across the end of file (region D ends the file, 7 tiles of 8 bytes a rank) */
static void case_eof(MPI_File fh)
{
    scase = "e (read_all across the end of file)";
    long end = D + 56L * nprocs, inside = 8L * (rank + 1); /* each rank from its own distance to the end */
    unsigned char buf[32];
    MPI_Status st;
    int cnt = -1;
    byte_view(fh);
    sync_barrier_sync(fh); /* everybody sees the size the others' writes made */
    MPI_OK(MPI_File_seek(fh, -inside, MPI_SEEK_END)); /* in a byte view OMPIO gets it right */
    expect_pos(fh, end - inside, "MPI_SEEK_END");
    MPI_OK(MPI_File_read_all(fh, buf, 32, MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(diff(buf, end - inside, inside, 0) == 0, "the %ld bytes before the end differ", inside);
    /* not checked: ROMIO and OMPIO say 32 (asked), MPI and colio say what was read; nor the file pointer */
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    printf("case e, rank %d: read_all of 32 bytes, %ld before the end of file: count %d, pointer +%lld\n", rank,
           inside, cnt, (long long)(pos - (end - inside)));
}

/* (f) what the file says of itself */
static void case_queries(MPI_File fh)
{
    scase = "f (get_view, get_amode, get_info)";
    MPI_Offset disp = -1;
    MPI_Datatype etype, ft, set = turns(fh, D, 2, MPI_INT);
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    int ni, na, nd, comb, amode = -1, nkeys = -1, size, setsize;
    MPI_Aint lb, ext, setlb, setext;
    MPI_OK(MPI_File_get_view(fh, &disp, &etype, &ft, rep));
    CHECK(disp == D + 8L * rank, "view displacement %lld, expected %ld", (long long)disp, D + 8L * rank);
    CHECK(etype == MPI_INT, "the etype is not MPI_INT");
    CHECK(strcmp(rep, "native") == 0, "data representation %s", rep);
    MPI_OK(MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb)); /* a copy: DUP (OMPIO), CONTIGUOUS (ROMIO) */
    CHECK(comb != MPI_COMBINER_NAMED, "the filetype came back as a named type");
    MPI_OK(MPI_Type_size(ft, &size));
    MPI_OK(MPI_Type_size(set, &setsize));
    MPI_OK(MPI_Type_get_extent(ft, &lb, &ext));
    MPI_OK(MPI_Type_get_extent(set, &setlb, &setext));
    CHECK(size == setsize && lb == setlb && ext == setext, "filetype size %d extent %ld+%ld", size, (long)lb,
          (long)ext);
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&set));
    MPI_OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == AMODE, "amode %d, expected %d", amode, AMODE);
    MPI_Info info;
    MPI_OK(MPI_File_get_info(fh, &info));
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[256];
        int len = 0, flag = 0;
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        MPI_OK(MPI_Info_get_valuelen(info, key, &len, &flag));
        CHECK(flag, "hint %s listed but not found", key);
        MPI_OK(MPI_Info_get(info, key, (int)sizeof val - 1, val, &flag));
    }
    MPI_OK(MPI_Info_free(&info));
}

#ifndef OPEN_MPI /* OMPIO alone (4.1.4) fails (g) at 4 ranks: preallocate and set_size with its write pending */
/*
 * (g) a nonblocking collective write in flight while the size changes: a
 * preallocate below the end of file (ROMIO's reads the bytes and writes
 * them back) and a set_size that grows the file; the write's bytes must
 * be there after its wait (the interposer ends colio's operations first).
 */
static void case_resize_in_flight(MPI_File fh)
{
    scase = "g (preallocate and set_size with a nonblocking write in flight)";
    byte_view(fh);
    MPI_Offset size = -1;
    MPI_OK(MPI_File_get_size(fh, &size));
    long at = (long)size - 128 - (long)PIECE * nprocs + (long)PIECE * rank; /* below size - 1 */
    unsigned char out[PIECE], in[PIECE];
    for (int i = 0; i < PIECE; i++)
        out[i] = bval(at + i, 5);
    MPI_Request req;
    MPI_OK(MPI_File_iwrite_at_all(fh, at, out, PIECE, MPI_BYTE, &req));
    MPI_OK(MPI_File_preallocate(fh, size - 1)); /* smaller than the file: the size stays */
    MPI_OK(MPI_File_set_size(fh, size + 4096));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_read_at_all(fh, at, in, PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(diff(in, at, PIECE, 5) == 0, "%ld of the %d bytes written differ", diff(in, at, PIECE, 5), PIECE);
    MPI_Offset now = -1;
    MPI_OK(MPI_File_get_size(fh, &now));
    CHECK(now == size + 4096, "size %lld, expected %lld", (long long)now, (long long)(size + 4096));
}
#endif

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiio_consistency PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_File fh;
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* may not exist */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, argv[1], AMODE, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    case_coll_then_indep(fh);
    case_indep_then_coll(fh);
    case_size(fh);
    case_pointer(fh);
    case_eof(fh);
    case_queries(fh);
#ifndef OPEN_MPI
    case_resize_in_flight(fh);
#endif
    MPI_OK(MPI_File_close(&fh));
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpiio_consistency on %d ranks: %s\n", nprocs, all ? "FAIL" : "PASS");
    MPI_Finalize();
    return all ? 1 : 0;
}
