/*
 * colio-demo: the same noncontiguous collective write and read through
 * colio and through the MPI library's own MPI-IO (ROMIO in MPICH, OMPIO in
 * Open MPI), in one run, with every file verified byte by byte.
 *
 * Pattern: the file is a sequence of blocks of --block bytes dealt to ranks
 * by a scrambled round-robin (each rank owns every nprocs-th block of a
 * permuted order), so each rank's view is a strided, irregular filetype, as
 * in climate and cosmology checkpoints. Times are medians over --repeat runs
 * after one warm-up; the file is removed and recreated before every run.
 *
 *   mpiexec -n 2 colio-demo [--size MiB] [--block bytes] [--repeat n] [--dir path]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colio.h"

typedef struct options {
    int64_t size_mib;
    int block;
    int repeat;
    const char *dir;
} options_t;

static int rank, nprocs;

static void die(const char *what, int rc)
{
    fprintf(stderr, "colio-demo: rank %d: %s failed (%d)\n", rank, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static options_t parse(int argc, char **argv)
{
    options_t o = {.size_mib = 64, .block = 256, .repeat = 5, .dir = "/dev/shm"};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--size"))
            o.size_mib = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--block"))
            o.block = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat"))
            o.repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dir"))
            o.dir = argv[i + 1];
    }
    if (o.size_mib < 1 || o.block < 1 || o.repeat < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: colio-demo [--size MiB] [--block bytes] [--repeat n] [--dir path]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return o;
}

/* Owner of block b: a fixed permutation, so ranks' blocks interleave irregularly. */
static int owner(int64_t b) { return (int)(((uint64_t)b * 2654435761u >> 7) % (uint64_t)nprocs); }

static unsigned char content(int64_t off) { return (unsigned char)(off * 131 + (off >> 13) + 7); }

