/*
 * colio-bench: every workload through every engine, each operation repeated
 * after warm-ups, every byte verified independently (plain pread of what
 * was written, the generator's content for what was read), medians and
 * variability reported as a table and as JSON.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colio.h"
#include "run.h"

static int world_rank;
static MPI_Comm comm; /* the ranks of the current workload */
static int rank, nprocs; /* in comm */
static double t_begin;

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- file content ------------------------------------------------------------ */

static void fill_stream(unsigned char *buf, const bench_access_t *a, int64_t region, uint64_t seed)
{
    if (region >= 0) { /* ceiling: one contiguous region */
        bench_fill(buf, region, a->bytes, seed);
        return;
    }
    for (int64_t i = 0, pos = 0; i < a->n; pos += a->len[i], i++)
        bench_fill(buf + pos, a->off[i], a->len[i], seed);
}

/* Wrong bytes in buf against the content it should hold. */
static int64_t check_stream(const unsigned char *buf, const bench_access_t *a, int64_t region, uint64_t seed)
{
    if (region >= 0)
        return bench_check(buf, region, a->bytes, seed);
    int64_t bad = 0;
    for (int64_t i = 0, pos = 0; i < a->n; pos += a->len[i], i++)
        bad += bench_check(buf + pos, a->off[i], a->len[i], seed);
    return bad;
}

/* After a write: read this rank's bytes back independently (8 MiB windows) and check them. */
static int64_t verify_file(const char *path, const bench_access_t *a, int64_t region, uint64_t seed)
{
    bench_stored_t *f = bench_stored_open(path);
    if (f == NULL)
        return a->bytes ? a->bytes : 1;
    const int64_t window = 8 << 20;
    unsigned char *tmp = malloc((size_t)window);
    int64_t bad = 0, wlo = 0, whi = 0; /* file bytes [wlo, whi) are in tmp */
    int64_t n = region >= 0 ? 1 : a->n;
    for (int64_t i = 0; i < n; i++) {
        int64_t off = region >= 0 ? region : a->off[i], len = region >= 0 ? a->bytes : a->len[i];
        for (int64_t at = off; at < off + len;) {
            if (at < wlo || at >= whi) {
                wlo = at;
                whi = wlo + bench_stored_pread(f, tmp, window, wlo);
                if (whi == wlo) { /* short file: the rest is missing */
                    bad += off + len - at;
                    break;
                }
            }
            int64_t k = (off + len < whi ? off + len : whi) - at;
            bad += bench_check(tmp + (at - wlo), at, k, seed);
            at += k;
        }
    }
    free(tmp);
    bench_stored_close(f);
    return bad;
}

/*
 * World rank 0's process id, the same on every rank (set in main): in the scratch files' names, so
 * two runs in one directory (a benchmark beside the test suite) never write each other's files.
 */
static long run_id;

/* Before reads: the whole file holds the content, each rank writing its share. */
static void prepare_file(const char *path, const bench_access_t *a, uint64_t seed)
{
    if (rank == 0)
        bench_stored_remove(path);
    MPI_Barrier(comm);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    int64_t lo = a->file_size * rank / nprocs, hi = a->file_size * (rank + 1) / nprocs;
    const int64_t chunk = 8 << 20;
    unsigned char *tmp = malloc((size_t)chunk);
    for (int64_t at = lo; fd >= 0 && at < hi; at += chunk) {
        int64_t n = hi - at < chunk ? hi - at : chunk;
        bench_fill(tmp, at, n, seed);
        if (pwrite(fd, tmp, (size_t)n, at) != (ssize_t)n)
            fprintf(stderr, "colio-bench: rank %d: preparing %s failed\n", rank, path);
    }
    free(tmp);
    if (fd >= 0)
        close(fd);
    MPI_Barrier(comm);
}

/*
 * Before colio reads with colio_subfiles: the content as a subfiled file,
 * written through colio with those hints (each rank its share, one call);
 * the read is then checked against the known content as any other.
 */
