/*
 * A plain, self-checking MPI-IO program on file views and datatypes, the kind MPI-IO test suites run;
 * run_client.cmake compares its file with and without libcolio_mpiio.
 *
 * usage: mpiio_views PATH   (also writes PATH.cb1 and PATH.cb4k)
 *
 * Each case in a region of PATH: (a) a block-cyclic darray view, (b) a resized struct view with gaps
 * and a strided memory type, (c) an hindexed view with zero-length blocks and ranks with nothing to
 * write, (d) a collective write with holes over a region pre-filled independently, (e) two more files
 * opened with hints, (f) a double etype at an odd displacement, the file pointer moved in etypes.
 * Expected values are formulas of the file offset; rank 0 finally checks PATH with stdio.
 * MPIIO_CLIENT_THREADS=multiple initialises MPI with MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_init.h"

enum { SIZE = 12288 }; /* of PATH */

static int rank, nprocs, failures;
static const char *scase = "setup";
static unsigned char model[SIZE]; /* what PATH must hold */

__attribute__((format(printf, 2, 3))) static void fail_at(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[rank %d] case %s, line %d: ", rank, scase, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}
#define CHECK(cond, ...) ((cond) ? (void)0 : fail_at(__LINE__, __VA_ARGS__))

/* An MPI error ends the run at once: the collective calls after it could not match up. */
static void mpi_ok(int rc, const char *call, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "[rank %d] case %s, line %d: %s failed: %s\n", rank, scase, line, call, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
}
#define MPI_OK(call) mpi_ok((call), #call, __LINE__)

/* The values, by absolute file offset and case. */
static int ival(long off, int salt) { return (int)(off * 7 + salt * 100003 + 1); }
static unsigned char bval(long off, int salt) { return (unsigned char)(off * 13 + salt * 29 + 7); }
static double dval(long off, int salt) { return off * 0.25 + salt * 1000.0; }

static void model_put(long off, const void *v, int len)
{
    if (off < 0 || off + len > SIZE) {
        fail_at(__LINE__, "offset %ld is outside the file", off);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    memcpy(model + off, v, (size_t)len);
}
static void model_int(long off, int salt) { model_put(off, &(int){ival(off, salt)}, 4); }

static void byte_view(MPI_File fh) { MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)); }

/* t resized to [lb, lb + extent) and committed; t is freed. */
static MPI_Datatype resized(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_OK(MPI_Type_create_resized(t, lb, extent, &r));
    MPI_OK(MPI_Type_commit(&r));
    MPI_OK(MPI_Type_free(&t));
    return r;
}

/* The first index where got and want differ, or -1. */
static long first_diff(const unsigned char *got, const unsigned char *want, long n)
{
    for (long i = 0; i < n; i++)
        if (got[i] != want[i])
            return i;
    return -1;
}

/* [a, b): this rank's share of [lo, hi) cut in uneven contiguous pieces */
static void share(long lo, long hi, long *a, long *b)
{
    long piece = (hi - lo) / nprocs + 1;
    *a = lo + rank * piece > hi ? hi : lo + rank * piece;
    *b = *a + piece > hi ? hi : *a + piece;
}

