/*
 * A PnetCDF program (it knows nothing of colio): run with and without
 * libcolio_mpiio, its files must be byte-identical (run_client.cmake).
 *
 * usage: pnetcdf_basic PATH
 *
 * Creates a CDF-5 file with a 3D double variable written by blocks of its
 * first dimension (ncmpi_put_vara_all), and a 2D int variable and two record
 * variables along the unlimited dimension written through many nonblocking
 * requests per rank (ncmpi_iput_vara + ncmpi_wait_all), plus attributes.
 * It then reopens the file read-only and reads everything back collectively
 * through other decompositions (ncmpi_get_vara_all, ncmpi_iget_vara +
 * ncmpi_wait_all), comparing with formulas of the global index. Any rank
 * count works (uneven blocks, ranks with nothing to do). Every byte of
 * every variable is written, so the file does not depend on fill values.
 * Exits non-zero on any PnetCDF error or wrong value.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_init.h"

#define NZ 7  /* cube(z, y, x) */
#define NY 8
#define NX 10
#define GR 12 /* grid(row, col) */
#define GC 9
#define NR 3  /* records of series(time, x) and steps(time) */
#define TITLE "colio pnetcdf_basic"

static int rank, nprocs, mismatches;

/* Stop at the first error: the calls that follow are collective and would hang. */
#define NC(call) nc_check((call), #call, __LINE__)
static void nc_check(int err, const char *what, int line)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "pnetcdf_basic: rank %d, line %d: %s: %s\n", rank, line, what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Rank r's block of n items: first index and length (the first n % nprocs ranks get one more). */
static void block(int n, int r, MPI_Offset *start, MPI_Offset *len)
{
    int base = n / nprocs, extra = n % nprocs;
    *start = (MPI_Offset)r * base + (r < extra ? r : extra);
    *len = base + (r < extra);
}

/* The contents, from the global index alone (never from a buffer that was written). */
static double cube_val(MPI_Offset z, MPI_Offset y, MPI_Offset x) { return z * 10000.0 + y * 100.0 + x + 0.25; }
static int grid_val(MPI_Offset i, MPI_Offset j) { return (int)(i * 1000 + j * 7 + 3); }
static double series_val(MPI_Offset t, MPI_Offset x) { return -(t * 100.0 + x) - 0.5; }
static int steps_val(MPI_Offset t) { return (int)(t * 11 + 1); }

static void expect(const char *var, MPI_Offset a, MPI_Offset b, MPI_Offset c, double got, double want)
{
    if (got == want)
        return;
    if (mismatches++ < 10) /* enough to see the pattern */
        fprintf(stderr, "pnetcdf_basic: rank %d: %s[%lld][%lld][%lld] is %g, expected %g\n", rank, var,
                (long long)a, (long long)b, (long long)c, got, want);
}

/* Every request of a wait_all must have succeeded too. */
static void wait_all(int ncid, int n, int *reqs)
{
    int *st = malloc(sizeof *st * (n ? n : 1));
    NC(ncmpi_wait_all(ncid, n, reqs, st));
    for (int i = 0; i < n; i++)
        nc_check(st[i], "request of ncmpi_wait_all", __LINE__);
    free(st);
}

