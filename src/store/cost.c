/* Storage figures: their words, the hint that gives them, the cache file and the probe (cost.h). */
#define _GNU_SOURCE /* O_CLOEXEC, strtok_r */
#include "store/cost.h"
#include "store/dio.h"

#include <errno.h>
#include <limits.h>
#include <math.h> /* isfinite: a macro, no maths library */
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

/* ---- words and defaults ------------------------------------------------------------ */

static int64_t to_ps(double s) { return (int64_t)(s * 1e12 + 0.5); }
static int64_t to_milli(double x) { return (int64_t)(x * 1e3 + 0.5); }

void colio_figures_pack(const colio_store_figures_t *f, int64_t w[COLIO_FIGURES_WORDS])
{
    w[0] = to_ps(f->write_call), w[1] = (int64_t)f->write_bw;
    w[2] = to_ps(f->read_call), w[3] = (int64_t)f->read_bw;
    w[4] = (int64_t)f->copy_bw;
    w[5] = to_milli(f->write_streams), w[6] = to_milli(f->read_streams);
    w[7] = to_milli(f->write_call_streams), w[8] = to_milli(f->read_call_streams);
    w[9] = f->shared;
    w[10] = f->fixed;
    w[11] = (int64_t)f->direct_write_bw, w[12] = (int64_t)f->direct_read_bw;
    w[13] = f->direct_write_call < 0 ? -1 : to_ps(f->direct_write_call);
    w[14] = f->direct_read_call < 0 ? -1 : to_ps(f->direct_read_call);
    w[15] = (int64_t)f->flushed_write_bw;
}

void colio_figures_unpack(const int64_t w[COLIO_FIGURES_WORDS], colio_store_figures_t *f)
{
    f->write_call = (double)w[0] * 1e-12, f->write_bw = (double)w[1];
    f->read_call = (double)w[2] * 1e-12, f->read_bw = (double)w[3];
    f->copy_bw = (double)w[4];
    f->write_streams = (double)w[5] * 1e-3, f->read_streams = (double)w[6] * 1e-3;
    f->write_call_streams = (double)w[7] * 1e-3, f->read_call_streams = (double)w[8] * 1e-3;
    f->shared = (int)w[9];
    f->fixed = (int)w[10];
    f->direct_write_bw = (double)w[11], f->direct_read_bw = (double)w[12];
    f->direct_write_call = w[13] < 0 ? -1 : (double)w[13] * 1e-12;
    f->direct_read_call = w[14] < 0 ? -1 : (double)w[14] * 1e-12;
    f->flushed_write_bw = (double)w[15];
}

/* A parallel file system seen from one client: tens of microseconds a call, a GB/s or two. */
void colio_figures_default(colio_store_figures_t *f)
{
    *f = (colio_store_figures_t){.write_call = 50e-6, .write_bw = 1e9, .read_call = 50e-6, .read_bw = 2e9,
                                 .copy_bw = 5e9, .write_streams = 1, .read_streams = 1, .write_call_streams = 2,
                                 .read_call_streams = 2, .flushed_write_bw = -1, .direct_write_bw = -1, .direct_read_bw = -1,
                                 .direct_write_call = -1, .direct_read_call = -1,
                                 .shared = 1};
}

/*
 * Bytes through a page cache move by a memory copy, so no bandwidth of the
 * file system beats copy_bw, which is measured over buffers beyond the
 * caches. The probe's 8 MiB call can stay in a large cache and come out
 * faster (reads 8-11 GB/s here against copies of 5.6-6.9 GB/s, where reads
 * of 32 MiB and more took 4-4.5 GB/s): the model then took sieved reads of
 * 4 MiB pieces behind 1 ms calls for cheaper than one call per piece, and
 * they were 25% slower (colio-bench behind colio_fault=delay, 4 MiB reads).
 */
static void bandwidths_within_copy(colio_store_figures_t *f)
{
    f->read_bw = f->read_bw < f->copy_bw ? f->read_bw : f->copy_bw;
    f->write_bw = f->write_bw < f->copy_bw ? f->write_bw : f->copy_bw;
    f->direct_read_bw = f->direct_read_bw < f->copy_bw ? f->direct_read_bw : f->copy_bw; /* the same test */
    f->direct_write_bw = f->direct_write_bw < f->copy_bw ? f->direct_write_bw : f->copy_bw;
}

/* A node's file system whose calls wait (write_call_streams 2, assumed by the probe): writers go in turn (1). */
static void writers_in_turn_where_calls_wait(colio_store_figures_t *f)
{
    if (!f->shared && f->write_call_streams >= 2 && f->write_streams < 1)
        f->write_streams = 1;
}