static void prepare_subfiled(const char *path, const bench_access_t *a, uint64_t seed, const char *hints)
{
    if (rank == 0)
        bench_stored_remove(path);
    MPI_Barrier(comm);
    int64_t lo = a->file_size * rank / nprocs, hi = a->file_size * (rank + 1) / nprocs;
    unsigned char *tmp = malloc((size_t)(hi - lo) + 1);
    bench_fill(tmp, lo, hi - lo, seed);
    MPI_Info info = bench_info(hints, 0);
    colio_file *fh = NULL;
    int rc = colio_open(comm, path, MPI_MODE_WRONLY | MPI_MODE_CREATE, info, &fh);
    if (rc == COLIO_SUCCESS)
        rc = colio_write_at_all(fh, lo, tmp, hi - lo, MPI_BYTE, MPI_STATUS_IGNORE);
    if (fh && colio_close(&fh) != COLIO_SUCCESS && rc == COLIO_SUCCESS)
        rc = COLIO_ERR_IO;
    if (rc != COLIO_SUCCESS && rank == 0)
        fprintf(stderr, "colio-bench: preparing the subfiled %s failed: %s\n", path, colio_strerror(rc));
    MPI_Info_free(&info);
    free(tmp);
}

/* ---- one measured run ------------------------------------------------------------ */

typedef struct job {
    const bench_options_t *o;
    const char *workload;
    bench_size_t size;
    const bench_engine_t *engine;
    const char *engine_name;     /* as given: "colio:balanced" */
    int write;
    const char *path;
    const bench_access_t *a;
    int unstored;                /* colio on the null backend: nothing to verify */
    int subfiled;                /* colio with colio_subfiles: reads need the file prepared that way */
    int64_t region;              /* the engine's one contiguous region (ceiling), else -1 */
    bench_run_t *r;              /* the results */
    bench_sample_t *s;           /* the timed repeats' samples */
    int failed;
} job_t;

/* What the shared data buffer and the read file hold now: the job that filled or prepared them last. */
typedef struct stage_state {
    const job_t *filled;   /* buf holds the stream for this job's region (writes); NULL after a read */
    const job_t *prepared; /* the file was prepared for this job's reads (its layout); NULL: not yet */
} stage_state_t;

/* At most one line every 2 seconds: long runs show where they are, short ones stay quiet. */
static void progress(const job_t *j, int k, int total)
{
    static double last = -10;
    if (j->o->quiet || rank != 0 || MPI_Wtime() - last < 2)
        return;
    last = MPI_Wtime();
    fprintf(stderr, "[%7.1f s] %-11s %-6s %-7s %-5s %s %d/%d\n", MPI_Wtime() - t_begin, j->workload,
            bench_size_name(j->size), j->engine_name, j->write ? "write" : "read", k < 0 ? "warm-up" : "repeat",
            k < 0 ? -k : k + 1, k < 0 ? j->o->warmup : total);
}

/*
 * --drop-cache, before a read and untimed: the file's pages leave the page
 * cache, so the read meets the device. One rank a node (its page cache is
 * the node's): as root every clean page (the kernel's drop_caches, after a
 * sync), else the file's own (fdatasync, then POSIX_FADV_DONTNEED).
 */
static void drop_cache(const char *path)
{
    MPI_Comm node;
    int local = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (local == 0) {
        sync();
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
        int dropped = fd >= 0 && write(fd, "1", 1) == 1;
        if (fd >= 0)
            close(fd);
        if (!dropped && (fd = open(path, O_RDONLY)) >= 0) {
            fdatasync(fd);
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            close(fd);
        }
    }
    MPI_Barrier(comm);
}

