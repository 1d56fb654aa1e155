/*
 * Fault-injecting backend for tests: behaves like posix, except that the Nth
 * call of one kind (write, read, sync or any) on the chosen rank fails with a
 * chosen errno, without touching the file. Configured by the hint
 * colio_fault=OP:N[:ERRNO[:RANK]], e.g. "write:2:ENOSPC:1". "delay:N" fails
 * nothing and makes every write and read sleep N microseconds first: storage
 * that takes time without using the CPU, as a disk or a parallel file system
 * does (tmpfs only copies), to measure what overlapping I/O can hide.
 * "gate:S" fails nothing and holds every write and read until the file
 * PATH.colio-gate exists (a test makes it), or S seconds passed (then it
 * makes PATH.colio-gate-timeout and lets that call and every later one
 * through, so a test that never opens the gate fails instead of hanging):
 * storage that answers only when told to, which proves whether a call
 * waited for it. (On a subfiled file PATH is each subfile's name.)
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/hints.h"
#include "store/backends.h"
#include "store/cost.h"
#include "store/store.h"

struct colio_store {
    colio_store_t *inner;
    colio_fault_spec_t spec;
    int armed;       /* this rank is the one to fail */
    int64_t calls;   /* calls of the chosen kind so far */
    char *gate;      /* gate: PATH.colio-gate */
};

static const struct {
    const char *name;
    int value;
} errno_names[] = {
    {"ENOSPC", ENOSPC}, {"EIO", EIO},       {"EBADF", EBADF},   {"EDQUOT", EDQUOT},
    {"EACCES", EACCES}, {"EROFS", EROFS},   {"ENOMEM", ENOMEM}, {"EFBIG", EFBIG},
};

static int errno_from_name(const char *s)
{
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
        if (strcasecmp(s, errno_names[i].name) == 0)
            return errno_names[i].value;
    return 0;
}

int colio_fault_parse(const char *spec, colio_fault_spec_t *out)
{
    static const char *const ops[] = {"write", "read", "sync", "any", "coalesce", "delay", "gate"};
    char buf[128];
    if (strlen(spec) >= sizeof buf)
        return -1;
    strcpy(buf, spec);
    char *save = NULL, *field[4] = {0};
    int n = 0;
    for (char *t = strtok_r(buf, ":", &save); t && n < 4; t = strtok_r(NULL, ":", &save))
        field[n++] = t;
    if (n < 2 || strtok_r(NULL, ":", &save) != NULL)
        return -1;
    colio_fault_spec_t f = {.op = COLIO_FAULT_ANY, .nth = 0, .errnum = EIO, .rank = -1};
    int op_ok = 0;
    for (int i = 0; i < (int)(sizeof ops / sizeof ops[0]); i++)
        if (strcasecmp(field[0], ops[i]) == 0)
            f.op = (colio_fault_op_t)i, op_ok = 1;
    char *end;
    f.nth = strtoll(field[1], &end, 10);
    if (!op_ok || *end || f.nth < 1 || ((f.op == COLIO_FAULT_DELAY || f.op == COLIO_FAULT_GATE) && n > 2))
        return -1;
    if (n >= 3 && (f.errnum = errno_from_name(field[2])) == 0)
        return -1;
    if (n == 4) {
        f.rank = (int)strtol(field[3], &end, 10);
        if (*end || f.rank < 0)
            return -1;
    }
    *out = f;
    return 0;
}

static int fault_open(const char *path, int flags, const struct colio_hints *hints, int rank,
                      colio_store_t **st_p, int *readable_p)
{
    colio_store_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return -ENOMEM;
    if (hints->fault[0] == '\0' || colio_fault_parse(hints->fault, &st->spec) != 0) {
        free(st);
        return -EINVAL;
    }
    st->armed = st->spec.rank < 0 || st->spec.rank == rank;
    if (st->spec.op == COLIO_FAULT_GATE && asprintf(&st->gate, "%s.colio-gate", path) < 0) {
        free(st);
        return -ENOMEM;
    }
    int rc = colio_store_posix.open(path, flags, hints, rank, &st->inner, readable_p);
    if (rc != 0) {
        free(st->gate);
        free(st);
        return rc;
    }
    *st_p = st;
    return 0;
}

/* True when this call is the one that must fail. */
static int fault_hit(colio_store_t *st, colio_fault_op_t op)
{
    if (!st->armed || st->spec.op == COLIO_FAULT_COALESCE || st->spec.op == COLIO_FAULT_DELAY ||
        st->spec.op == COLIO_FAULT_GATE ||
        (st->spec.op != COLIO_FAULT_ANY && st->spec.op != op))
        return 0;
    /* atomic: with pipelined rounds the I/O helper thread writes while the caller reads (data sieving) */
    return __atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED) == st->spec.nth;
}

static int fault_close(colio_store_t *st)
{
    int rc = colio_store_posix.close(st->inner);
    free(st->gate);
    free(st);
    return rc;
}

