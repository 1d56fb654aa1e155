/*
 * colio-nbbench: the two experiments of Seo et al. (seeds/002, Sec. IV-C
 * and IV-D) on nonblocking collective I/O, at the scale one machine allows.
 *
 *   overlap      (Fig. 6/7): a step is one collective write (then one read)
 *                and a fixed amount of computation. Blocking: the I/O, then
 *                the computation. Nonblocking: start the I/O, compute (in
 *                --slices pieces with a colio_test after each when
 *                --test-calls is given, as the paper's Small_Computation
 *                loop), then wait. The computation is a calibrated number
 *                of iterations taking as long as the blocking I/O when run
 *                alone, so CPU taken by progress shows as a longer step.
 *                Hidden fraction = (t_blocking_step - t_nonblocking_step) /
 *                t_io.
 *   outstanding  (Fig. 8): 16 collective writes (then reads) to distinct
 *                regions, posted k at a time (k = 1, 2, 4, 8, 16) and each
 *                group completed with colio_waitall; time normalised to
 *                k = 1. The same 16 calls blocking are shown for reference.
 *
 * Access: finely interleaved (every rank owns one --piece of every nprocs
 * pieces), so every operation goes through two-phase aggregation. Medians
 * of --repeat runs. Every byte written is read back and compared at the
 * end ("verify ok"), so a run never reports the speed of wrong bytes.
 *
 * usage: colio-nbbench [--path P] [--bytes B] [--piece N] [--repeat R]
 *                      [--slices S] [--test-calls] [--hints "k=v;k=v"]
 *                      [--engine colio|mpiio] [overlap|outstanding]
 * --engine mpiio runs the same experiments through the MPI library's own
 * MPI_File_i*_at_all (ROMIO or OMPIO), with the same hints.
 * MPI is initialised with MPI_THREAD_MULTIPLE so colio_progress=thread works.
 */
#include <mpi.h>
#include <sys/resource.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colio.h"

#define REGIONS 16 /* operations of the outstanding experiment */

typedef struct {
    const char *path, *hints, *what;
    long long bytes; /* per rank per operation */
    int piece, repeat, slices, test_calls;
} opts_t;

typedef enum { WRITE, READ } kind_t;

/* The engine under test: colio, or the MPI library's own MPI-IO (--engine mpiio). */
typedef union {
    colio_request *c;
    MPI_Request m;
} req_t;

static int rank, nprocs, use_mpiio;
static colio_file *cfh;
static MPI_File mfh = MPI_FILE_NULL;
static const char *kind_name[] = {"write", "read"};

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

