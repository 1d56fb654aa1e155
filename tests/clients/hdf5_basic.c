/*
 * A parallel HDF5 program (it knows nothing of colio): run with and without
 * libcolio_mpiio, its files must be byte-identical (run_client.cmake).
 *
 * usage: hdf5_basic PATH
 *
 * Creates, through the MPI-IO driver, a group holding a contiguous 3D int
 * dataset written by blocks of its first dimension, a chunked 2D double
 * dataset (early allocation, edge chunks partly outside) written by blocks
 * of columns, and a 2D int dataset each rank writes as every nprocs-th
 * column from every other column of its buffer: strided selections in file
 * and memory, so HDF5 builds MPI derived types. Data goes through collective
 * H5Dwrite, metadata HDF5's own (independent) way. The file is reopened and
 * read back collectively through other decompositions, compared with
 * formulas of the global index. No object times: the file depends on its
 * contents only. Any rank count works. Exits non-zero on any error or wrong
 * value.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "client_init.h"

#define NZ 7 /* cube(z, y, x): contiguous */
#define NY 8
#define NX 10
#define TR 12 /* tiles(row, col): chunked */
#define TC 9
#define CR 5 /* chunk shape: edge chunks stick out of the dataset */
#define CC 4
#define SR 10 /* strided(row, col) */
#define SC 16

static int rank, nprocs, mismatches;

