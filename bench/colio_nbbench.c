/*
 * colio-nbbench: the two experiments of Seo et al. (seeds/002) on
 * nonblocking collective I/O, at the scale one machine allows.
 *
 *   overlap      (Fig. 6/7): each step starts a collective write, computes
 *                for as long as the blocking write takes, then waits. The
 *                fraction of I/O time hidden is
 *                (t_io + t_compute - t_step) / t_io.
 *   outstanding  (Fig. 8): k collective writes (k = 1..16) to distinct
 *                regions issued at once then completed with colio_waitall,
 *                against the same k writes made blocking one at a time.
 *
 * The access is finely interleaved (every rank owns one --piece of every
 * nprocs pieces), so every write goes through two-phase aggregation. Medians
 * of --repeat runs; one line per measurement, "key value" pairs.
 *
 * usage: colio-nbbench [--path P] [--bytes B] [--piece N] [--repeat R]
 *                      [--hints "k=v;k=v"] [overlap|outstanding]
 * Run under MPI_THREAD_MULTIPLE so colio_progress=thread is possible.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colio.h"

typedef struct {
    const char *path, *hints, *what;
    long long bytes; /* per rank per operation */
    int piece, repeat;
} opts_t;

static int rank, nprocs;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Every rank's view: one piece of every nprocs pieces. */
static void set_view(colio_file *fh, int piece)
{
    MPI_Datatype t, ft;
    MPI_Type_vector(1, piece, piece * nprocs, MPI_BYTE, &t);
    MPI_Type_create_resized(t, 0, (MPI_Aint)piece * nprocs, &ft);
    MPI_Type_commit(&ft);
    colio_set_view(fh, (MPI_Offset)rank * piece, MPI_BYTE, ft, MPI_INFO_NULL);
    MPI_Type_free(&t);
    MPI_Type_free(&ft);
}

static MPI_Info hints_info(const char *hints)
{
    MPI_Info info;
    MPI_Info_create(&info);
    char *copy = strdup(hints ? hints : ""), *save = NULL;
    for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            MPI_Info_set(info, kv, eq + 1);
        }
    }
    free(copy);
    return info;
}

/* Busy computation for about sec seconds (no MPI, no colio calls). */
static double compute(double sec)
{
    volatile double x = 1.0;
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < sec)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

static double blocking_write(colio_file *fh, const char *buf, long long n, MPI_Offset at)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    colio_write_at_all(fh, at, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

static void overlap(colio_file *fh, const opts_t *o, const char *buf)
{
    double *io = malloc(sizeof(double) * o->repeat), *step = malloc(sizeof(double) * o->repeat);
    for (int r = 0; r < o->repeat; r++)
        io[r] = blocking_write(fh, buf, o->bytes, 0);
    double t_io = median(io, o->repeat);
    MPI_Bcast(&t_io, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* every rank computes as long */
    for (int r = 0; r < o->repeat; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        colio_request *req;
        colio_iwrite_at_all(fh, 0, buf, o->bytes, MPI_BYTE, &req);
        compute(t_io);
        colio_wait(&req, MPI_STATUS_IGNORE);
        step[r] = MPI_Wtime() - t0;
    }
    double t_step = median(step, o->repeat);
    double hidden = (t_io + t_io - t_step) / t_io;
    if (rank == 0)
        printf("overlap bytes_per_rank %lld t_io %.6f t_compute %.6f t_step %.6f hidden %.3f\n", o->bytes, t_io,
               t_io, t_step, hidden);
    free(io);
    free(step);
}

static void outstanding(colio_file *fh, const opts_t *o, const char *buf)
{
    double *tb = malloc(sizeof(double) * o->repeat), *tn = malloc(sizeof(double) * o->repeat);
    for (int k = 1; k <= 16; k *= 2) {
        for (int r = 0; r < o->repeat; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < k; i++)
                colio_write_at_all(fh, (MPI_Offset)i * o->bytes, buf, o->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
            tb[r] = MPI_Wtime() - t0;
            colio_request *reqs[16];
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (int i = 0; i < k; i++)
                colio_iwrite_at_all(fh, (MPI_Offset)i * o->bytes, buf, o->bytes, MPI_BYTE, &reqs[i]);
            colio_waitall(k, reqs, MPI_STATUSES_IGNORE);
            tn[r] = MPI_Wtime() - t0;
        }
        double b = median(tb, o->repeat), n = median(tn, o->repeat);
        if (rank == 0)
            printf("outstanding %d t_blocking %.6f t_nonblocking %.6f normalised %.3f\n", k, b, n, n / b);
    }
    free(tb);
    free(tn);
}

/* Read the first region back and compare it with what every write put
 * there, so a benchmark run never reports the speed of wrong bytes. */
static int verify(colio_file *fh, const opts_t *o, const char *buf)
{
    char *back = malloc((size_t)o->bytes);
    int rc = colio_read_at_all(fh, 0, back, o->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
    int bad = rc != COLIO_SUCCESS || memcmp(back, buf, (size_t)o->bytes) != 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("verify %s\n", any ? "FAILED" : "ok");
    free(back);
    return any;
}

static void parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t){.path = "/dev/shm/colio-nbbench.dat", .what = "overlap", .bytes = 8 << 20, .piece = 4096,
                  .repeat = 5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--path") && v)
            o->path = v, i++;
        else if (!strcmp(a, "--bytes") && v)
            o->bytes = atoll(v), i++;
        else if (!strcmp(a, "--piece") && v)
            o->piece = atoi(v), i++;
        else if (!strcmp(a, "--repeat") && v)
            o->repeat = atoi(v), i++;
        else if (!strcmp(a, "--hints") && v)
            o->hints = v, i++;
        else
            o->what = a;
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    opts_t o;
    parse(argc, argv, &o);
    MPI_Info info = hints_info(o.hints);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, o.path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    if (rc != COLIO_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "colio-nbbench: open %s: %s\n", o.path, colio_last_open_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    set_view(fh, o.piece);
    char *buf = malloc((size_t)o.bytes);
    for (long long i = 0; i < o.bytes; i++)
        buf[i] = (char)(i * 7 + rank);
    if (rank == 0)
        printf("# colio-nbbench %s ranks %d thread_level %d hints %s\n", o.what, nprocs, provided,
               o.hints ? o.hints : "(none)");
    if (!strcmp(o.what, "outstanding"))
        outstanding(fh, &o, buf);
    else
        overlap(fh, &o, buf);
    int bad = verify(fh, &o, buf);
    colio_close(&fh);
    if (rank == 0)
        remove(o.path);
    free(buf);
    MPI_Finalize();
    return bad ? 1 : 0;
}