/* The slowest rank's value: a collective step lasts as long as its last rank. */
static double slowest(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static void die_on(int rc, const char *what)
{
    if (rc == 0) /* COLIO_SUCCESS and MPI_SUCCESS */
        return;
    fprintf(stderr, "colio-nbbench: rank %d: %s failed (%d): %s\n", rank, what, rc,
            use_mpiio ? "MPI-IO error" : colio_last_error(cfh));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Every rank's view: one piece of every nprocs pieces. */
static void set_view(int piece)
{
    MPI_Datatype t, ft;
    MPI_Type_vector(1, piece, piece * nprocs, MPI_BYTE, &t);
    MPI_Type_create_resized(t, 0, (MPI_Aint)piece * nprocs, &ft);
    MPI_Type_commit(&ft);
    MPI_Offset disp = (MPI_Offset)rank * piece;
    die_on(use_mpiio ? MPI_File_set_view(mfh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL)
                     : colio_set_view(cfh, disp, MPI_BYTE, ft, MPI_INFO_NULL),
           "set_view");
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

/* ---- computation: a fixed amount of work, not a fixed time --------------------------- */

static volatile double sink;

#ifdef COLIO_SMPI
/*
 * Under SimGrid SMPI the computation is simulated, 1 ns per iteration,
 * instead of run: thousands of simulated ranks share one real core, and
 * real loops would cost their sum in wall time (docs/SCALE.md).
 */
static void compute_iters(long long n) { smpi_execute((double)n * 1e-9); }
#else
static void compute_iters(long long n)
{
    double x = sink;
    for (long long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}
#endif

/* Iterations that take `sec` seconds on this rank when nothing else runs (every rank uses rank 0's count). */
static long long calibrate(double sec)
{
    const long long chunk = 1 << 22; /* a few ms: long against timer and scheduler noise */
    double t[9];
    compute_iters(chunk); /* warm up (clock frequency) */
    for (int r = 0; r < 9; r++) {
        double t0 = MPI_Wtime();
        compute_iters(chunk);
        t[r] = MPI_Wtime() - t0;
    }
    long long n = (long long)(sec / median(t, 9) * (double)chunk);
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return n;
}

/* ---- the operations -------------------------------------------------------------------- */

static void region_data(char *buf, long long n, int region)
{
    for (long long i = 0; i < n; i++)
        buf[i] = (char)(i * 7 + rank * 31 + region * 101);
}

static int start_op(kind_t k, MPI_Offset at, char *buf, long long n, req_t *r)
{
    if (use_mpiio)
        return k == WRITE ? MPI_File_iwrite_at_all(mfh, at, buf, (int)n, MPI_BYTE, &r->m)
                          : MPI_File_iread_at_all(mfh, at, buf, (int)n, MPI_BYTE, &r->m);
    return k == WRITE ? colio_iwrite_at_all(cfh, at, buf, n, MPI_BYTE, &r->c)
                      : colio_iread_at_all(cfh, at, buf, n, MPI_BYTE, &r->c);
}

static void blocking_op(kind_t k, MPI_Offset at, char *buf, long long n)
{
    int rc;
    if (use_mpiio)
        rc = k == WRITE ? MPI_File_write_at_all(mfh, at, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE)
                        : MPI_File_read_at_all(mfh, at, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    else
        rc = k == WRITE ? colio_write_at_all(cfh, at, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                        : colio_read_at_all(cfh, at, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
    die_on(rc, kind_name[k]);
}

static int pending(const req_t *r) { return use_mpiio ? r->m != MPI_REQUEST_NULL : r->c != NULL; }

static void test_op(req_t *r)
{
    int flag;
    die_on(use_mpiio ? MPI_Test(&r->m, &flag, MPI_STATUS_IGNORE) : colio_test(&r->c, &flag, MPI_STATUS_IGNORE), "test");
}

static void wait_op(req_t *r)
{
    die_on(use_mpiio ? MPI_Wait(&r->m, MPI_STATUS_IGNORE) : colio_wait(&r->c, MPI_STATUS_IGNORE), "wait");
}

static void waitall_ops(int n, req_t *r)
{
    if (use_mpiio) {
        MPI_Request m[REGIONS];
        for (int i = 0; i < n; i++)
            m[i] = r[i].m;
        die_on(MPI_Waitall(n, m, MPI_STATUSES_IGNORE), "MPI_Waitall");
    } else {
        colio_request *c[REGIONS];
        for (int i = 0; i < n; i++)
            c[i] = r[i].c;
        die_on(colio_waitall(n, c, MPI_STATUSES_IGNORE), "colio_waitall");
    }
}

/* ---- overlap (Fig. 6/7) ------------------------------------------------------------------ */

/* CPU seconds of the whole process (all threads: the program's, colio's progress and I/O threads). */
static double process_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Blocking step: the I/O, then the computation. Returns the step; *io gets the I/O part. */
static double blocking_step(kind_t k, char *buf, const opts_t *o, long long work, double *io)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    blocking_op(k, 0, buf, o->bytes);
    double t1 = MPI_Wtime();
    compute_iters(work);
    double t2 = MPI_Wtime();
    *io = slowest(t1 - t0);
    return slowest(t2 - t0);
}

/*
 * Nonblocking step: start, compute in slices (testing between them if
 * asked), wait. t[0] gets the initiation call, t[1] the computing part
 * (longer than alone when progress takes CPU from it), t[2] the time left
 * in the wait.
 */
static double nonblocking_step(kind_t k, char *buf, const opts_t *o, long long work, double t[4])
{
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = process_cpu(), t0 = MPI_Wtime();
    req_t req;
    die_on(start_op(k, 0, buf, o->bytes, &req), "start");
    double t1 = MPI_Wtime();
    for (int s = 0; s < o->slices; s++) {
        compute_iters(work / o->slices + (s < work % o->slices));
        if (o->test_calls && pending(&req))
            test_op(&req);
    }
    double t2 = MPI_Wtime();
    if (pending(&req))
        wait_op(&req);
    double t3 = MPI_Wtime();
    t[3] = process_cpu() - c0; /* the step's CPU, the computation's included */
    t[0] = slowest(t1 - t0);
    t[1] = slowest(t2 - t1);
    t[2] = slowest(t3 - t2);
    return slowest(t3 - t0);
}

static void overlap_kind(kind_t k, char *buf, const opts_t *o)
{
    int R = o->repeat;
    double *io = malloc(sizeof(double) * R), *cpu = malloc(sizeof(double) * R), *ccpu = malloc(sizeof(double) * R), *bc = malloc(sizeof(double) * R), *nbc = malloc(sizeof(double) * R),
           *comp = malloc(sizeof(double) * R), *part[3];
    for (int i = 0; i < 3; i++)
        part[i] = malloc(sizeof(double) * R);
    for (int r = 0; r < R; r++) /* the I/O alone: how much computation to pair with it */
        blocking_step(k, buf, o, 0, &io[r]);
    long long work = calibrate(median(io, R));
    for (int r = 0; r < R; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double c0 = process_cpu(), t0 = MPI_Wtime();
        compute_iters(work);
        comp[r] = slowest(MPI_Wtime() - t0);
        ccpu[r] = process_cpu() - c0;
    }
    for (int r = 0; r < R; r++) { /* alternate, so drifts hit both alike */
        bc[r] = blocking_step(k, buf, o, work, &io[r]);
        double t[4];
        nbc[r] = nonblocking_step(k, buf, o, work, t);
        for (int i = 0; i < 3; i++)
            part[i][r] = t[i];
        cpu[r] = t[3];
    }
    double t_io = median(io, R), t_comp = median(comp, R), t_bc = median(bc, R), t_nbc = median(nbc, R);
    double nb_cpu = slowest(median(cpu, R) - median(ccpu, R));
    if (rank == 0)
        printf("overlap %s bytes_per_rank %lld t_io %.6f t_compute %.6f t_blocking_step %.6f t_nonblocking_step "
               "%.6f hidden %.3f saved %.3f nb_start %.6f nb_compute %.6f nb_wait %.6f test_calls %d nb_cpu %.6f\n",
               kind_name[k], o->bytes, t_io, t_comp, t_bc, t_nbc, (t_bc - t_nbc) / t_io, 1.0 - t_nbc / t_bc,
               median(part[0], R), median(part[1], R), median(part[2], R), o->test_calls ? o->slices : 0,
               nb_cpu);
    free(cpu), free(ccpu), free(io), free(bc), free(nbc), free(comp), free(part[0]), free(part[1]), free(part[2]);
}

/* ---- outstanding operations (Fig. 8) ----------------------------------------------------- */

static double run_groups(kind_t k, char **bufs, const opts_t *o, int group)
{
    req_t reqs[REGIONS];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int g = 0; g < REGIONS; g += group) {
        for (int i = 0; i < group; i++)
            die_on(start_op(k, (MPI_Offset)(g + i) * o->bytes, bufs[g + i], o->bytes, &reqs[i]), "start");
        waitall_ops(group, reqs);
    }
    return slowest(MPI_Wtime() - t0);
}

static double run_blocking(kind_t k, char **bufs, const opts_t *o)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < REGIONS; i++)
        blocking_op(k, (MPI_Offset)i * o->bytes, bufs[i], o->bytes);
    return slowest(MPI_Wtime() - t0);
}

static void outstanding_kind(kind_t k, char **bufs, const opts_t *o)
{
    double *t = malloc(sizeof(double) * o->repeat), base = 0;
    for (int r = 0; r < o->repeat; r++)
        t[r] = run_blocking(k, bufs, o);
    double blocking = median(t, o->repeat);
    for (int group = 1; group <= REGIONS; group *= 2) {
        for (int r = 0; r < o->repeat; r++)
            t[r] = run_groups(k, bufs, o, group);
        double m = median(t, o->repeat);
        if (group == 1)
            base = m;
        if (rank == 0)
            printf("outstanding %s k %d ops %d bytes_per_rank %lld t %.6f normalised %.3f t_blocking %.6f\n",
                   kind_name[k], group, REGIONS, o->bytes, m, m / base, blocking);
    }
    free(t);
}

/* ---- verification ------------------------------------------------------------------------ */

/* Read every region written back (blocking) and compare with what was written. */
static int verify(int regions, const opts_t *o)
{
    char *want = malloc((size_t)o->bytes), *back = malloc((size_t)o->bytes);
    int bad = 0, any = 0;
    for (int i = 0; i < regions; i++) {
        region_data(want, o->bytes, i);
        blocking_op(READ, (MPI_Offset)i * o->bytes, back, o->bytes);
        bad |= memcmp(back, want, (size_t)o->bytes) != 0;
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("verify %s\n", any ? "FAILED" : "ok");
    free(want), free(back);
    return any;
}

static int run(const opts_t *o)
{
    int outstanding = !strcmp(o->what, "outstanding"), regions = outstanding ? REGIONS : 1;
    char *wbufs[REGIONS], *rbufs[REGIONS];
    for (int i = 0; i < regions; i++) {
        wbufs[i] = malloc((size_t)o->bytes), rbufs[i] = malloc((size_t)o->bytes);
        if (!wbufs[i] || !rbufs[i])
            die_on(COLIO_ERR_NOMEM, "buffer allocation");
        region_data(wbufs[i], o->bytes, i);
    }
    if (outstanding) {
        outstanding_kind(WRITE, wbufs, o);
        outstanding_kind(READ, rbufs, o);
    } else {
        overlap_kind(WRITE, wbufs[0], o);
        overlap_kind(READ, rbufs[0], o);
    }
    int bad = verify(regions, o);
    for (int i = 0; i < regions; i++) /* the reads above must have returned the written bytes too */
        bad |= memcmp(rbufs[i], wbufs[i], (size_t)o->bytes) != 0;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < regions; i++)
        free(wbufs[i]), free(rbufs[i]);
    return any;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: colio-nbbench [--path P] [--bytes B] [--piece N] [--repeat R] [--slices S] "
                        "[--test-calls] [--hints \"k=v;k=v\"] [--engine colio|mpiio] [overlap|outstanding]\n");
    MPI_Finalize();
    exit(2);
}

static void parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t){.path = "/dev/shm/colio-nbbench.dat", .what = "overlap", .bytes = 8 << 20, .piece = 4096,
                  .repeat = 5, .slices = 100};
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
        else if (!strcmp(a, "--slices") && v)
            o->slices = atoi(v), i++;
        else if (!strcmp(a, "--test-calls"))
            o->test_calls = 1;
        else if (!strcmp(a, "--hints") && v)
            o->hints = v, i++;
        else if (!strcmp(a, "--engine") && v && (!strcmp(v, "colio") || !strcmp(v, "mpiio")))
            use_mpiio = !strcmp(v, "mpiio"), i++;
        else if (!strcmp(a, "overlap") || !strcmp(a, "outstanding"))
            o->what = a;
        else
            usage();
    }
    if (o->bytes <= 0 || o->piece <= 0 || o->repeat <= 0 || o->slices <= 0)
        usage();
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
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    int rc = use_mpiio ? MPI_File_open(MPI_COMM_WORLD, o.path, amode, info, &mfh)
                       : colio_open(MPI_COMM_WORLD, o.path, amode, info, &cfh);
    MPI_Info_free(&info);
    if (rc != 0) {
        if (rank == 0)
            fprintf(stderr, "colio-nbbench: open %s: %s\n", o.path, use_mpiio ? "MPI_File_open failed" : colio_last_open_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    set_view(o.piece);
    if (rank == 0)
        printf("# colio-nbbench %s engine %s ranks %d thread_level %d piece %d repeat %d hints %s\n", o.what,
               use_mpiio ? "mpiio" : "colio", nprocs, provided, o.piece, o.repeat, o.hints ? o.hints : "(none)");
    int bad = run(&o);
    die_on(use_mpiio ? MPI_File_close(&mfh) : colio_close(&cfh), "close");
    if (rank == 0)
        remove(o.path);
    MPI_Finalize();
    return bad ? 1 : 0;
}