/* ---- the hint ---------------------------------------------------------------------- */

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || v < 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1e3, end++; break;
    case 'M': v *= 1e6, end++; break;
    case 'G': v *= 1e9, end++; break;
    default: break;
    }
    *out = v;
    return *end == '\0' ? 0 : -1;
}

/* Figure `key` of f, or NULL for an unknown key. */
static double *figure_named(colio_store_figures_t *f, const char *key)
{
    static const struct {
        const char *key;
        size_t off;
    } names[] = {
        {"write_call", offsetof(colio_store_figures_t, write_call)},
        {"write_bw", offsetof(colio_store_figures_t, write_bw)},
        {"read_call", offsetof(colio_store_figures_t, read_call)},
        {"read_bw", offsetof(colio_store_figures_t, read_bw)},
        {"copy_bw", offsetof(colio_store_figures_t, copy_bw)},
        {"write_streams", offsetof(colio_store_figures_t, write_streams)},
        {"read_streams", offsetof(colio_store_figures_t, read_streams)},
        {"write_call_streams", offsetof(colio_store_figures_t, write_call_streams)},
        {"read_call_streams", offsetof(colio_store_figures_t, read_call_streams)},
        {"flushed_write_bw", offsetof(colio_store_figures_t, flushed_write_bw)},
        {"direct_write_bw", offsetof(colio_store_figures_t, direct_write_bw)},
        {"direct_read_bw", offsetof(colio_store_figures_t, direct_read_bw)},
        {"direct_write_call", offsetof(colio_store_figures_t, direct_write_call)},
        {"direct_read_call", offsetof(colio_store_figures_t, direct_read_call)},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i].key, key) == 0)
            return (double *)((char *)f + names[i].off);
    return NULL;
}

/* Bandwidths and call costs the words carry (and a model can use): finite, in these bounds. */
#define FIG_BW_MIN 1e3
#define FIG_BW_MAX 1e15
#define FIG_CALL_MAX 10.0

static int in_range(double x, double lo, double hi) { return isfinite(x) && x >= lo && x <= hi; }

/* Whether f can drive a choice: bandwidths and costs in range, streams in [0.25, 2]. */
static int figures_sane(const colio_store_figures_t *f)
{
    const double s[4] = {f->write_streams, f->read_streams, f->write_call_streams, f->read_call_streams};
    for (int i = 0; i < 4; i++)
        if (!in_range(s[i], 0.25, 2))
            return 0;
    const double d[3] = {f->direct_write_bw, f->direct_read_bw, f->flushed_write_bw}; /* -1 unknown, 0 refused */
    for (int i = 0; i < 3; i++)
        if (d[i] != -1 && d[i] != 0 && !in_range(d[i], FIG_BW_MIN, FIG_BW_MAX))
            return 0;
    if ((f->direct_write_call != -1 && !in_range(f->direct_write_call, 0, FIG_CALL_MAX)) ||
        (f->direct_read_call != -1 && !in_range(f->direct_read_call, 0, FIG_CALL_MAX)))
        return 0;
    return in_range(f->write_bw, FIG_BW_MIN, FIG_BW_MAX) && in_range(f->read_bw, FIG_BW_MIN, FIG_BW_MAX) &&
           in_range(f->copy_bw, FIG_BW_MIN, FIG_BW_MAX) && in_range(f->write_call, 0, FIG_CALL_MAX) &&
           in_range(f->read_call, 0, FIG_CALL_MAX);
}

/* "key=value,..." over the defaults (keys the figures do not have: -1; date=EPOCH into *date when given). */
static int parse_list(const char *spec, colio_store_figures_t *f, int64_t *date)
{
    char buf[512], *save = NULL;
    if (spec[0] == '\0' || strlen(spec) >= sizeof buf)
        return -1;
    strcpy(buf, spec);
    colio_figures_default(f);
    for (char *item = strtok_r(buf, ", ", &save); item; item = strtok_r(NULL, ", ", &save)) {
        char *eq = strchr(item, '=');
        if (eq == NULL)
            return -1;
        *eq = '\0';
        double v;
        if (parse_number(eq + 1, &v) != 0)
            return -1;
        if (strcmp(item, "shared") == 0) {
            if (v != 0 && v != 1)
                return -1;
            f->shared = (int)v;
            continue;
        }
        if (date && strcmp(item, "date") == 0) {
            *date = (int64_t)v;
            continue;
        }
        double *field = figure_named(f, item);
        if (field == NULL)
            return -1;
        *field = v;
    }
    return figures_sane(f) ? 0 : -1;
}