static void sleep_us(int64_t us)
{
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* gate:S: wait for PATH.colio-gate, at most S seconds (then say so in PATH.colio-gate-timeout). */
static void gate_wait(const colio_store_t *st)
{
    char timeout[4096];
    snprintf(timeout, sizeof timeout, "%s-timeout", st->gate);
    for (int64_t waited_ms = 0; access(st->gate, F_OK) != 0 && access(timeout, F_OK) != 0; waited_ms++) {
        if (waited_ms >= st->spec.nth * 1000) { /* later calls pass at once: the test fails, fast */
            int fd = open(timeout, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0)
                close(fd);
            return;
        }
        sleep_us(1000);
    }
}

/* delay:N: sleep N microseconds before a write or read; gate:S: wait for the gate. */
static void fault_delay(const colio_store_t *st)
{
    if (st->spec.op == COLIO_FAULT_DELAY)
        sleep_us(st->spec.nth);
    else if (st->spec.op == COLIO_FAULT_GATE)
        gate_wait(st);
}

static int fault_pwritev(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off)
{
    fault_delay(st);
    if (fault_hit(st, COLIO_FAULT_WRITE))
        return -st->spec.errnum;
    return colio_store_posix.pwritev(st->inner, iov, iovcnt, off);
}

static int fault_preadv(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off,
                        int64_t *got_p)
{
    fault_delay(st);
    if (fault_hit(st, COLIO_FAULT_READ))
        return -st->spec.errnum;
    return colio_store_posix.preadv(st->inner, iov, iovcnt, off, got_p);
}

static int fault_sync(colio_store_t *st)
{
    if (fault_hit(st, COLIO_FAULT_SYNC))
        return -st->spec.errnum;
    return colio_store_posix.sync(st->inner);
}

static int fault_size(colio_store_t *st, int64_t *size_p) { return colio_store_posix.size(st->inner, size_p); }
static int fault_block_size(colio_store_t *st, int64_t *bs_p) { return colio_store_posix.block_size(st->inner, bs_p); }
/*
 * A call of cost c (s streams) with a sleep d added: two calls in two
 * streams take about 2c/s + d (the sleeps overlap) against 2(c + d) alone.
 */
static void add_sleep(double *call, double *streams, double d)
{
    double c = *call, s = *streams;
    *call = c + d;
    if (c + d <= 0)
        return; /* nothing to weigh */
    *streams = 2 * (c + d) / (2 * c / s + d);
    *streams = *streams > 2 ? 2 : *streams < 0.25 ? 0.25 : *streams;
}

/* posix's figures (the probe does not go through the faults), a delay added to every call. */
static int fault_figures(colio_store_t *st, const char *path, const struct colio_hints *hints,
                         colio_store_figures_t *f)
{
    int rc = colio_store_posix.figures(st->inner, path, hints, f);
    if (st->spec.op == COLIO_FAULT_DELAY) {
        add_sleep(&f->write_call, &f->write_call_streams, (double)st->spec.nth * 1e-6);
        add_sleep(&f->read_call, &f->read_call_streams, (double)st->spec.nth * 1e-6);
    }
    return rc;
}
static int fault_truncate(colio_store_t *st, int64_t size) { return colio_store_posix.truncate(st->inner, size); }
static int fault_unlink(const char *path) { return colio_store_posix.unlink(path); }
static int fault_identity(const char *path, int64_t *ino_p, int64_t *dev_p)
{
    return colio_store_posix.identity(path, ino_p, dev_p);
}
static void fault_set_locks(colio_store_t *st, int on) { colio_store_posix.set_locks(st->inner, on); }
static void fault_set_direct(colio_store_t *st, int64_t w, int64_t r) { colio_store_posix.set_direct(st->inner, w, r); }

/* OP:N[:ERRNO[:RANK]] with OP in write|read|sync|any, N >= 1; delay:N; gate:S; or nothing. */
static int spec_valid(const char *spec)
{
    if (spec[0] == '\0')
        return 1;
    colio_fault_spec_t f;
    return colio_fault_parse(spec, &f) == 0;
}

static const colio_hint_def_t fault_hints[] = {
    {"colio_fault", COLIO_HINT_NAME, COLIO_HINT_FIELD(fault), 0, 0, spec_valid, "",
     "fault backend: OP:N[:ERRNO[:RANK]], fail the Nth OP (write, read, sync, any); "
     "OP coalesce (any backend): refuse the Nth coalesce buffer of a tam local aggregator; "
     "delay:N (fault backend): fail nothing, every write and read sleeps N microseconds first (slow storage); "
     "gate:S (fault backend): fail nothing, every write and read waits until PATH.colio-gate exists, at most "
     "S seconds (then PATH.colio-gate-timeout is made): tests that prove a call did not wait for storage"},
    {0},
};

const colio_store_ops_t colio_store_fault = {
    .name = "fault",
    .hints = fault_hints,
    .caps = COLIO_STORE_CAP_READ_WHILE_WRITE_ONLY,
    .open = fault_open,
    .close = fault_close,
    .pwritev = fault_pwritev,
    .preadv = fault_preadv,
    .sync = fault_sync,
    .size = fault_size,
    .block_size = fault_block_size,
    .figures = fault_figures,
    .truncate = fault_truncate,
    .bookkeeping = &colio_store_posix,
    .unlink = fault_unlink,
    .identity = fault_identity,
    .set_locks = fault_set_locks,
    .set_direct = fault_set_direct,
};
