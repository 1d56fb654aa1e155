/*
 * The "null" backend: storage that keeps nothing. Writes are accepted and
 * dropped, reads return zeros, and no file is created. Each access costs
 * the time of a simple storage model (colio_null_cost), spent sleeping:
 * under SimGrid SMPI the sleep is simulated time, so a simulation covers
 * the I/O phase; under a real MPI with the default model (all zero) it
 * costs nothing, TAPIOCA's "/dev/null" mode that isolates the cost of
 * aggregation (TAPIOCA sec. 5). A null file is endless: its size reads as
 * COLIO_NULL_SIZE, so reads are never cut short by an end of file.
 *
 * Under SMPI, colio_null_route adds the network leg to storage: each access
 * first moves its bytes between the rank's host and the storage host the
 * route file names for it (sg_host_sendto: SimGrid routes and shares the
 * links with every other flow), as an aggregator's writes cross the torus
 * to its bridge node on a Blue Gene/Q (TAPIOCA sec. 5.1), or to the storage
 * host of the file (one target per file or per subfile: the subfiling
 * experiment). The model's time (the bridge-to-storage part) follows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef COLIO_SMPI
#include <simgrid/host.h>
#include <stdio.h>
#endif

#include "base/hints.h"
#include "store/backends.h"
#include "store/cost.h"
#include "store/store.h"

struct colio_store {
    colio_null_model_t model;
#ifdef COLIO_SMPI
    sg_host_t self, target; /* colio_null_route: the leg to storage (target NULL: none) */
#endif
};

/*
 * Blocks an access [off, off + len) covers only in part: 0, 1 or 2. A
 * write into part of a block makes the file system read, lock and rewrite
 * the whole block (TAPIOCA sec. 4.2, Fig. 3: up to 3x slower).
 */
static int partial_blocks(int64_t block, int64_t off, int64_t len)
{
    if (block <= 0 || len <= 0)
        return 0;
    int64_t end = off + len, first = off / block, last = (end - 1) / block;
    int first_partial = off % block != 0 || (first == last && end % block != 0);
    int last_partial = last != first && end % block != 0;
    return first_partial + last_partial;
}

double colio_null_cost(const colio_null_model_t *m, int is_write, int64_t off, int64_t len)
{
    double t = m->latency, bytes = (double)len;
    if (is_write) /* each partial block is read and written back whole */
        bytes += 2.0 * (double)m->block * partial_blocks(m->block, off, len);
    return m->bandwidth > 0 ? t + bytes / (double)m->bandwidth : t;
}