int colio_figures_parse(const char *spec, colio_store_figures_t *f, int *given)
{
    *given = 0;
    if (strcmp(spec, "probe") == 0 || strcmp(spec, "off") == 0)
        return 0;
    if (parse_list(spec, f, NULL) != 0)
        return -1;
    *given = 1;
    return 0;
}

/*
 * How much faster than buffered a direct call must have been measured: a
 * file system that takes O_DIRECT through its page cache anyway (tmpfs)
 * measures the two alike, within the probe's noise.
 */
#define DIRECT_GAIN 1.25

/* Bytes from which call + n / bw costs more than dcall + n / dbw (dcall -1: as call); INT64_MAX: never. */
static int64_t break_even(double call, double bw, double dcall, double dbw)
{
    if (!(dbw > DIRECT_GAIN * bw))
        return INT64_MAX;
    double n = ((dcall < 0 ? call : dcall) - call) / (1 / bw - 1 / dbw);
    return n <= 0 ? 0 : n >= 1e18 ? INT64_MAX : (int64_t)n + 1;
}

void colio_figures_direct(const colio_store_figures_t *f, int64_t *write_min, int64_t *read_min)
{
    double flushed = f->flushed_write_bw > 0 && f->flushed_write_bw < f->write_bw ? f->flushed_write_bw : f->write_bw;
    *write_min = break_even(f->write_call, flushed, f->direct_write_call, f->direct_write_bw);
    *read_min = break_even(f->read_call, f->read_bw, f->direct_read_call, f->direct_read_bw);
}

void colio_figures_as_direct(colio_store_figures_t *f, int writes, int reads)
{
    if (writes && f->direct_write_bw > 0 && f->direct_write_call >= 0)
        f->write_bw = f->direct_write_bw, f->write_call = f->direct_write_call;
    if (reads && f->direct_read_bw > 0 && f->direct_read_call >= 0)
        f->read_bw = f->direct_read_bw, f->read_call = f->direct_read_call;
}

void colio_figures_describe(const colio_store_figures_t *f, char *buf, int len)
{
    char direct[128] = "";
    if (f->direct_write_bw > 0 || f->direct_read_bw > 0)
        snprintf(direct, sizeof direct, ", flushed %.3gGB/s, O_DIRECT write %.2gs/call %.3gGB/s read %.2gs/call %.3gGB/s",
                 f->flushed_write_bw * 1e-9, f->direct_write_call, f->direct_write_bw * 1e-9, f->direct_read_call,
                 f->direct_read_bw * 1e-9);
    else if (f->direct_write_bw == 0)
        snprintf(direct, sizeof direct, ", no O_DIRECT");
    snprintf(buf, (size_t)len,
             "write %.2gs/call (x%.2f) %.3gGB/s (x%.2f), read %.2gs/call (x%.2f) %.3gGB/s (x%.2f), copy %.3gGB/s%s%s",
             f->write_call, f->write_call_streams, f->write_bw * 1e-9, f->write_streams, f->read_call,
             f->read_call_streams, f->read_bw * 1e-9, f->read_streams, f->copy_bw * 1e-9, direct,
             f->shared ? ", shared" : "");
}

/* ---- the cache file ---------------------------------------------------------------- */

