/*
 * call-cost: the fixed cost of one small collective call:
 * CALLS write_at_all (then read_at_all) calls of BYTES bytes per rank, rank
 * r's k-th call at offset (k * P + r) * BYTES (IOR's segmented pattern,
 * `-t BYTES -b BYTES -s CALLS`), through colio and through the MPI
 * library's own MPI-IO, beside what a call cannot go below: one `pwrite`
 * (`pread`) per call and nothing else (posix: what an MPI-IO that makes no
 * collective for pieces that do not interleave pays), the same followed by
 * one MPI_Allreduce of its result (agreed: the floor of a call that returns
 * the same error on every rank), the same with the result met through a
 * cache line per rank in node-shared memory instead (slots: the floor of
 * such a call where every rank shares a node, as colio's agreements do
 * there), and one MPI_Allreduce of 8 bytes and one MPI_Barrier alone on the
 * same ranks. Each
 * figure is the best of LOOPS loops, in microseconds per call (slowest
 * rank); the written bytes are checked after each write loop, the read
 * ones after each read loop.
 * ENGINES (comma-separated names, default all) picks engines, e.g. to
 * profile colio alone. CALL_COST_THREADS=multiple initialises MPI with
 * MPI_THREAD_MULTIPLE, as programs that want colio's progress thread do.
 * usage: mpiexec -n P call-cost PATH [BYTES] [CALLS] [LOOPS] [ENGINES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "colio.h"
#include "tool_init.h"

static int rank, nprocs;

static double slowest(double t)
{
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

static unsigned char byte_at(long long off) { return (unsigned char)(off * 7 + (off >> 8) + 1); }

static void die(const char *what, int rc)
{
    fprintf(stderr, "call-cost: rank %d: %s failed (%d)\n", rank, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

typedef struct engine {
    const char *name;
    int (*open)(const char *path, void **fh);
    int (*xfer)(void *fh, int writing, long long off, void *buf, int len);
    void (*close)(void *fh);
    int (*usable)(void); /* collective; NULL: always */
} engine_t;

static int colio_open_(const char *path, void **fh)
{
    return colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, (colio_file **)fh);
}
static int colio_xfer(void *fh, int writing, long long off, void *buf, int len)
{
    return writing ? colio_write_at_all(fh, off, buf, len, MPI_BYTE, MPI_STATUS_IGNORE)
                   : colio_read_at_all(fh, off, buf, len, MPI_BYTE, MPI_STATUS_IGNORE);
}
static void colio_close_(void *fh)
{
    colio_file *f = fh;
    colio_close(&f);
}

static int mpiio_open(const char *path, void **fh)
{
    if ((*fh = malloc(sizeof(MPI_File))) == NULL)
        return MPI_ERR_NO_MEM;
    return MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, *fh);
}
static int mpiio_xfer(void *fh, int writing, long long off, void *buf, int len)
{
    MPI_File *f = fh;
    return writing ? MPI_File_write_at_all(*f, off, buf, len, MPI_BYTE, MPI_STATUS_IGNORE)
                   : MPI_File_read_at_all(*f, off, buf, len, MPI_BYTE, MPI_STATUS_IGNORE);
}
static void mpiio_close(void *fh)
{
    MPI_File_close(fh);
    free(fh);
}

static int posix_open(const char *path, void **fh)
{
    int *fd = malloc(sizeof *fd);
    if (fd == NULL)
        return 1;
    *fd = open(path, O_CREAT | O_RDWR, 0644);
    *fh = fd;
    return *fd < 0;
}
/* One storage call, 0 when it moved every byte. */
static int posix_xfer(void *fh, int writing, long long off, void *buf, int len)
{
    int fd = *(int *)fh;
    ssize_t n = writing ? pwrite(fd, buf, (size_t)len, off) : pread(fd, buf, (size_t)len, off);
    return n != len;
}
/* The storage call, then every rank learns the worst result: the least a call returning one error costs. */
static int agreed_xfer(void *fh, int writing, long long off, void *buf, int len)
{
    int rc = posix_xfer(fh, writing, off, buf, len), worst;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}
static void posix_close(void *fh)
{
    close(*(int *)fh);
    free(fh);
}

/* slots: one cache line per rank in two rows used in turn (a rank reuses a row only after all reached the other). */
typedef struct slot {
    _Atomic int64_t seq;
    int64_t worst;
    char pad[48];
} slot_t;
typedef struct slots_file {
    int fd;
    int64_t seq;
    slot_t *rows;
    MPI_Win win;
} slots_file_t;