/* Collectively read [lo, hi) of PATH, in shares, against the model. */
static void verify_region(MPI_File fh, long lo, long hi)
{
    long a, b, d;
    int cnt = -1;
    unsigned char got[SIZE];
    MPI_Status st;
    share(lo, hi, &a, &b);
    byte_view(fh);
    MPI_OK(MPI_File_read_at_all(fh, a, got, (int)(b - a), MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == b - a, "read %d bytes of [%ld, %ld)", cnt, a, b);
    d = first_diff(got, model + a, b - a);
    CHECK(d < 0, "byte %ld reads %d, expected %d", a + d, got[d], model[a + d]);
}

/* (a) a 13 x 10 int array, block-cyclic (2 rows, 3 columns) over the MPI_Dims_create grid */
enum { GR = 13, GC = 10, BR = 2, BC = 3 };
static int mine(int i, int j, const int dims[2])
{
    return (i / BR) % dims[0] == rank / dims[1] && (j / BC) % dims[1] == rank % dims[1];
}

static void case_darray(MPI_File fh, long base)
{
    int dims[2] = {0, 0}, gs[2] = {GR, GC}, darg[2] = {BR, BC}, n = 0, cnt = -1, buf[GR * GC], back[GR * GC];
    int dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
    MPI_Datatype ft;
    MPI_Status st;
    scase = "a (darray)";
    MPI_OK(MPI_Dims_create(nprocs, 2, dims));
    MPI_OK(MPI_Type_create_darray(nprocs, rank, 2, gs, dist, darg, dims, MPI_ORDER_C, MPI_INT, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    for (int i = 0; i < GR; i++) /* the local array is in row-major order: increasing file offsets */
        for (int j = 0; j < GC; j++) {
            model_int(base + 4L * (i * GC + j), 1);
            if (mine(i, j, dims))
                buf[n++] = ival(base + 4L * (i * GC + j), 1);
        }
    MPI_OK(MPI_File_set_view(fh, base, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_all(fh, buf, n, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == n, "write_all count %d, expected %d", cnt, n);
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all(fh, back, n, MPI_INT, &st));
    n = 0;
    for (int i = 0; i < GR; i++)
        for (int j = 0; j < GC; j++)
            if (mine(i, j, dims)) {
                CHECK(back[n] == ival(base + 4L * (i * GC + j), 1), "(%d,%d) reads %d", i, j, back[n]);
                n++;
            }
    MPI_OK(MPI_Type_free(&ft));
}

/*
 * (b) slots of 40 bytes a rank in turn, ints at 8, 12, 16, 24, 28: a struct resized to lb 0 (true lb 8).
 * Not lb > 0: ROMIO (MPICH 4.0.2) then moves the data by lb in the file, Open MPI does not (MPI's tiling).
 */
enum { TILES = 6 };
static long struct_off(long base, int r, long k)
{
    static const int at[5] = {8, 12, 16, 24, 28};
    return base + 40L * r + (k / 5) * 40L * nprocs + at[k % 5];
}

static void case_struct(MPI_File fh, long base)
{
    int len[2] = {3, 2}, cnt = -1, buf[10 * TILES], back[10 * TILES];
    MPI_Aint disp[2] = {8, 24}, lb, ext, tlb, text;
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, st_t, mem, ft;
    MPI_Status st;
    scase = "b (struct view, strided memory)";
    MPI_OK(MPI_Type_create_struct(2, len, disp, types, &st_t));
    ft = resized(st_t, 0, 40L * nprocs);
    MPI_OK(MPI_Type_get_extent(ft, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent(ft, &tlb, &text));
    CHECK(lb == 0 && ext == 40L * nprocs && tlb == 8 && text == 24, "extent %ld+%ld, true %ld+%ld", (long)lb,
          (long)ext, (long)tlb, (long)text);
    MPI_OK(MPI_Type_vector(5 * TILES, 1, 2, MPI_INT, &mem)); /* every other int of the buffer */
    MPI_OK(MPI_Type_commit(&mem));
    for (int k = 0; k < 10 * TILES; k++) {
        buf[k] = k % 2 ? -1 : ival(struct_off(base, rank, k / 2), 2);
        back[k] = -7;
    }
    for (int r = 0; r < nprocs; r++)
        for (long k = 0; k < 5 * TILES; k++)
            model_int(struct_off(base, r, k), 2);
    MPI_OK(MPI_File_set_view(fh, base + 40L * rank, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_all(fh, buf, 1, mem, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == 5 * TILES, "write_all count %d ints", cnt);
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all(fh, back, 1, mem, &st));
    for (int k = 0; k < 10 * TILES; k++) { /* and the gaps of the buffer untouched */
        int want = k % 2 ? -7 : ival(struct_off(base, rank, k / 2), 2);
        CHECK(back[k] == want, "buffer int %d is %d, expected %d", k, back[k], want);
    }
    MPI_OK(MPI_Type_free(&mem));
    MPI_OK(MPI_Type_free(&ft));
}

/* (c) hindexed blocks of 2, 0, 3, 0, 1 ints in 64-byte slots; rank%3 == 1: all blocks empty; rank%3 == 2: count 0 */
static void case_hindexed(MPI_File fh, long base)
{
    static const int lens[5] = {2, 0, 3, 0, 1}, at[6] = {0, 4, 16, 20, 24, 48}; /* at: the 6 ints of a slot */
    int len[5], cnt = -1, count = rank % 3 == 0 ? 12 : 0, buf[12];
    MPI_Aint disp[5] = {0, 12, 16, 40, 48};
    MPI_Datatype h, ft;
    MPI_Status st;
    scase = "c (hindexed, zero-length blocks)";
    for (int b = 0; b < 5; b++)
        len[b] = rank % 3 == 1 ? 0 : lens[b];
    MPI_OK(MPI_Type_create_hindexed(5, len, disp, MPI_INT, &h));
    ft = resized(h, 0, 64L * nprocs);
    for (int r = 0; r < nprocs; r += 3) /* from view offset 3: elements 3..14 */
        for (long k = 3; k < 15; k++) {
            long off = base + 64L * r + (k / 6) * 64L * nprocs + at[k % 6];
            model_int(off, 3);
            if (r == rank)
                buf[k - 3] = ival(off, 3);
        }
    MPI_OK(MPI_File_set_view(fh, base + 64L * rank, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at_all(fh, 3, buf, count, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == count, "write_at_all count %d, expected %d", cnt, count);
    MPI_OK(MPI_Type_free(&ft));
    verify_region(fh, base, base + 3 * 64L * nprocs);
}

/* (d) 5 bytes at 3 of every rank's 16-byte slot, over a region first filled by independent writes */
static void case_holes(MPI_File fh, long base)
{
    long size = 8 * 16L * nprocs, a, b;
    int blen = 5;
    unsigned char buf[30];
    MPI_Aint bdisp = 3 + 16L * rank;
    MPI_Datatype h, ft;
    scase = "d (holes keep their contents)";
    for (long i = base; i < base + size; i++)
        model_put(i, &(unsigned char){bval(i, 4)}, 1);
    share(base, base + size, &a, &b);
    byte_view(fh);
    MPI_OK(MPI_File_write_at(fh, a, model + a, (int)(b - a), MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh)); /* the independent writes are seen by the collective path */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Type_create_hindexed(1, &blen, &bdisp, MPI_BYTE, &h));
    ft = resized(h, 0, 16L * nprocs);
    for (int r = 0; r < nprocs; r++) /* from view offset 5 (slot 1): 30 bytes, slots 1..6 */
        for (long k = 5; k < 35; k++) {
            long off = base + 3 + 16L * r + (k / 5) * 16L * nprocs + k % 5;
            model_put(off, &(unsigned char){bval(off, 5)}, 1);
            if (r == rank)
                buf[k - 5] = bval(off, 5);
        }
    MPI_OK(MPI_File_set_view(fh, base, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at_all(fh, 5, buf, 30, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Type_free(&ft));
    verify_region(fh, base, base + size);
}

/* (e) PATH.suffix, opened with hints kv: BLK ints a rank in turn, written and read collectively only */
enum { BLK = 100 };
static long blk_off(long k) { return 4 * ((k / BLK) * BLK * nprocs + rank * BLK + k % BLK); }

static void case_hints(const char *main_path, const char *suffix, const char *const kv[4], int n, int salt)
{
    int *buf = malloc(sizeof(int) * (size_t)n * nprocs), cnt = -1;
    long a, b;
    char path[4096];
    MPI_Info info;
    MPI_File fh;
    MPI_Datatype c, ft;
    MPI_Status st;
    snprintf(path, sizeof path, "%s%s", main_path, suffix);
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, kv[0], kv[1]));
    MPI_OK(MPI_Info_set(info, kv[2], kv[3]));
    MPI_File_delete(path, MPI_INFO_NULL); /* may not exist */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_Info_free(&info));
    for (int k = 0; k < n; k++)
        buf[k] = ival(blk_off(k), salt);
    MPI_OK(MPI_Type_contiguous(BLK, MPI_INT, &c));
    ft = resized(c, 0, 4L * BLK * nprocs);
    MPI_OK(MPI_File_set_view(fh, 4L * BLK * rank, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_all(fh, buf, n, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(buf, 0, sizeof(int) * (size_t)n);
    MPI_OK(MPI_File_read_all(fh, buf, n, MPI_INT, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        CHECK(buf[k] == ival(blk_off(k), salt), "%s: int %d of my view reads %d", path, k, buf[k]);
    share(0, (long)n * nprocs, &a, &b); /* the whole file again, cut differently */
    byte_view(fh);
    MPI_OK(MPI_File_read_at_all(fh, 4 * a, buf, (int)(b - a), MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == b - a, "%s: read %d ints, expected %ld", path, cnt, b - a);
    for (long i = a; i < b; i++)
        CHECK(buf[i - a] == ival(4 * i, salt), "%s: int %ld of the file reads %d", path, i, buf[i - a]);
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_File_close(&fh));
    free(buf);
}

/* (f) etype MPI_DOUBLE from byte base + 3, 2 doubles a rank in turn; the file pointer counts doubles */
static long dbl_off(long base, int r, int k) { return base + 3 + 16L * r + (k / 2) * 16L * nprocs + 8 * (k % 2); }

static void case_double(MPI_File fh, long base)
{
    double buf[5], back[5];
    MPI_Offset pos = -1;
    MPI_Datatype c, ft;
    scase = "f (double etype, odd displacement)";
    for (int r = 0; r < nprocs; r++) /* elements 3..7 */
        for (int k = 3; k < 8; k++)
            model_put(dbl_off(base, r, k), &(double){dval(dbl_off(base, r, k), 8)}, 8);
    for (int k = 3; k < 8; k++)
        buf[k - 3] = dval(dbl_off(base, rank, k), 8);
    MPI_OK(MPI_Type_contiguous(2, MPI_DOUBLE, &c));
    ft = resized(c, 0, 16L * nprocs);
    MPI_OK(MPI_File_set_view(fh, base + 3 + 16L * rank, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_seek(fh, 3, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_all(fh, buf, 5, MPI_DOUBLE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 8, "file pointer %lld after the write, expected 8", (long long)pos);
    MPI_OK(MPI_File_seek(fh, -5, MPI_SEEK_CUR));
    MPI_OK(MPI_File_read_all(fh, back, 5, MPI_DOUBLE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 8, "file pointer %lld after the read, expected 8", (long long)pos);
    for (int k = 3; k < 8; k++)
        CHECK(back[k - 3] == dval(dbl_off(base, rank, k), 8), "double %d reads %g", k, back[k - 3]);
    MPI_OK(MPI_Type_free(&ft));
}

/* rank 0: PATH byte for byte against the model, with plain stdio */
static void check_whole_file(const char *path)
{
    static unsigned char got[SIZE + 1];
    FILE *f = fopen(path, "rb");
    long n = f ? (long)fread(got, 1, sizeof got, f) : -1, d;
    scase = "whole file";
    if (f)
        fclose(f);
    CHECK(n == SIZE, "%s has %ld bytes, expected %d", path, n, SIZE);
    d = first_diff(got, model, n < SIZE ? n : SIZE);
    CHECK(d < 0, "byte %ld is %d, expected %d", d, got[d], model[d]);
}

int main(int argc, char **argv)
{
    int all = 0;
    MPI_File fh;
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: mpiio_views PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* may not exist */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    /* Holes are defined inside the file only: ROMIO's data sieving (MPICH 4.0.2) writes whatever its
       buffer held into holes past the end of file. So the file starts at its final size, all zeros. */
    MPI_OK(MPI_File_set_size(fh, SIZE));
    case_darray(fh, 0);
    case_struct(fh, 1024);
    case_hindexed(fh, 1024 + 40 * 4 * TILES);
    case_holes(fh, 4096);
    scase = "e (cb_nodes=1, romio_no_indep_rw=true)";
    case_hints(argv[1], ".cb1", (const char *[]){"cb_nodes", "1", "romio_no_indep_rw", "true"}, 4 * BLK, 6);
    scase = "e (cb_buffer_size=4096, striping_unit=8192)"; /* 12000 bytes a rank: several rounds */
    case_hints(argv[1], ".cb4k", (const char *[]){"cb_buffer_size", "4096", "striping_unit", "8192"}, 30 * BLK, 7);
    case_double(fh, 8192);
    MPI_OK(MPI_File_close(&fh));
    if (rank == 0)
        check_whole_file(argv[1]);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpiio_views on %d ranks: %s\n", nprocs, all ? "FAIL" : "PASS");
    MPI_Finalize();
    return all ? 1 : 0;
}