/* This rank's filetype: an hindexed list of its blocks over the whole file. */
static MPI_Datatype my_filetype(int64_t nblocks, int block, int64_t *mine)
{
    int *lens = malloc(sizeof(int) * (size_t)nblocks);
    MPI_Aint *disps = malloc(sizeof(MPI_Aint) * (size_t)nblocks);
    int64_t n = 0;
    for (int64_t b = 0; b < nblocks; b++)
        if (owner(b) == rank) {
            lens[n] = block;
            disps[n] = (MPI_Aint)(b * block);
            n++;
        }
    MPI_Datatype t;
    MPI_Type_create_hindexed((int)n, lens, disps, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    free(lens);
    free(disps);
    *mine = n;
    return t;
}

typedef struct run {
    const char *engine, *op;
    double median, min, max;
    int verified;
} run_t;

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed collective call through colio or MPI-IO. */
static double one_call(int use_colio, int write, const char *path, MPI_Datatype ft, unsigned char *buf, int64_t n)
{
    int amode = write ? MPI_MODE_WRONLY | MPI_MODE_CREATE : MPI_MODE_RDONLY;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (use_colio) {
        colio_file *fh;
        int rc = colio_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
        if (rc) die(colio_last_open_error(), rc);
        if ((rc = colio_set_view(fh, 0, MPI_BYTE, ft, MPI_INFO_NULL))) die("colio_set_view", rc);
        rc = write ? colio_write_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                   : colio_read_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc) die(colio_last_error(fh), rc);
        if ((rc = colio_close(&fh))) die("colio_close", rc);
    } else {
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
        if (rc) die("MPI_File_open", rc);
        MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        rc = write ? MPI_File_write_all(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE)
                   : MPI_File_read_all(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc) die(write ? "MPI_File_write_all" : "MPI_File_read_all", rc);
        MPI_File_close(&fh);
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* Rank 0 reads the whole file with pread and checks every byte. */
static int verify_file(const char *path, int64_t total)
{
    int ok = 1;
    if (rank == 0) {
        unsigned char *f = malloc((size_t)total);
        int fd = open(path, O_RDONLY);
        int64_t got = 0;
        while (fd >= 0 && got < total) {
            ssize_t k = pread(fd, f + got, (size_t)(total - got), got);
            if (k <= 0)
                break;
            got += k;
        }
        ok = got == total;
        for (int64_t i = 0; ok && i < total; i++)
            ok = f[i] == content(i);
        if (fd >= 0)
            close(fd);
        free(f);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

static void fill_mine(unsigned char *buf, int64_t nblocks, int block)
{
    int64_t at = 0;
    for (int64_t b = 0; b < nblocks; b++)
        if (owner(b) == rank)
            for (int i = 0; i < block; i++)
                buf[at++] = content(b * block + i);
}

static run_t measure(int use_colio, int write, const options_t *o, const char *path, MPI_Datatype ft,
                     int64_t nblocks, int64_t mine)
{
    int64_t n = mine * o->block, total = nblocks * o->block;
    unsigned char *buf = malloc((size_t)n + 1), *ref = malloc((size_t)n + 1);
    fill_mine(ref, nblocks, o->block);
    double *t = malloc(sizeof(double) * (size_t)o->repeat);
    int verified = 1;
    for (int k = -1; k < o->repeat; k++) { /* k = -1: warm-up */
        if (write) {
            if (rank == 0)
                unlink(path);
            memcpy(buf, ref, (size_t)n);
        } else {
            memset(buf, 0, (size_t)n);
        }
        double s = one_call(use_colio, write, path, ft, buf, n);
        int ok = write ? verify_file(path, total) : memcmp(buf, ref, (size_t)n) == 0, all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        verified &= all;
        if (k >= 0)
            t[k] = s;
    }
    qsort(t, (size_t)o->repeat, sizeof *t, by_double);
    run_t r = {use_colio ? "colio" : "mpiio", write ? "write" : "read",
               o->repeat % 2 ? t[o->repeat / 2] : (t[o->repeat / 2 - 1] + t[o->repeat / 2]) / 2, t[0],
               t[o->repeat - 1], verified};
    free(buf), free(ref), free(t);
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    options_t o = parse(argc, argv);
    int64_t nblocks = o.size_mib * (1 << 20) / o.block, mine;
    MPI_Datatype ft = my_filetype(nblocks, o.block, &mine);
    char path[1024], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    snprintf(path, sizeof path, "%s/colio-demo.%d.dat", o.dir, (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = '\0';

    run_t runs[4];
    for (int write = 1, i = 0; write >= 0; write--)
        for (int c = 1; c >= 0; c--)
            runs[i++] = measure(c, write, &o, path, ft, nblocks, mine);
    if (rank == 0) {
        double mib = (double)nblocks * o.block / (1 << 20);
        printf("colio-demo: %d ranks, %s\n", nprocs, lib);
        printf("  file %s: %.0f MiB in %lld blocks of %d B dealt irregularly to ranks; median of %d runs\n\n", path,
               mib, (long long)nblocks, o.block, o.repeat);
        printf("  %-6s %-6s %10s %10s %10s %10s  %s\n", "engine", "op", "median_s", "min_s", "max_s", "MiB/s", "bytes");
        for (int i = 0; i < 4; i++)
            printf("  %-6s %-6s %10.4f %10.4f %10.4f %10.1f  %s\n", runs[i].engine, runs[i].op, runs[i].median,
                   runs[i].min, runs[i].max, mib / runs[i].median, runs[i].verified ? "verified" : "WRONG");
        printf("\n  speed-up of colio over the MPI library's MPI-IO: write %.2fx, read %.2fx\n",
               runs[1].median / runs[0].median, runs[3].median / runs[2].median);
    }
    int ok = runs[0].verified && runs[1].verified && runs[2].verified && runs[3].verified;
    if (rank == 0)
        unlink(path);
    MPI_Type_free(&ft);
    MPI_Finalize();
    return ok ? 0 : 1;
}