const char *colio_figures_cache_file(const char *cache, char *buf, int len)
{
    if (strcmp(cache, "none") == 0)
        return NULL;
    int n = -1;
    const char *env = getenv("COLIO_STORAGE_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache[0])
        n = snprintf(buf, (size_t)len, "%s", cache);
    else if (env && strcmp(env, "none") == 0)
        return NULL;
    else if (env && *env)
        n = snprintf(buf, (size_t)len, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(buf, (size_t)len, "%s/colio/storage-figures", xdg);
    else if (home && *home)
        n = snprintf(buf, (size_t)len, "%s/.cache/colio/storage-figures", home);
    return n >= 0 && n < len ? buf : NULL; /* a name cut short would be another file */
}

static void format_line(char *line, size_t len, const char *key, const colio_store_figures_t *f)
{
    snprintf(line, len,
             "%s write_call=%.6g write_bw=%.6g read_call=%.6g read_bw=%.6g copy_bw=%.6g write_streams=%.3f "
             "read_streams=%.3f write_call_streams=%.3f read_call_streams=%.3f flushed_write_bw=%.6g "
             "direct_write_bw=%.6g direct_read_bw=%.6g direct_write_call=%.6g direct_read_call=%.6g shared=%d "
             "date=%lld\n",
             key, f->write_call, f->write_bw, f->read_call, f->read_bw, f->copy_bw, f->write_streams, f->read_streams,
             f->write_call_streams, f->read_call_streams, f->flushed_write_bw, f->direct_write_bw, f->direct_read_bw, f->direct_write_call,
             f->direct_read_call, f->shared, (long long)time(NULL));
}

/* Figures older than this are measured again: machines and their loads change. */
#define FIG_MAX_AGE (30 * 24 * 3600)

/* The figures of one line "KEY k=v ...", when its key is key and they are recent. */
static int line_figures(char *line, const char *key, colio_store_figures_t *f)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0 || line[n] != ' ')
        return -1;
    char *rest = line + n + 1, *nl = strchr(rest, '\n');
    if (nl)
        *nl = '\0';
    int64_t date = 0;
    if (parse_list(rest, f, &date) != 0 || f->direct_write_bw < 0 || f->direct_read_bw < 0 ||
        (f->direct_write_bw > 0 && f->direct_write_call < 0) || f->flushed_write_bw < 0)
        return -1; /* a line without the direct figures is measured again */
    int64_t age = (int64_t)time(NULL) - date;
    return age >= 0 && age <= FIG_MAX_AGE ? 0 : -1;
}

int colio_figures_cache_get(const char *file, const char *key, colio_store_figures_t *f)
{
    FILE *in = fopen(file, "r");
    if (in == NULL)
        return -1;
    char line[2048];
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, in))
        found = line_figures(line, key, f);
    fclose(in);
    if (found == 0) { /* lines written before the rules */
        bandwidths_within_copy(f);
        writers_in_turn_where_calls_wait(f);
    }
    return found;
}

/* mkdir -p of file's directory. */
static void make_parent(const char *file)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", file) >= (int)sizeof dir)
        return;
    for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(dir, 0755);
        *s = '/';
    }
}

int colio_figures_cache_put(const char *file, const char *key, const colio_store_figures_t *f)
{
    char tmp[PATH_MAX], line[2048];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", file) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    make_parent(file);
    int fd = mkstemp(tmp); /* a name of its own: never someone's planted link */
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        int e = errno;
        if (fd >= 0)
            close(fd), unlink(tmp);
        return -e;
    }
    fchmod(fd, 0644);
    FILE *in = fopen(file, "r"); /* the other file systems' lines stay */
    size_t n = strlen(key);
    while (in && fgets(line, sizeof line, in))
        if (!(strncmp(line, key, n) == 0 && line[n] == ' '))
            fputs(line, out);
    if (in)
        fclose(in);
    format_line(line, sizeof line, key, f);
    fputs(line, out);
    int rc = fclose(out) == 0 ? 0 : -errno;
    if (rc == 0 && rename(tmp, file) != 0) /* whole, for readers in other processes */
        rc = -errno;
    if (rc != 0)
        unlink(tmp);
    return rc;
}

/* ---- the probe --------------------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Small calls move one byte each: their time is the call's own cost, not bandwidth (a difference of two
   measurements came out 0 once, under load, and a model with free calls sends every call direct). */
enum { PROBE_BIG = 8 << 20, PROBE_SMALL = 1, PROBE_CALLS = 256, PROBE_GAP = 4096 };
/* No storage call costs less than entering the kernel. */
#define PROBE_CALL_MIN 50e-9
/*
 * The least a small call's best run must cost, per call, to count as
 * waiting: a one-byte call into a page cache costs about a microsecond; a
 * rank sharing its core with busy ones may still see wall time far above
 * its CPU time in some runs (a CI run under load took such calls for
 * waiting ones), never in the best of three at 10 us a call.
 */
#define PROBE_WAIT_MIN 10e-6

/* One thread's share of a measurement: calls of len bytes, gap apart from off on. */
typedef struct probe_part {
    int fd, write, calls;
    char *buf;
    int64_t len, off, gap;
    int rc;
    int sync; /* an fdatasync after the calls, inside the time */
} probe_part_t;

static int whole(int fd, int write, char *buf, int64_t len, int64_t off)
{
    while (len > 0) {
        ssize_t n = write ? pwrite(fd, buf, (size_t)len, off) : pread(fd, buf, (size_t)len, off);
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        buf += n, len -= n, off += n;
    }
    return 0;
}