static void spend(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int64_t iov_bytes(const struct iovec *iov, int iovcnt)
{
    int64_t n = 0;
    for (int i = 0; i < iovcnt; i++)
        n += (int64_t)iov[i].iov_len;
    return n;
}

#ifdef COLIO_SMPI
/* Which route line applies to this file: "file" (an ordinary file), "sub:K" (subfile K, path "*.sub.K"). */
static int file_rule(const char *rule, const char *path)
{
    if (strcmp(rule, "file") == 0)
        return strstr(path, ".sub.") == NULL;
    if (strncmp(rule, "sub:", 4) != 0)
        return 0;
    const char *dot = strrchr(path, '.');
    return dot && dot - path >= 4 && strncmp(dot - 4, ".sub", 4) == 0 && strcmp(dot + 1, rule + 4) == 0;
}

/*
 * The storage host route names for this rank and file: 0, -ENOENT (no file)
 * or -EINVAL (nothing listed, or an unknown host). A line "file TARGET" or
 * "sub:K TARGET" places the file itself (an ordinary file, subfile K) on a
 * storage host, for every rank (one storage target per file or per group:
 * docs/SUBFILING.md); else "HOST TARGET" routes each host to its own.
 */
static int route_target(const char *route, const char *path, colio_store_t *st)
{
    FILE *f = fopen(route, "r");
    if (f == NULL)
        return -ENOENT;
    const char *me = sg_host_get_name(st->self);
    char first[256], target[256], by_host[256] = "", by_file[256] = "";
    while (fscanf(f, "%255s %255s", first, target) == 2) {
        if (file_rule(first, path))
            snprintf(by_file, sizeof by_file, "%s", target);
        else if (strcmp(first, me) == 0)
            snprintf(by_host, sizeof by_host, "%s", target);
    }
    fclose(f);
    const char *name = by_file[0] ? by_file : by_host;
    st->target = name[0] ? sg_host_by_name(name) : NULL;
    return st->target ? 0 : -EINVAL;
}

/* Move bytes between the rank's host and its storage host (writes out, reads back). */
static void network_leg(colio_store_t *st, int is_write, int64_t bytes)
{
    if (st->target && bytes > 0)
        sg_host_sendto(is_write ? st->self : st->target, is_write ? st->target : st->self, (double)bytes);
}
#else
static void network_leg(colio_store_t *st, int is_write, int64_t bytes) { (void)st, (void)is_write, (void)bytes; }
#endif

static int null_open(const char *path, int flags, const struct colio_hints *hints, int rank, colio_store_t **st_p,
                     int *readable_p)
{
    (void)path, (void)flags, (void)rank;
    colio_store_t *st = malloc(sizeof *st);
    if (st == NULL)
        return -ENOMEM;
    st->model = (colio_null_model_t){.latency = (double)hints->null_latency_us * 1e-6,
                                     .bandwidth = hints->null_bandwidth,
                                     .block = hints->null_block};
#ifdef COLIO_SMPI
    st->self = sg_host_self();
    st->target = NULL;
    int rc = hints->null_route[0] ? route_target(hints->null_route, path, st) : 0;
    if (rc != 0) {
        free(st);
        return rc;
    }
#endif
    *st_p = st;
    *readable_p = 1;
    return 0;
}

static int null_close(colio_store_t *st)
{
    free(st);
    return 0;
}

static int null_pwritev(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off)
{
    int64_t bytes = iov_bytes(iov, iovcnt);
    network_leg(st, 1, bytes);
    spend(colio_null_cost(&st->model, 1, off, bytes));
    return 0;
}

static int null_preadv(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off, int64_t *got_p)
{
    for (int i = 0; i < iovcnt; i++)
        memset(iov[i].iov_base, 0, iov[i].iov_len);
    *got_p = iov_bytes(iov, iovcnt);
    network_leg(st, 0, *got_p);
    spend(colio_null_cost(&st->model, 0, off, *got_p));
    return 0;
}

static int null_sync(colio_store_t *st)
{
    (void)st;
    return 0;
}

static int null_size(colio_store_t *st, int64_t *size_p)
{
    (void)st;
    *size_p = COLIO_NULL_SIZE;
    return 0;
}

/*
 * The null model's own figures: its latency and bandwidth, independent
 * accesses. Without a cost (the default, TAPIOCA's /dev/null mode, which
 * measures aggregation) the fixed rules choose: a model of free storage
 * would send every call direct.
 */
static int null_figures(colio_store_t *st, const char *path, const struct colio_hints *hints,
                        colio_store_figures_t *f)
{
    (void)path, (void)hints;
    colio_figures_default(f);
    f->fixed = st->model.latency <= 0 && st->model.bandwidth <= 0;
    double bw = st->model.bandwidth > 0 ? (double)st->model.bandwidth : 1e12;
    f->write_call = f->read_call = st->model.latency;
    f->write_bw = f->read_bw = bw;
    f->write_streams = f->read_streams = 2;
    return 0;
}

static int null_block_size(colio_store_t *st, int64_t *bs_p)
{
    *bs_p = st->model.block;
    return 0;
}

static int null_truncate(colio_store_t *st, int64_t size)
{
    (void)st, (void)size;
    return 0;
}

static int null_unlink(const char *path)
{
    (void)path;
    return 0;
}

static int route_valid(const char *path)
{
#ifdef COLIO_SMPI
    (void)path;
    return 1;
#else
    return path[0] == '\0'; /* no simulated network to move the bytes over */
#endif
}

static const colio_hint_def_t null_hints[] = {
    {"colio_null_latency", COLIO_HINT_INT, COLIO_HINT_FIELD(null_latency_us), 0, INT_MAX, NULL, "0",
     "null backend: microseconds each storage access costs"},
    {"colio_null_bandwidth", COLIO_HINT_BYTES, COLIO_HINT_FIELD(null_bandwidth), 0, INT64_MAX, NULL, "0",
     "null backend: bytes per second of each storage access (suffixes: 1g = 1 GiB/s); 0 = no cost per byte"},
    {"colio_null_block", COLIO_HINT_BYTES, COLIO_HINT_FIELD(null_block), 0, (int64_t)1 << 40, NULL, "0",
     "null backend: file-system block size; a write covering a block in part also moves that whole block "
     "twice, read and written back (TAPIOCA Fig. 3); 0 = no such cost"},
    {"colio_null_route", COLIO_HINT_PATH, COLIO_HINT_FIELD(null_route), 0, 0, route_valid, "",
     "null backend, SimGrid SMPI build only: a file of lines \"HOST TARGET\" (sim/platforms/NAME.storage); each "
     "storage access first moves its bytes over the simulated network between the rank's host and its TARGET host "
     "(the I/O leg: aggregator to bridge node), then costs the model's time. Lines \"file TARGET\" and \"sub:K "
     "TARGET\" put an ordinary file, or subfile K of a subfiled one, on one storage host for every rank (they win "
     "over the host lines). Elsewhere a non-empty value is invalid"},
    {0},
};

const colio_store_ops_t colio_store_null = {
    .name = "null",
    .hints = null_hints,
    .caps = COLIO_STORE_CAP_READ_WHILE_WRITE_ONLY | COLIO_STORE_CAP_NO_CONTENT,
    .open = null_open,
    .close = null_close,
    .pwritev = null_pwritev,
    .preadv = null_preadv,
    .sync = null_sync,
    .size = null_size,
    .block_size = null_block_size,
    .figures = null_figures,
    .truncate = null_truncate,
    .unlink = null_unlink,
};