/* Whether every rank shares one node (the slots' shared memory). */
static int slots_usable(void)
{
    MPI_Comm node;
    int nlocal;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nlocal);
    MPI_Comm_free(&node);
    int one = nlocal == nprocs, all;
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static int slots_open(const char *path, void **fh)
{
    slots_file_t *f = calloc(1, sizeof *f);
    if (f == NULL)
        return 1;
    *fh = f;
    slot_t *mine;
    MPI_Aint size;
    int disp;
    MPI_Win_allocate_shared(rank == 0 ? 2 * nprocs * (MPI_Aint)sizeof(slot_t) : 0, sizeof(slot_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mine, &f->win);
    MPI_Win_shared_query(f->win, 0, &size, &disp, &f->rows);
    if (rank == 0)
        for (int i = 0; i < 2 * nprocs; i++)
            atomic_store(&f->rows[i].seq, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    f->fd = open(path, O_CREAT | O_RDWR, 0644);
    return f->fd < 0;
}
/* The storage call, then every rank's result through the slots: the worst of them. */
static int slots_xfer(void *fh, int writing, long long off, void *buf, int len)
{
    slots_file_t *f = fh;
    int64_t worst = posix_xfer(&f->fd, writing, off, buf, len), k = ++f->seq;
    slot_t *row = f->rows + (k & 1) * nprocs;
    row[rank].worst = worst;
    atomic_store_explicit(&row[rank].seq, k, memory_order_release);
    for (int j = 0; j < nprocs; j++) {
        for (int spins = 0; atomic_load_explicit(&row[j].seq, memory_order_acquire) != k; spins++)
            if (spins > 1000)
                sched_yield();
        worst = row[j].worst > worst ? row[j].worst : worst;
    }
    return (int)worst;
}
static void slots_close(void *fh)
{
    slots_file_t *f = fh;
    MPI_Barrier(MPI_COMM_WORLD); /* nobody still reads the slots */
    MPI_Win_free(&f->win);
    close(f->fd);
    free(f);
}

static const engine_t engines[] = {{"colio", colio_open_, colio_xfer, colio_close_, NULL},
                                   {"mpiio", mpiio_open, mpiio_xfer, mpiio_close, NULL},
                                   {"posix", posix_open, posix_xfer, posix_close, NULL},
                                   {"agreed", posix_open, agreed_xfer, posix_close, NULL},
                                   {"slots", slots_open, slots_xfer, slots_close, slots_usable}};

/* Best of loops: microseconds per call of one loop of calls. */
static double timed_loops(const engine_t *e, void *fh, int writing, int bytes, int calls, int loops, unsigned char *buf)
{
    double best = 1e30;
    for (int l = 0; l < loops; l++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < calls; k++) {
            long long off = ((long long)k * nprocs + rank) * bytes;
            int rc = e->xfer(fh, writing, off, buf + (size_t)k * bytes + (writing ? 0 : (size_t)bytes * calls), bytes);
            if (rc != 0)
                die(writing ? "write_at_all" : "read_at_all", rc);
        }
        double t = slowest(MPI_Wtime() - t0) / calls * 1e6;
        if (t < best)
            best = t;
    }
    return best;
}

/* Every rank checks its own bytes with plain MPI-IO independent reads. */
static void check_file(const char *path, int bytes, int calls)
{
    MPI_File f;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f) != MPI_SUCCESS)
        die("check open", 1);
    unsigned char *got = malloc((size_t)bytes);
    if (got == NULL)
        die("check buffer", 1);
    long long bad = 0;
    for (int k = 0; k < calls; k++) {
        long long off = ((long long)k * nprocs + rank) * bytes;
        MPI_File_read_at(f, off, got, bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        for (int i = 0; i < bytes; i++)
            bad += got[i] != byte_at(off + i);
    }
    MPI_File_close(&f);
    free(got);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "call-cost: %lld wrong bytes in %s\n", bad, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Whether NAME is one of the comma-separated names in LIST. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

static double floor_loop(int barrier, int calls, int loops)
{
    double best = 1e30;
    for (int l = 0; l < loops; l++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < calls; k++) {
            long long x = k, y;
            if (barrier)
                MPI_Barrier(MPI_COMM_WORLD);
            else
                MPI_Allreduce(&x, &y, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        }
        double t = slowest(MPI_Wtime() - t0) / calls * 1e6;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    tool_mpi_init(&argc, &argv, "CALL_COST_THREADS");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: call-cost PATH [BYTES] [CALLS] [LOOPS] [ENGINES]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    int bytes = argc > 2 ? atoi(argv[2]) : 64;
    int calls = argc > 3 ? atoi(argv[3]) : 20000;
    int loops = argc > 4 ? atoi(argv[4]) : 5;
    const char *only = argc > 5 ? argv[5] : NULL;
    unsigned char *buf = malloc(2 * (size_t)bytes * (size_t)calls); /* what is written, then room for the reads */
    if (buf == NULL)
        die("buffer", 1);
    for (int k = 0; k < calls; k++)
        for (int i = 0; i < bytes; i++)
            buf[(size_t)k * bytes + i] = byte_at(((long long)k * nprocs + rank) * bytes + i);
    if (rank == 0)
        printf("call-cost on %d ranks, %d bytes per call, %d calls, best of %d loops (us per call)\n", nprocs, bytes,
               calls, loops);
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        const engine_t *e = &engines[i];
        if (only && !listed(only, e->name))
            continue;
        if (e->usable && !e->usable()) {
            if (rank == 0)
                printf("%-6s skipped: the ranks do not share one node\n", e->name);
            continue;
        }
        if (rank == 0)
            MPI_File_delete(path, MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        void *fh;
        int rc = e->open(path, &fh);
        if (rc != 0)
            die("open", rc);
        double w = timed_loops(e, fh, 1, bytes, calls, loops, buf);
        e->close(fh);
        check_file(path, bytes, calls);
        if ((rc = e->open(path, &fh)) != 0)
            die("reopen", rc);
        double r = timed_loops(e, fh, 0, bytes, calls, loops, buf);
        e->close(fh);
        if (memcmp(buf, buf + (size_t)bytes * calls, (size_t)bytes * calls) != 0) {
            fprintf(stderr, "call-cost: rank %d: %s read_at_all read wrong bytes\n", rank, e->name);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (rank == 0)
            printf("%-6s write_at_all %8.2f  read_at_all %8.2f\n", e->name, w, r);
    }
    double ar = floor_loop(0, calls, loops), ba = floor_loop(1, calls, loops);
    if (rank == 0) {
        printf("floor  MPI_Allreduce %7.2f  MPI_Barrier %8.2f\n", ar, ba);
        MPI_File_delete(path, MPI_INFO_NULL);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