static void *part_main(void *arg)
{
    probe_part_t *p = arg;
    for (int i = 0; i < p->calls && p->rc == 0; i++)
        p->rc = whole(p->fd, p->write, p->buf, p->len, p->off + (int64_t)i * p->gap);
    if (p->sync && p->rc == 0 && fdatasync(p->fd) != 0)
        p->rc = -errno;
    return NULL;
}

/* Seconds for the part alone (one thread), or split in two halves run by two threads at once; -1 on failure. */
static double run_parts_once(probe_part_t whole_part, int threads)
{
    probe_part_t p[2] = {whole_part, whole_part};
    if (threads == 2) {
        p[0].calls = whole_part.calls / 2;
        p[1].calls = whole_part.calls - p[0].calls;
        if (whole_part.calls == 1) /* one big call: its two halves */
            p[0].calls = p[1].calls = 1, p[0].len = whole_part.len / 2, p[1].len = whole_part.len - p[0].len,
            p[1].off += p[0].len, p[1].buf += p[0].len;
        else
            p[1].off += (int64_t)p[0].calls * whole_part.gap;
    }
    pthread_t t;
    double t0 = now();
    if (threads == 2 && pthread_create(&t, NULL, part_main, &p[1]) != 0)
        return -1;
    part_main(&p[0]);
    if (threads == 2)
        pthread_join(t, NULL);
    double dt = now() - t0;
    return p[0].rc || p[1].rc ? -1 : dt;
}

/* The best of three runs, each step bytes further than the one before (0: the same bytes again): the probe
   shares the node with whatever else runs there. */
static double best_run(probe_part_t part, int threads, int64_t step)
{
    double best = -1;
    for (int i = 0; i < 3; i++, part.off += step) {
        double t = run_parts_once(part, threads);
        if (t < 0)
            return -1;
        best = best < 0 || t < best ? t : best;
    }
    return best;
}

static double run_parts(probe_part_t part, int threads) { return best_run(part, threads, 0); }

/*
 * The best of three runs of small writes, each on pages not written before:
 * data written is mostly new, and a write that first allocates its page
 * costs 3-8x an overwrite (1-byte writes to new pages: 2.2-8.8 us against
 * 0.4-0.5 us on ext4, 1.2-1.5 us against 0.5 us on tmpfs). Costed as
 * overwrites, 4 KiB pieces of an interleaved write went one storage call
 * each, 1.1-1.7x slower than two-phase (colio-bench --workload
 * interleaved,lattice --block 4096 --sync, colio against
 * colio:romio_cb_write=enable, on ext4 and tmpfs).
 */
static double run_fresh(probe_part_t part) { return best_run(part, 1, (int64_t)part.calls * part.gap); }

/* Seconds a big call spent on its bytes: its time less the cost of a call, at least half its time. */
static double bytes_time(double t, double call) { return t - call > t / 2 ? t - call : t / 2; }

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * Whether calls that took cpu seconds of this thread in wall seconds mostly
 * waited (storage behind a network, a device queue, a delay) rather than
 * copied on this core. Calls that wait overlap across ranks even when each
 * rank has one core, so a bound rank need not assume they serialise. A
 * core shared with busy ranks also gives wall > cpu: compared with what a
 * spinning thread gets here.
 */
static int calls_waited(double cpu, double wall)
{
    if (wall <= 0)
        return 0;
    double t0 = now(), s0 = thread_cpu(), spin = wall < 0.05 ? wall : 0.05;
    while (now() - t0 < spin)
        ;
    double share = (thread_cpu() - s0) / (now() - t0);
    return cpu < wall * share / 2;
}