/* One call: run it, verify it, gather the slowest rank's figures. Returns 0 or -1 (run failed). */
static int one_call(const job_t *j, unsigned char *buf, int64_t region, bench_sample_t *out, int64_t *bad_out,
                    char *err)
{
    const bench_access_t *a = j->a;
    char hints[1024];
    bench_engine_hints(j->engine_name, j->o->hints, hints, sizeof hints);
    bench_engine_ctx_t c = {comm, rank, nprocs, j->path, hints, j->o->use_lists, j->o->steps, j->o->sync};
    if (j->write) { /* the buffer was filled once for the job: writes leave it as it is */
        if (rank == 0)
            bench_stored_remove(j->path);
    } else {
        memset(buf, 0, (size_t)a->bytes);
        if (j->o->drop_cache)
            drop_cache(j->path);
    }
    bench_sample_t s = {0};
    char myerr[BENCH_ERR] = "";
    MPI_Barrier(comm);
    bench_rss_reset();
    int64_t rss0 = bench_rss_now();
    int rc = j->write ? j->engine->write(&c, a, buf, &s, myerr, sizeof myerr) : j->engine->read(&c, a, buf, &s, myerr, sizeof myerr);
    s.rss_extra = bench_rss_peak() - rss0;
    MPI_Barrier(comm);
    int64_t bad = rc || j->unstored ? 0
                                     : (j->write ? verify_file(j->path, a, region, j->o->params.seed)
                                                 : check_stream(buf, a, region, j->o->params.seed));
    /* the slowest rank's time and phases, the largest memory growth, any failure */
    double t[5] = {s.time, s.meta, s.data, s.io, s.compute}, tmax[5];
    MPI_Allreduce(t, tmax, 5, MPI_DOUBLE, MPI_MAX, comm);
    struct { double v; int r; } mine = {(double)s.rss_extra, rank}, big;
    MPI_Allreduce(&mine, &big, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    int agg = s.is_aggregator;
    MPI_Bcast(&agg, 1, MPI_INT, big.r, comm);
    int64_t mem = 0;
    MPI_Allreduce(&s.memory, &mem, 1, MPI_INT64_T, MPI_MAX, comm);
    int64_t bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT64_T, MPI_SUM, comm);
    struct { int failed, r; } f = {rc != 0, rc != 0 ? rank : nprocs}, ff;
    MPI_Allreduce(&f.failed, &ff.failed, 1, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(&f.r, &ff.r, 1, MPI_INT, MPI_MIN, comm);
    if (ff.failed) {
        MPI_Bcast(myerr, BENCH_ERR, MPI_CHAR, ff.r, comm);
        snprintf(err, BENCH_ERR, "rank %d: %.*s", ff.r, BENCH_ERR - 24, myerr); /* room for the prefix */
        return -1;
    }
    *out = (bench_sample_t){.time = tmax[0], .meta = tmax[1], .data = tmax[2], .io = tmax[3], .compute = tmax[4],
                            .rss_extra = (int64_t)big.v, .memory = mem, .is_aggregator = agg};
    double ex[2] = {s.exch_min, s.exch_max}, exmax[2]; /* agreed by colio already: the same everywhere */
    MPI_Allreduce(ex, exmax, 2, MPI_DOUBLE, MPI_MAX, comm);
    out->exch_min = exmax[0], out->exch_max = exmax[1];
    MPI_Allreduce(&s.messages, &out->messages, 1, MPI_INT64_T, MPI_MAX, comm);
    memcpy(out->kernels, s.kernels, sizeof out->kernels); /* rank 0 reports: kernels are chosen collectively */
    memcpy(out->placement, s.placement, sizeof out->placement); /* ... and so are placements and their metrics */
    out->hop_bytes = s.hop_bytes, out->max_link_bytes = s.max_link_bytes;
    memcpy(out->strategy, s.strategy, sizeof out->strategy); /* agreed: the same path on every rank */
    out->predicted_two_phase = s.predicted_two_phase, out->predicted_direct = s.predicted_direct;
    *bad_out = bad_all;
    return 0;
}

/* Median of one double field of the samples (scratch holds n doubles). */
static double median_of(const bench_sample_t *s, int n, size_t field, double *scratch)
{
    for (int i = 0; i < n; i++)
        scratch[i] = *(const double *)((const char *)&s[i] + field);
    return median(scratch, n);
}

static void summarize(bench_run_t *r, bench_sample_t *s, int n)
{
    double *v = malloc(sizeof(double) * (size_t)n);
    double sum = 0, sq = 0;
    r->min = INFINITY, r->max = 0;
    r->rss_extra = 0;
    for (int i = 0; i < n; i++) {
        sum += s[i].time;
        sq += s[i].time * s[i].time;
        r->min = s[i].time < r->min ? s[i].time : r->min;
        r->max = s[i].time > r->max ? s[i].time : r->max;
        if (s[i].rss_extra > r->rss_extra)
            r->rss_extra = s[i].rss_extra, r->rss_aggregator = s[i].is_aggregator;
        if (s[i].memory > r->memory)
            r->memory = s[i].memory;
    }
    r->repeats = n;
    r->times = malloc(sizeof(double) * (size_t)n); /* in repeat order: --interleave pairs them across engines */
    for (int i = 0; i < n && r->times; i++)
        r->times[i] = s[i].time;
    r->mean = sum / n;
    r->std = n > 1 ? sqrt(fmax(0, (sq - sum * sum / n) / (n - 1))) : 0;
    r->cov = r->mean > 0 ? r->std / r->mean : 0;
    r->median = median_of(s, n, offsetof(bench_sample_t, time), v);
    r->meta = median_of(s, n, offsetof(bench_sample_t, meta), v);
    r->data = median_of(s, n, offsetof(bench_sample_t, data), v);
    r->io = median_of(s, n, offsetof(bench_sample_t, io), v);
    r->compute = median_of(s, n, offsetof(bench_sample_t, compute), v);
    r->exch_min = median_of(s, n, offsetof(bench_sample_t, exch_min), v);
    r->exch_max = median_of(s, n, offsetof(bench_sample_t, exch_max), v);
    r->messages = s[n - 1].messages;
    memcpy(r->kernels, s[n - 1].kernels, sizeof r->kernels);
    memcpy(r->placement, s[n - 1].placement, sizeof r->placement);
    r->hop_bytes = s[n - 1].hop_bytes, r->max_link_bytes = s[n - 1].max_link_bytes;
    memcpy(r->strategy, s[n - 1].strategy, sizeof r->strategy);
    r->predicted_two_phase = s[n - 1].predicted_two_phase, r->predicted_direct = s[n - 1].predicted_direct;
    free(v);
}

static void job_begin(job_t *j, bench_run_t *r)
{
    const bench_options_t *o = j->o;
    snprintf(r->workload, sizeof r->workload, "%s", j->workload);
    snprintf(r->size, sizeof r->size, "%s", bench_size_name(j->size));
    snprintf(r->engine, sizeof r->engine, "%s", j->engine_name);
    snprintf(r->op, sizeof r->op, "%s", j->write ? "write" : "read");
    snprintf(r->desc, sizeof r->desc, "%s", j->a->desc);
    r->bytes = j->a->total_bytes;
    r->nprocs = nprocs;
    r->pieces = j->a->total_pieces;
    r->verified = 1;
    r->unstored = j->unstored;
    bench_engine_ctx_t c = {comm, rank, nprocs, j->path, o->hints, o->use_lists, o->steps, o->sync};
    j->region = j->engine->region ? j->engine->region(&c, j->a) : -1;
    j->r = r;
    j->s = calloc((size_t)o->repeat, sizeof *j->s);
    j->failed = 0;
}

/* What a call needs before it: the stream in the buffer (writes), the file in this job's layout (reads). */
static void stage_for(const job_t *j, unsigned char *buf, stage_state_t *st)
{
    if (j->write) {
        if (st->filled == NULL || st->filled->region != j->region)
            fill_stream(buf, j->a, j->region, j->o->params.seed);
        st->filled = j;
        return;
    }
    st->filled = NULL; /* the read overwrites the buffer */
    if (st->prepared && st->prepared->subfiled == j->subfiled && (!j->subfiled || st->prepared == j))
        return;
    if (j->subfiled) {
        char hints[1024];
        bench_engine_hints(j->engine_name, j->o->hints, hints, sizeof hints);
        prepare_subfiled(j->path, j->a, j->o->params.seed, hints);
    } else {
        prepare_file(j->path, j->a, j->o->params.seed);
    }
    st->prepared = j;
}

/* Repeat k of a job (k < 0: a warm-up): stage, run, verify, keep the sample. A failure ends the job. */
static void job_call(job_t *j, int k, unsigned char *buf, stage_state_t *st)
{
    bench_run_t *r = j->r;
    if (j->failed)
        return;
    progress(j, k, j->o->repeat);
    stage_for(j, buf, st);
    bench_sample_t one;
    int64_t bad = 0;
    if (one_call(j, buf, j->region, &one, &bad, r->error) != 0) {
        r->verified = 0, j->failed = 1;
        if (rank == 0)
            fprintf(stderr, "colio-bench: %s %s %s %s FAILED: %s\n", r->workload, r->size, r->engine, r->op, r->error);
        return;
    }
    if (bad) {
        r->verified = 0;
        snprintf(r->error, sizeof r->error, "%lld wrong bytes", (long long)bad);
        if (rank == 0)
            fprintf(stderr, "colio-bench: %s %s %s %s: WRONG DATA: %lld bytes differ from the expected content\n",
                    r->workload, r->size, r->engine, r->op, (long long)bad);
    }
    if (k >= 0)
        j->s[k] = one;
}

static void job_end(job_t *j)
{
    if (!j->failed)
        summarize(j->r, j->s, j->o->repeat);
    free(j->s);
}

/*
 * One operation's jobs (one per engine): each job's warm-ups and repeats in turn, or with
 * --interleave every engine once per repeat, so the machine's drift over the run falls on all
 * engines alike and each repeat gives a pair of times (x_mpiio: the median of the pairs' ratios).
 * The order is shuffled each repeat (the same on every rank): what one engine leaves behind
 * (after alltoallv's freed buffers the next engine's 0.4 ms read took 0.1 ms more here) falls on
 * each in turn, not always on the one that follows it.
 */
/* 0..n-1 in an order drawn from seed (Fisher-Yates, xorshift64): the same on every rank. */
static void shuffled(int *order, int n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull | 1;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
}

static void run_jobs(job_t *jobs, int n, unsigned char *buf, stage_state_t *st)
{
    const bench_options_t *o = jobs[0].o;
    if (o->interleave) {
        for (int e = 0; e < n; e++)
            for (int k = -o->warmup; k < 0; k++)
                job_call(&jobs[e], k, buf, st);
        for (int k = 0; k < o->repeat; k++) {
            int order[BENCH_MAX_LIST];
            shuffled(order, n, (uint64_t)k + 1);
            for (int e = 0; e < n; e++)
                job_call(&jobs[order[e]], k, buf, st);
        }
    } else {
        for (int e = 0; e < n; e++)
            for (int k = -o->warmup; k < o->repeat; k++)
                job_call(&jobs[e], k, buf, st);
    }
    for (int e = 0; e < n; e++)
        job_end(&jobs[e]);
}

/* ---- the matrix ------------------------------------------------------------------ */

/*
 * The ranks' data buffer: from malloc, or --buffer-offset bytes past a page.
 * Under SimGrid SMPI, when no run stores bytes (every engine is colio on
 * the null backend, so nothing is verified), all simulated ranks share one
 * buffer (SMPI_SHARED_MALLOC): TAPIOCA-sized workloads at thousands of
 * ranks then fit in memory (docs/SCALE.md).
 */
static void *data_base; /* what data_free frees */

static void *plain_alloc(const bench_options_t *o, size_t bytes)
{
    if (o->buffer_offset < 0)
        return data_base = malloc(bytes);
    if (posix_memalign(&data_base, 4096, bytes + (size_t)o->buffer_offset) != 0)
        return data_base = NULL;
    return (char *)data_base + o->buffer_offset;
}

#ifdef COLIO_SMPI
static int shared_data;
static void *data_alloc(const bench_options_t *o, size_t bytes)
{
    shared_data = 1;
    for (int e = 0; e < o->nengines; e++) {
        char hints[1024];
        bench_engine_hints(o->engines[e], o->hints, hints, sizeof hints);
        if (strncmp(o->engines[e], "colio", 5) != 0 || !bench_stores_nothing(hints))
            shared_data = 0;
    }
    return shared_data ? SMPI_SHARED_MALLOC(bytes) : plain_alloc(o, bytes);
}
static void data_free(void *buf)
{
    if (shared_data)
        SMPI_SHARED_FREE(buf);
    else
        free(data_base);
}
#else
static void *data_alloc(const bench_options_t *o, size_t bytes) { return plain_alloc(o, bytes); }
static void data_free(void *buf)
{
    (void)buf;
    free(data_base);
}
#endif

static int run_workload(const bench_options_t *o, const char *wname, bench_size_t size, int64_t block,
                        bench_run_t *runs, int *nruns)
{
    const bench_workload_t *w = bench_workload_find(wname);
    bench_params_t p = o->params;
    p.size = size;
    p.comm = comm;
    p.block = block;
    char label[32]; /* the workload's name, with its block size when a --block list sweeps it */
    if (o->nblocks > 1 && w->uses_block)
        snprintf(label, sizeof label, "%s/%lld", wname, (long long)block);
    else
        snprintf(label, sizeof label, "%s", wname);
    bench_access_t a;
    char err[BENCH_ERR] = "";
    memset(&a, 0, sizeof a);
    a.filetype = MPI_DATATYPE_NULL;
    int rc = w->generate(&p, rank, nprocs, &a, err, sizeof err), any;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MIN, comm);
    if (any == 0)
        rc = bench_access_finish(&a, comm, err, sizeof err);
    else
        rc = -1;
    if (rc != 0) {
        if (rank == 0)
            fprintf(stderr, "colio-bench: %s %s skipped: %s\n", wname, bench_size_name(size), err[0] ? err : "a rank failed");
        bench_access_free(&a);
        return -1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/colio-bench.%ld.%s.dat", o->dir, run_id, wname);
    unsigned char *buf = data_alloc(o, (size_t)a.bytes + 1);
    stage_state_t st = {NULL, NULL};
    job_t jobs[BENCH_MAX_LIST];
    for (int op = 0; op < o->nops; op++) {
        for (int e = 0; e < o->nengines; e++) {
            job_t *j = &jobs[e];
            *j = (job_t){.o = o, .workload = label, .size = size, .engine = bench_engine_find(o->engines[e]),
                          .engine_name = o->engines[e], .write = o->ops[op], .path = path, .a = &a};
            char hints[1024];
            bench_engine_hints(j->engine_name, o->hints, hints, sizeof hints);
            int colio = strncmp(j->engine_name, "colio", 5) == 0;
            j->unstored = colio && bench_stores_nothing(hints);
            j->subfiled = colio && bench_subfiles(hints); /* other engines read the same bytes as one file */
            job_begin(j, &runs[(*nruns)++]);
        }
        run_jobs(jobs, o->nengines, buf, &st);
        st.prepared = NULL; /* a write job may have removed the file */
    }
    if (rank == 0)
        bench_stored_remove(path);
    data_free(buf);
    bench_access_free(&a);
    return 0;
}

/* Run a workload on the ranks it wants (all, or e.g. a square count): the others wait. */
/* Preloaded or linked libcolio_mpiio turns engine "mpiio" into colio: say so in the header. */
static void label_interposer(char *lib, size_t len)
{
    const char *off = getenv("COLIO_DISABLE");
    if (dlsym(RTLD_DEFAULT, "colio_mpiio_interposer") != NULL && !(off && *off && strcmp(off, "0") != 0))
        strncat(lib, " + libcolio_mpiio (engine mpiio runs colio)", len - strlen(lib) - 1);
}

static int run_on_ranks(const bench_options_t *o, const char *wname, bench_size_t size, int64_t block, int world_size,
                        bench_run_t *runs, int *nruns)
{
    const bench_workload_t *w = bench_workload_find(wname);
    int want = w->ranks ? w->ranks(world_size) : world_size, failed = 0;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < want ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &nprocs);
        failed = run_workload(o, wname, size, block, runs, nruns) != 0;
        MPI_Comm_free(&comm);
    }
    /* rank 0 of the world ran it: it holds the results; everyone agrees on failure */
    int any;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    run_id = (long)getpid();
    MPI_Bcast(&run_id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    int world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    t_begin = MPI_Wtime();
    bench_options_t o;
    int prc = bench_parse(argc, argv, &o, world_rank);
    if (prc != 0) {
        MPI_Finalize();
        return prc > 0 ? 0 : 2;
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = '\0';
    label_interposer(lib, sizeof lib);
    int nblocks = o.nblocks > 1 ? o.nblocks : 1;
    int cap = o.nworkloads * o.nsizes * nblocks * o.nengines * o.nops, nruns = 0, failed = 0;
    bench_run_t *runs = calloc((size_t)cap + 1, sizeof *runs);
    for (int s = 0; s < o.nsizes; s++)
        for (int w = 0; w < o.nworkloads; w++)
            for (int b = 0; b < (bench_workload_find(o.workloads[w])->uses_block ? nblocks : 1); b++)
                failed |= run_on_ranks(&o, o.workloads[w], o.sizes[s], o.nblocks > 1 ? o.blocks[b] : o.params.block,
                                       world_size, runs, &nruns) != 0;
    for (int i = 0; i < nruns; i++)
        failed |= !runs[i].verified;
    if (world_rank == 0) {
        bench_report(&o, runs, nruns, world_size, lib);
        if (o.json && bench_report_json(o.json, &o, runs, nruns, world_size, lib) != 0)
            fprintf(stderr, "colio-bench: cannot write %s\n", o.json), failed = 1;
        if (failed)
            fprintf(stderr, "colio-bench: SOME RUNS FAILED OR READ WRONG BYTES (see above)\n");
    }
    for (int i = 0; i < nruns; i++)
        free(runs[i].times);
    free(runs);
    MPI_Finalize();
    return failed ? 1 : 0;
}