/* Stop at the first error (HDF5 has printed its error stack): what follows is collective. */
#define H5(call) h5_check((call), #call, __LINE__)
static hid_t h5_check(hid_t rc, const char *what, int line)
{
    if (rc < 0) {
        fprintf(stderr, "hdf5_basic: rank %d, line %d: %s failed\n", rank, line, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

/* Rank r's block of n items: first index and length (the first n % nprocs ranks get one more). */
static void block(int n, int r, hsize_t *start, hsize_t *len)
{
    int base = n / nprocs, extra = n % nprocs;
    *start = (hsize_t)r * base + (r < extra ? r : extra);
    *len = base + (r < extra);
}

/* The contents, from the global index alone (never from a buffer that was written). */
static int cube_val(hsize_t z, hsize_t y, hsize_t x) { return (int)(z * 10000 + y * 100 + x + 1); }
static double tile_val(hsize_t i, hsize_t j) { return i * 0.5 - j * 1000.0 - 0.125; }
static int strided_val(hsize_t i, hsize_t j) { return (int)(-(i * 1000 + j) - 7); }

static void expect(const char *set, hsize_t a, hsize_t b, hsize_t c, double got, double want)
{
    if (got == want)
        return;
    if (mismatches++ < 10) /* enough to see the pattern */
        fprintf(stderr, "hdf5_basic: rank %d: %s[%llu][%llu][%llu] is %g, expected %g\n", rank, set,
                (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, got, want);
}

static hid_t mpio_fapl(void)
{
    hid_t fapl = H5(H5Pcreate(H5P_FILE_ACCESS));
    H5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    return fapl;
}

static hid_t collective_dxpl(void)
{
    hid_t dxpl = H5(H5Pcreate(H5P_DATASET_XFER));
    H5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    return dxpl;
}

/* Collective write or read of one selection (every rank calls it). */
static void transfer(int write, hid_t dset, hid_t type, hid_t mspace, hid_t fspace, void *buf)
{
    hid_t dxpl = collective_dxpl();
    if (write)
        H5(H5Dwrite(dset, type, mspace, fspace, dxpl, buf));
    else
        H5(H5Dread(dset, type, mspace, fspace, dxpl, buf));
    H5(H5Pclose(dxpl));
}

/* A dataset creation list without times, contiguous or chunked (allocated at creation: parallel). */
static hid_t dataset_plist(const hsize_t *chunk)
{
    hid_t dcpl = H5(H5Pcreate(H5P_DATASET_CREATE));
    H5(H5Pset_obj_track_times(dcpl, 0));
    if (chunk) {
        H5(H5Pset_chunk(dcpl, 2, chunk));
        H5(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
    }
    return dcpl;
}

static hid_t create(hid_t group, const char *name, hid_t type, int rank_, const hsize_t *dims, const hsize_t *chunk)
{
    hid_t space = H5(H5Screate_simple(rank_, dims, NULL)), dcpl = dataset_plist(chunk);
    hid_t dset = H5(H5Dcreate2(group, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5(H5Sclose(space));
    H5(H5Pclose(dcpl));
    return dset;
}

/* The file space of dset with [start, start + count) selected, by (stride, 1) steps if stride is given. */
static hid_t file_slab(hid_t dset, const hsize_t *start, const hsize_t *stride, const hsize_t *count)
{
    hid_t space = H5(H5Dget_space(dset));
    H5(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, NULL));
    return space;
}

static void write_cube(hid_t group)
{
    hsize_t dims[3] = {NZ, NY, NX}, start[3] = {0, 0, 0}, count[3] = {0, NY, NX};
    block(NZ, rank, &start[0], &count[0]);
    int *buf = malloc(sizeof *buf * (count[0] * NY * NX + 1));
    for (hsize_t z = 0; z < count[0]; z++)
        for (hsize_t y = 0; y < NY; y++)
            for (hsize_t x = 0; x < NX; x++)
                buf[(z * NY + y) * NX + x] = cube_val(start[0] + z, y, x);
    hid_t dset = create(group, "cube", H5T_NATIVE_INT, 3, dims, NULL);
    hid_t fspace = file_slab(dset, start, NULL, count), mspace = H5(H5Screate_simple(3, count, NULL));
    transfer(1, dset, H5T_NATIVE_INT, mspace, fspace, buf);
    H5(H5Sclose(mspace)), H5(H5Sclose(fspace)), H5(H5Dclose(dset));
    free(buf);
}

static void write_tiles(hid_t group)
{
    hsize_t dims[2] = {TR, TC}, chunk[2] = {CR, CC}, start[2] = {0, 0}, count[2] = {TR, 0};
    block(TC, rank, &start[1], &count[1]);
    double *buf = malloc(sizeof *buf * (TR * count[1] + 1));
    for (hsize_t i = 0; i < TR; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            buf[i * count[1] + j] = tile_val(i, start[1] + j);
    hid_t dset = create(group, "tiles", H5T_NATIVE_DOUBLE, 2, dims, chunk);
    hid_t fspace = file_slab(dset, start, NULL, count), mspace = H5(H5Screate_simple(2, count, NULL));
    transfer(1, dset, H5T_NATIVE_DOUBLE, mspace, fspace, buf);
    H5(H5Sclose(mspace)), H5(H5Sclose(fspace)), H5(H5Dclose(dset));
    free(buf);
}

/* Columns rank, rank + nprocs, ... of the file, from the even columns of a buffer twice as wide. */
static void write_strided(hid_t group)
{
    hsize_t n = (SC - rank + nprocs - 1) / nprocs, dims[2] = {SR, SC}, mdims[2] = {SR, 2 * n};
    hsize_t fstart[2] = {0, rank}, fstride[2] = {1, nprocs}, count[2] = {SR, n};
    hsize_t mstart[2] = {0, 0}, mstride[2] = {1, 2};
    int *buf = malloc(sizeof *buf * (SR * 2 * n + 1));
    for (hsize_t i = 0; i < SR; i++)
        for (hsize_t k = 0; k < 2 * n; k++) /* odd columns: must not reach the file */
            buf[i * 2 * n + k] = k % 2 ? -1 : strided_val(i, rank + (k / 2) * nprocs);
    hid_t dset = create(group, "strided", H5T_NATIVE_INT, 2, dims, NULL);
    hid_t fspace = file_slab(dset, fstart, fstride, count), mspace = H5(H5Screate_simple(2, mdims, NULL));
    H5(H5Sselect_hyperslab(mspace, H5S_SELECT_SET, mstart, mstride, count, NULL));
    transfer(1, dset, H5T_NATIVE_INT, mspace, fspace, buf);
    H5(H5Sclose(mspace)), H5(H5Sclose(fspace)), H5(H5Dclose(dset));
    free(buf);
}

static void write_file(const char *path)
{
    hid_t fapl = mpio_fapl(), gcpl = H5(H5Pcreate(H5P_GROUP_CREATE));
    H5(H5Pset_obj_track_times(gcpl, 0));
    hid_t file = H5(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    hid_t group = H5(H5Gcreate2(file, "fields", H5P_DEFAULT, gcpl, H5P_DEFAULT));
    write_cube(group);
    write_tiles(group);
    write_strided(group);
    H5(H5Gclose(group)), H5(H5Pclose(gcpl)), H5(H5Fclose(file)), H5(H5Pclose(fapl));
}

/* cube whole, on every rank */
static void check_cube(hid_t file)
{
    static int buf[NZ * NY * NX];
    hid_t dset = H5(H5Dopen2(file, "fields/cube", H5P_DEFAULT));
    transfer(0, dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, buf);
    for (hsize_t z = 0; z < NZ; z++)
        for (hsize_t y = 0; y < NY; y++)
            for (hsize_t x = 0; x < NX; x++)
                expect("cube", z, y, x, buf[(z * NY + y) * NX + x], cube_val(z, y, x));
    H5(H5Dclose(dset));
}

/* tiles by blocks of rows this time: each rank reads what others wrote */
static void check_tiles(hid_t file)
{
    hsize_t start[2] = {0, 0}, count[2] = {0, TC};
    block(TR, rank, &start[0], &count[0]);
    double *buf = malloc(sizeof *buf * (count[0] * TC + 1));
    hid_t dset = H5(H5Dopen2(file, "fields/tiles", H5P_DEFAULT));
    hid_t fspace = file_slab(dset, start, NULL, count), mspace = H5(H5Screate_simple(2, count, NULL));
    transfer(0, dset, H5T_NATIVE_DOUBLE, mspace, fspace, buf);
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < TC; j++)
            expect("tiles", start[0] + i, j, 0, buf[i * TC + j], tile_val(start[0] + i, j));
    H5(H5Sclose(mspace)), H5(H5Sclose(fspace)), H5(H5Dclose(dset));
    free(buf);
}

/* strided by every nprocs-th row, from rank's row on */
static void check_strided(hid_t file)
{
    hsize_t n = (SR - rank + nprocs - 1) / nprocs, start[2] = {rank, 0}, stride[2] = {nprocs, 1}, count[2] = {n, SC};
    int *buf = malloc(sizeof *buf * (n * SC + 1));
    hid_t dset = H5(H5Dopen2(file, "fields/strided", H5P_DEFAULT));
    hid_t fspace = file_slab(dset, start, stride, count), mspace = H5(H5Screate_simple(2, count, NULL));
    transfer(0, dset, H5T_NATIVE_INT, mspace, fspace, buf);
    for (hsize_t k = 0; k < n; k++)
        for (hsize_t j = 0; j < SC; j++)
            expect("strided", rank + k * nprocs, j, 0, buf[k * SC + j], strided_val(rank + k * nprocs, j));
    H5(H5Sclose(mspace)), H5(H5Sclose(fspace)), H5(H5Dclose(dset));
    free(buf);
}

static void read_file(const char *path)
{
    hid_t fapl = mpio_fapl(), file = H5(H5Fopen(path, H5F_ACC_RDONLY, fapl));
    check_cube(file);
    check_tiles(file);
    check_strided(file);
    H5(H5Fclose(file)), H5(H5Pclose(fapl));
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: hdf5_basic PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    write_file(argv[1]);
    read_file(argv[1]);
    int total = 0;
    MPI_Allreduce(&mismatches, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total)
        fprintf(stderr, "hdf5_basic: %d wrong values in %s\n", total, argv[1]);
    MPI_Finalize();
    return total ? 1 : 0;
}