/* CPUs this thread may run on (a rank bound to a core has one). */
static int cpus_here(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* What a second stream adds: time alone over time as two halves at once, in [0.25, 2] (below 1: they contend). */
static double streams(probe_part_t part, double alone)
{
    double two = run_parts(part, 2);
    double s = two > 0 ? alone / two : 1;
    return s < 0.25 ? 0.25 : s > 2 ? 2 : s;
}

/* memcpy between buffers larger than most last-level caches (copies of user data usually are). */
static double copy_bandwidth(void)
{
    enum { LEN = 48 << 20 };
    char *src = malloc(LEN), *dst = malloc(LEN);
    double best = 1e30;
    if (src && dst) {
        memset(src, 1, LEN), memset(dst, 0, LEN);
        for (int i = 0; i < 2; i++) {
            double t0 = now();
            memcpy(dst, src, LEN);
            double dt = now() - t0;
            best = dt < best ? dt : best;
        }
        __asm__ volatile("" : : "r"(dst) : "memory"); /* the copies are used */
    }
    free(src), free(dst);
    return src && dst ? (double)LEN / (best > 0 ? best : 1e-9) : 5e9;
}

/*
 * The measurements, on an unlinked scratch file: a fresh 8 MiB write and
 * its overwrite (bandwidth), 256 writes of 512 bytes 4 KiB apart beyond it
 * (cost per call: what is left after their bytes), the same for reads, and,
 * where measure_streams, each of them again as two halves by two threads at
 * once (streams).
 */
static int probe_fd(int fd, char *buf, char *other, int measure_streams, colio_store_figures_t *f)
{
    probe_part_t big_w = {fd, 1, 1, buf, PROBE_BIG, 0, 0, 0, 0}, big_r = {fd, 0, 1, other, PROBE_BIG, 0, 0, 0, 0};
    probe_part_t small_w = {fd, 1, PROBE_CALLS, buf, PROBE_SMALL, PROBE_BIG, PROBE_GAP, 0, 0};
    probe_part_t small_r = small_w;
    small_r.write = 0, small_r.buf = other;
    double fresh = run_parts_once(big_w, 1), over = run_parts(big_w, 1);
    probe_part_t flushed_w = big_w;
    flushed_w.sync = 1;
    double flushed = run_parts(flushed_w, 1); /* an 8 MiB overwrite and its fdatasync */
    double c0 = thread_cpu(), w0 = now();
    double calls_w = run_fresh(small_w);
    double calls_w_cpu = thread_cpu() - c0, calls_w_wall = now() - w0; /* all three runs */
    double warm = run_parts(big_r, 1), big_read = run_parts(big_r, 1);
    double calls_r = run_parts(small_r, 1);
    if (fresh <= 0 || over <= 0 || calls_w <= 0 || warm <= 0 || big_read <= 0 || calls_r <= 0)
        return -EIO;
    f->write_call = calls_w / PROBE_CALLS;
    f->read_call = calls_r / PROBE_CALLS;
    f->write_call = f->write_call > PROBE_CALL_MIN ? f->write_call : PROBE_CALL_MIN;
    f->read_call = f->read_call > PROBE_CALL_MIN ? f->read_call : PROBE_CALL_MIN;
    /* the big call's time less one call's own cost: the model adds that cost per call (behind 1 ms calls
       the bandwidth came out 2.6 GB/s for a 3.9 GB/s copy) */
    f->write_bw = PROBE_BIG / bytes_time((fresh + over) / 2, f->write_call);
    f->flushed_write_bw = flushed > 0 ? PROBE_BIG / flushed : 0; /* 0: a file system that cannot sync */
    f->read_bw = PROBE_BIG / bytes_time(big_read, f->read_call);
    if (measure_streams) {
        f->write_streams = streams(big_w, over);
        f->read_streams = streams(big_r, big_read);
        f->write_call_streams = streams(small_w, run_parts(small_w, 1)); /* both on the pages written above */
        f->read_call_streams = streams(small_r, calls_r);
    } else { /* what a local file system's page cache gives */
        /* writers of one file take its lock in turn and slow each other down (2 ranks interleaving 4 KiB
           pieces on tmpfs here: 0.040-0.047 s for 64 MiB where one stream's figures say 0.023 s) */
        f->write_streams = 0.6, f->write_call_streams = 0.5;
        f->read_streams = f->read_call_streams = 2;
        /* calls that wait (1 ms behind a delay) overlap across ranks, and one rank's bytes mostly go through
           the lock while the other waits: in turn, not slowing each other (2-4 MiB writes behind 1 ms calls:
           64 MiB in 0.026-0.034 s, where 0.6 predicted 0.049 s for the bytes alone) */
        if (f->write_call >= PROBE_WAIT_MIN && calls_waited(calls_w_cpu, calls_w_wall))
            f->write_call_streams = 2, f->write_streams = 1;
    }
    f->copy_bw = copy_bandwidth();
    return 0;
}

/* Where the big direct calls go: beyond the buffered ones' pages, so no cached page is written back first. */
#define PROBE_DIRECT_OFF ((int64_t)4 * PROBE_BIG)

/* Small direct calls: aligned 4 KiB each, one block apart (no two merge into one device request). */
enum { PROBE_DIRECT_SMALL = 4096, PROBE_DIRECT_CALLS = 64 };

/*
 * Direct I/O on dfd (the scratch file opened with O_DIRECT, or -1): a
 * fresh 8 MiB write and its overwrite, then reads of it, and 4 KiB calls
 * within it, from page-aligned memory at aligned offsets; bandwidths 0
 * where the file system refuses it.
 */
static void probe_direct(int dfd, char *buf, char *other, colio_store_figures_t *f)
{
    f->direct_write_bw = f->direct_read_bw = f->direct_write_call = f->direct_read_call = 0; /* none */
    int64_t mem, off;
    if (dfd < 0 || colio_dio_alignment(dfd, 4096, &mem, &off) != 0 || mem > 4096 || PROBE_DIRECT_OFF % off ||
        PROBE_BIG % off)
        return;
    probe_part_t w = {dfd, 1, 1, buf, PROBE_BIG, PROBE_DIRECT_OFF, 0, 0, 0}, r = w;
    r.write = 0, r.buf = other;
    double fresh = run_parts_once(w, 1), c0 = thread_cpu(), w0 = now();
    double over = fresh > 0 ? run_parts(w, 1) : -1;
    double cpu = thread_cpu() - c0, wall = now() - w0; /* all three runs */
    double read = over > 0 ? run_parts(r, 1) : -1;
    probe_part_t sw = {dfd, 1, PROBE_DIRECT_CALLS, buf, PROBE_DIRECT_SMALL, PROBE_DIRECT_OFF, 2 * PROBE_DIRECT_SMALL, 0, 0};
    probe_part_t sr = sw;
    sr.write = 0, sr.buf = other;
    double calls_w = read > 0 ? run_parts(sw, 1) : -1, calls_r = calls_w > 0 ? run_parts(sr, 1) : -1;
    /* A file system that serves O_DIRECT by copying through its page cache (tmpfs) keeps the core busy the
       whole call: no different from buffered I/O, so counted as none. A device moving the bytes leaves it
       idle (8 MiB direct writes to an ext4 disk: 4% of the wall time on the core, on tmpfs all of it). */
    if (calls_r <= 0 || cpu >= wall / 2)
        return;
    /* one call each: its own cost is below the noise of 8 MiB through a device */
    f->direct_write_bw = PROBE_BIG / ((fresh + over) / 2), f->direct_read_bw = PROBE_BIG / read;
    double cw = calls_w / PROBE_DIRECT_CALLS - PROBE_DIRECT_SMALL / f->direct_write_bw;
    double cr = calls_r / PROBE_DIRECT_CALLS - PROBE_DIRECT_SMALL / f->direct_read_bw;
    f->direct_write_call = cw > PROBE_CALL_MIN ? cw : PROBE_CALL_MIN;
    f->direct_read_call = cr > PROBE_CALL_MIN ? cr : PROBE_CALL_MIN;
}

/* File systems whose files many nodes reach through their own clients (statfs f_type). */
static int is_network_fs(long type)
{
    static const long types[] = {0x6969 /* nfs */,         0x0BD00BD0 /* lustre */, 0x47504653 /* gpfs */,
                                 0x19830326 /* beegfs */, 0x00C36400 /* ceph */,   0xAAD7AAEA /* panfs */,
                                 0xFE534D42 /* smb2 */,    0xFF534D42 /* cifs */,   0x65735546 /* fuse */};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (type == types[i])
            return 1;
    return 0;
}

/* Which file system path is on: type and id, and for local ones the device (their ids may repeat). */
static int fs_key(const char *path, char *key, size_t len, int *network)
{
    struct statfs sf;
    struct stat sb;
    if (statfs(path, &sf) != 0 || stat(path, &sb) != 0)
        return -errno;
    unsigned id[2];
    memcpy(id, &sf.f_fsid, sizeof id);
    *network = is_network_fs((long)sf.f_type);
    if (*network)
        snprintf(key, len, "fs=%lx:%x:%x", (unsigned long)sf.f_type, id[0], id[1]);
    else
        snprintf(key, len, "fs=%lx:%x:%x:dev=%lx", (unsigned long)sf.f_type, id[0], id[1], (unsigned long)sb.st_dev);
    return 0;
}

/*
 * File systems in memory (statfs f_type: tmpfs, ramfs), whose O_DIRECT is
 * a copy through the page cache on the calling core: direct I/O there is
 * none, without measuring (the core-time test in probe_direct misreads a
 * loaded machine, where a descheduled probe's wall time outgrows its CPU).
 */
static int is_memory_fs(int fd)
{
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && ((long)sf.f_type == 0x01021994 || (long)sf.f_type == (long)0x858458f6);
}

/* Measure the file system of path's directory. */
static int probe_dir(const char *path, int measure_streams, colio_store_figures_t *f)
{
    char dir[PATH_MAX], scratch[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir ||
        snprintf(scratch, sizeof scratch, "%s/.colio-probe.XXXXXX", dirname(dir)) >= (int)sizeof scratch)
        return -ENAMETOOLONG;
    int fd = mkstemp(scratch); /* a name of its own: threads and nodes probing the same directory at once */
    if (fd < 0)
        return -errno;
    int dfd = is_memory_fs(fd) ? -1 : open(scratch, O_RDWR | O_DIRECT | O_CLOEXEC);
    unlink(scratch); /* nothing is left behind, whatever happens next */
    /* page-aligned, as colio's own buffers are: a read into memory 16 bytes off the file's alignment copies
       3-4x slower on some CPUs (docs/DESIGN.md, "Aligned reads"), and colio reads into none such */
    char *buf = NULL, *other = NULL;
    int rc = posix_memalign((void **)&buf, 4096, PROBE_BIG) == 0 && posix_memalign((void **)&other, 4096, PROBE_BIG) == 0
                 ? 0
                 : -ENOMEM;
    if (rc == 0) {
        memset(buf, 0x5a, PROBE_BIG);
        memset(other, 0, PROBE_BIG);
        rc = probe_fd(fd, buf, other, measure_streams, f);
    }
    if (rc == 0)
        probe_direct(dfd, buf, other, f);
    free(buf), free(other);
    if (dfd >= 0)
        close(dfd);
    close(fd);
    return rc;
}

#define KEPT_MAX 16
static struct {
    char key[160];
    colio_store_figures_t f;
} kept[KEPT_MAX];
static int nkept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static int kept_get(const char *key, colio_store_figures_t *f)
{
    int found = 0;
    pthread_mutex_lock(&kept_lock);
    for (int i = 0; i < nkept && !found; i++)
        if (strcmp(kept[i].key, key) == 0)
            *f = kept[i].f, found = 1;
    pthread_mutex_unlock(&kept_lock);
    return found;
}

static void kept_put(const char *key, const colio_store_figures_t *f)
{
    pthread_mutex_lock(&kept_lock);
    int i = 0;
    while (i < nkept && strcmp(kept[i].key, key) != 0)
        i++;
    if (i == nkept)
        i = nkept < KEPT_MAX ? nkept++ : KEPT_MAX - 1;
    snprintf(kept[i].key, sizeof kept[i].key, "%s", key);
    kept[i].f = *f;
    pthread_mutex_unlock(&kept_lock);
}

/*
 * Whether two threads of the probing rank can stand for several ranks
 * sharing the storage: only on a network file system, and only where the
 * rank has two CPUs (a rank bound to one core cannot run two streams).
 * Writers of one file through a local page cache take the file's lock in
 * turn, however many cores: two threads measured that as one stream's
 * speed (0.96-0.98) where two ranks writing pieces of one file get half of
 * it (the assumed 0.5-0.6), and while the other ranks wait in the open,
 * MPI's polling takes the cores the second thread needs. Measured streams
 * on tmpfs sent the E3SM G write direct, 2.5x slower than two-phase,
 * whenever ranks were not bound (colio-bench --workload e3sm, its G case).
 */
static int streams_measurable(int network) { return network && cpus_here() >= 2; }

/* One probe at a time in a process (threads opening files on one file system probe it once). */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

int colio_figures_of_path(const char *path, const char *cache, colio_store_figures_t *f)
{
    char key[160], fbuf[PATH_MAX];
    int network = 0;
    colio_figures_default(f);
    int rc = fs_key(path, key, sizeof key, &network);
    if (rc != 0)
        return rc;
    int measure_streams = streams_measurable(network);
    if (!measure_streams) /* the streams are assumed, not measured: kept apart from measured ones */
        strncat(key, ":assumed", sizeof key - strlen(key) - 1);
    if (kept_get(key, f))
        return 0;
    pthread_mutex_lock(&probe_lock);
    const char *file = colio_figures_cache_file(cache, fbuf, sizeof fbuf);
    if (kept_get(key, f) || (file && colio_figures_cache_get(file, key, f) == 0)) {
        kept_put(key, f);
        pthread_mutex_unlock(&probe_lock);
        return 0;
    }
    rc = probe_dir(path, measure_streams, f);
    bandwidths_within_copy(f);
    f->shared = network;
    if (rc == 0 && figures_sane(f)) {
        kept_put(key, f);
        if (file)
            colio_figures_cache_put(file, key, f); /* a cache that cannot be written only costs a probe later */
    } else { /* not kept: another directory of the file system may be writable */
        colio_figures_default(f);
        rc = rc ? rc : -EIO;
    }
    pthread_mutex_unlock(&probe_lock);
    return rc;
}