static void define(int ncid, int *v)
{
    int d[6], one = 1;
    double scale = 0.5;
    NC(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    NC(ncmpi_def_dim(ncid, "z", NZ, &d[1]));
    NC(ncmpi_def_dim(ncid, "y", NY, &d[2]));
    NC(ncmpi_def_dim(ncid, "x", NX, &d[3]));
    NC(ncmpi_def_dim(ncid, "row", GR, &d[4]));
    NC(ncmpi_def_dim(ncid, "col", GC, &d[5]));
    NC(ncmpi_def_var(ncid, "cube", NC_DOUBLE, 3, &d[1], &v[0]));
    NC(ncmpi_def_var(ncid, "grid", NC_INT, 2, &d[4], &v[1]));
    int sd[2] = {d[0], d[3]};
    NC(ncmpi_def_var(ncid, "series", NC_DOUBLE, 2, sd, &v[2]));
    NC(ncmpi_def_var(ncid, "steps", NC_INT, 1, &d[0], &v[3]));
    NC(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", strlen(TITLE), TITLE));
    NC(ncmpi_put_att_int(ncid, NC_GLOBAL, "version", NC_INT, 1, &one));
    NC(ncmpi_put_att_text(ncid, v[0], "units", 1, "m"));
    NC(ncmpi_put_att_double(ncid, v[1], "scale", NC_DOUBLE, 1, &scale));
    NC(ncmpi_set_fill(ncid, NC_NOFILL, NULL)); /* every byte is written below */
    NC(ncmpi_enddef(ncid));
}

static void write_file(const char *path)
{
    int ncid, v[4], reqs[GR + 2 * NR], nreq = 0;
    NC(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
    define(ncid, v);

    /* cube: blocks of z, one collective call */
    MPI_Offset z0, zl, s3[3], c3[3];
    block(NZ, rank, &z0, &zl);
    double *cube = malloc(sizeof *cube * (zl * NY * NX + 1));
    for (MPI_Offset z = 0; z < zl; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                cube[(z * NY + y) * NX + x] = cube_val(z0 + z, y, x);
    s3[0] = z0, s3[1] = 0, s3[2] = 0, c3[0] = zl, c3[1] = NY, c3[2] = NX;
    NC(ncmpi_put_vara_double_all(ncid, v[0], s3, c3, cube));

    /* grid: blocks of columns, one request per row (strided in the file) */
    MPI_Offset c0, cl, s2[2], c2[2];
    block(GC, rank, &c0, &cl);
    int *grid = malloc(sizeof *grid * (GR * cl + 1));
    for (int i = 0; i < GR; i++) {
        for (MPI_Offset j = 0; j < cl; j++)
            grid[i * cl + j] = grid_val(i, c0 + j);
        s2[0] = i, s2[1] = c0, c2[0] = 1, c2[1] = cl;
        NC(ncmpi_iput_vara_int(ncid, v[1], s2, c2, grid + i * cl, &reqs[nreq++]));
    }

    /* series: blocks of x, one request per record; steps: blocks of records (some ranks have none) */
    MPI_Offset x0, xl, t0, tl;
    block(NX, rank, &x0, &xl);
    block(NR, rank, &t0, &tl);
    double *series = malloc(sizeof *series * (NR * xl + 1));
    int steps[NR];
    for (int t = 0; t < NR; t++) {
        for (MPI_Offset x = 0; x < xl; x++)
            series[t * xl + x] = series_val(t, x0 + x);
        s2[0] = t, s2[1] = x0, c2[0] = 1, c2[1] = xl;
        NC(ncmpi_iput_vara_double(ncid, v[2], s2, c2, series + t * xl, &reqs[nreq++]));
    }
    for (MPI_Offset t = 0; t < tl; t++)
        steps[t] = steps_val(t0 + t);
    if (tl > 0)
        NC(ncmpi_iput_vara_int(ncid, v[3], &t0, &tl, steps, &reqs[nreq++]));
    wait_all(ncid, nreq, reqs);
    NC(ncmpi_close(ncid));
    free(cube), free(grid), free(series);
}

/* cube by blocks of y this time: each rank reads what others wrote */
static void check_cube(int ncid, int var)
{
    MPI_Offset y0, yl;
    block(NY, rank, &y0, &yl);
    MPI_Offset s[3] = {0, y0, 0}, c[3] = {NZ, yl, NX};
    double *buf = malloc(sizeof *buf * (NZ * yl * NX + 1));
    NC(ncmpi_get_vara_double_all(ncid, var, s, c, buf));
    for (int z = 0; z < NZ; z++)
        for (MPI_Offset y = 0; y < yl; y++)
            for (int x = 0; x < NX; x++)
                expect("cube", z, y0 + y, x, buf[(z * yl + y) * NX + x], cube_val(z, y0 + y, x));
    free(buf);
}

/* grid and steps whole, on every rank */
static void check_grid_steps(int ncid, int grid_var, int steps_var)
{
    static int grid[GR * GC];
    int steps[NR];
    MPI_Offset s[2] = {0, 0}, c[2] = {GR, GC}, t0 = 0, tn = NR;
    NC(ncmpi_get_vara_int_all(ncid, grid_var, s, c, grid));
    for (int i = 0; i < GR; i++)
        for (int j = 0; j < GC; j++)
            expect("grid", i, j, 0, grid[i * GC + j], grid_val(i, j));
    NC(ncmpi_get_vara_int_all(ncid, steps_var, &t0, &tn, steps));
    for (int t = 0; t < NR; t++)
        expect("steps", t, 0, 0, steps[t], steps_val(t));
}

/* series by nonblocking reads, one per record, of the block of x of the rank "opposite" */
static void check_series(int ncid, int var)
{
    MPI_Offset x0, xl, s[2], c[2];
    int reqs[NR];
    block(NX, nprocs - 1 - rank, &x0, &xl);
    double *buf = malloc(sizeof *buf * (NR * xl + 1));
    for (int t = 0; t < NR; t++) {
        s[0] = t, s[1] = x0, c[0] = 1, c[1] = xl;
        NC(ncmpi_iget_vara_double(ncid, var, s, c, buf + t * xl, &reqs[t]));
    }
    wait_all(ncid, NR, reqs);
    for (int t = 0; t < NR; t++)
        for (MPI_Offset x = 0; x < xl; x++)
            expect("series", t, x0 + x, 0, buf[t * xl + x], series_val(t, x0 + x));
    free(buf);
}

static void read_file(const char *path)
{
    int ncid, v[4], d;
    const char *names[4] = {"cube", "grid", "series", "steps"};
    char title[64] = "";
    MPI_Offset nrec, len;
    NC(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    for (int i = 0; i < 4; i++)
        NC(ncmpi_inq_varid(ncid, names[i], &v[i]));
    NC(ncmpi_inq_dimid(ncid, "time", &d));
    NC(ncmpi_inq_dimlen(ncid, d, &nrec));
    expect("time (length)", 0, 0, 0, (double)nrec, NR);
    NC(ncmpi_inq_attlen(ncid, NC_GLOBAL, "title", &len));
    if (len >= (MPI_Offset)sizeof title)
        len = sizeof title - 1;
    NC(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", title));
    title[len] = '\0';
    if (strcmp(title, TITLE) != 0 && mismatches++ < 10)
        fprintf(stderr, "pnetcdf_basic: rank %d: global attribute title is \"%s\"\n", rank, title);
    check_cube(ncid, v[0]);
    check_grid_steps(ncid, v[1], v[3]);
    check_series(ncid, v[2]);
    NC(ncmpi_close(ncid));
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: pnetcdf_basic PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    write_file(argv[1]);
    read_file(argv[1]);
    int total = 0;
    MPI_Allreduce(&mismatches, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total)
        fprintf(stderr, "pnetcdf_basic: %d wrong values in %s\n", total, argv[1]);
    MPI_Finalize();
    return total ? 1 : 0;
}
