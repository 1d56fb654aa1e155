/*
 * lattice: a lattice QCD gauge configuration (pmodels/mpich#7935): a 4D
 * lattice T x Z x Y x X, X fastest in the file, whose site holds the 4 links
 * of a gauge field, each a complex 3x3 matrix (4 x 9 complex doubles, 576
 * bytes). The ranks form a 4D process grid (MPI_Dims_create), each owning a
 * block of L^3 x T sites, and write it through an MPI subarray view of the
 * site type, as lattice codes do. The global lattice grows with the process
 * grid, so the bytes per rank stay the same at any rank count. Pieces are
 * the block's X-runs.
 */
#include <stdio.h>

#include "../bench.h"
#include "grid.h"

enum { T, Z, Y, X }; /* dimensions in file order, X fastest */

#define SITE_DOUBLES (4 * 9 * 2) /* 4 links, 3x3 complex each */
#define SITE_BYTES (SITE_DOUBLES * 8)

/*
 * The process grid: MPI_Dims_create's largest factor goes to X, the next to
 * Y, ..., so X is split first and a rank's pieces are single X-runs at any
 * rank count above one (as at scale, where all 4 dimensions are split).
 * Mapped the other way, T first, a rank's block would be one contiguous
 * piece at 2 ranks and runs of whole X-rows up to 8: nothing for a
 * collective to gather on the machines this benchmark runs on.
 */
static void process_grid(int rank, int nprocs, int grid[4], int coords[4])
{
    int dims[4] = {0, 0, 0, 0};
    MPI_Dims_create(nprocs, 4, dims);
    for (int d = 0; d < 4; d++)
        grid[d] = dims[3 - d];
    for (int d = 3, r = rank; d >= 0; r /= grid[d], d--) /* rank order: X coordinate fastest */
        coords[d] = r % grid[d];
}

/* The site type: MPI_Type_create_subarray of this, as lattice codes build their views. */
static int site_type(MPI_Datatype *t)
{
    int rc = MPI_Type_contiguous(SITE_DOUBLES, MPI_DOUBLE, t);
    return rc == MPI_SUCCESS ? MPI_Type_commit(t) : rc;
}

static int subarray_view(const int global[4], const int local[4], const int start[4], MPI_Datatype *view)
{
    MPI_Datatype site;
    int rc = site_type(&site);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_create_subarray(4, global, local, start, MPI_ORDER_C, site, view);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(view);
    MPI_Type_free(&site);
    return rc;
}

static int generate(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen)
{
    int l = (int)pick(p->size, 4, 8, 16), lt = (int)pick(p->size, 16, 32, 32);
    int local[4] = {lt, l, l, l}, grid[4], coords[4], global[4], start[4];
    process_grid(rank, nprocs, grid, coords);
    for (int d = 0; d < 4; d++) {
        global[d] = grid[d] * local[d];
        start[d] = coords[d] * local[d];
    }
    if (bench_access_alloc(a, (int64_t)local[T] * local[Z] * local[Y]) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int64_t t = start[T]; t < start[T] + local[T]; t++)
        for (int64_t z = start[Z]; z < start[Z] + local[Z]; z++)
            for (int64_t y = start[Y]; y < start[Y] + local[Y]; y++) {
                int64_t site = ((t * global[Z] + z) * global[Y] + y) * global[X] + start[X];
                bench_access_push(a, site * SITE_BYTES, (int64_t)local[X] * SITE_BYTES);
            }
    if (subarray_view(global, local, start, &a->filetype) != MPI_SUCCESS)
        return snprintf(err, errlen, "cannot build the subarray view"), -1;
    snprintf(a->desc, sizeof a->desc, "%dx%dx%dx%d sites (TZYX) of 4 complex 3x3 matrices, %dx%dx%dx%d process grid",
             global[T], global[Z], global[Y], global[X], grid[T], grid[Z], grid[Y], grid[X]);
    return 0;
}

const bench_workload_t bench_workload_lattice = {
    .name = "lattice",
    .help = "lattice QCD gauge field: 4D lattice, 576 B sites (4 complex 3x3 matrices), L^3xT = 4^3x16/8^3x32/16^3x32 "
            "sites per rank in a 4D process grid, subarray view (1.1/18/144 MiB at 2 ranks)",
    .generate = generate,
};
