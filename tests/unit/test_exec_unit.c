/*
 * The asynchronous storage I/O module (src/exec/exec.c) on one process:
 * many write jobs in flight on a temporary file, checked byte by byte with
 * plain pread; read jobs back, with a short read past the end of file that
 * must come back zero-filled; ENOSPC from /dev/full and an injected EIO
 * through the fault backend, naming the failing call; a chain of jobs that
 * stops after a failure; the helper stopped and started again. Each check
 * runs under every executor that can run jobs here (threads, uring); under
 * uring also: the jobs it must hand to threads (a store without a
 * descriptor), calls over each other landing in order, and a job larger than
 * the ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hints.h"
#include "exec/exec.h"
#include "testutil.h"

#define NJOBS 48
#define NCALLS 5
#define CALL_LEN 3001 /* odd sizes: no accidental alignment */
#define JOB_BYTES (NCALLS * CALL_LEN)

static const colio_exec_ops_t *ex; /* the executor under test */
static int uring_up;                /* io_uring runs jobs in this process (probe_uring) */

/* Byte at file offset off as written by the test. */
static unsigned char expected(int64_t off) { return (unsigned char)(off * 29 + (off >> 9) + 3); }

static colio_store_t *open_store(const colio_store_ops_t *ops, const char *path, const char *fault, int flags)
{
    colio_hints_t h;
    colio_hints_default(&h);
    snprintf(h.fault, sizeof h.fault, "%s", fault);
    colio_store_t *st = NULL;
    int readable = 0;
    int rc = ops->open(path, flags, &h, 0, &st, &readable);
    CHECK(rc == 0, "open %s: %s", path, strerror(-rc));
    return rc == 0 ? st : NULL;
}

/*
 * Job j writes NCALLS calls of CALL_LEN bytes from its own buffer; the
 * calls of all jobs interleave in the file (call c of job j at offset
 * (c * NJOBS + j) * CALL_LEN), so the jobs' order does not matter.
 */
static void write_jobs(const colio_store_ops_t *ops, colio_store_t *st, colio_exec_job_t *jobs, char **bufs)
{
    for (int j = 0; j < NJOBS; j++) {
        colio_exec_job_reset(&jobs[j], COLIO_EXEC_WRITE, ops, st, NULL);
        for (int c = 0; c < NCALLS; c++) {
            int64_t off = (int64_t)(c * NJOBS + j) * CALL_LEN;
            char *b = bufs[j] + c * CALL_LEN;
            for (int k = 0; k < CALL_LEN; k++)
                b[k] = (char)expected(off + k);
            CHECK(colio_exec_job_add(&jobs[j], b, CALL_LEN, off) == 0, "job_add");
        }
        CHECK(colio_exec_submit(ex, &jobs[j]) == 0, "submit write job %d", j);
    }
    for (int j = NJOBS - 1; j >= 0; j--) { /* waiting out of order */
        colio_exec_wait(&jobs[j]);
        CHECK(colio_exec_done(&jobs[j]), "job %d not done after wait", j);
        CHECK(jobs[j].rc == 0 && jobs[j].failed_call == -1, "write job %d: rc %d", j, jobs[j].rc);
        CHECK(jobs[j].calls_made == NCALLS && jobs[j].bytes == JOB_BYTES, "write job %d: %lld calls, %lld bytes", j,
              (long long)jobs[j].calls_made, (long long)jobs[j].bytes);
        CHECK(jobs[j].seconds >= 0, "write job %d: negative time", j);
    }
}

static void check_file(const char *path, int64_t size)
{
    unsigned char *file = malloc((size_t)size);
    CHECK(test_file_size(path) == size, "file size %lld, expected %lld", (long long)test_file_size(path),
          (long long)size);
    CHECK(test_read_file(path, file, size) == 0, "pread of %s", path);
    int64_t bad = 0;
    for (int64_t i = 0; i < size; i++)
        bad += file[i] != expected(i);
    CHECK(bad == 0, "%lld wrong bytes in the written file", (long long)bad);
    free(file);
}

/* Job j reads bytes [j * JOB_BYTES, ...) in NCALLS calls; the last job also asks for bytes past the end. */
static void read_jobs(const colio_store_ops_t *ops, colio_store_t *st, colio_exec_job_t *jobs, char **bufs,
                      int64_t size)
{
    const int64_t past = 777;
    for (int j = 0; j < NJOBS; j++) {
        colio_exec_job_reset(&jobs[j], COLIO_EXEC_READ, ops, st, NULL);
        memset(bufs[j], 0xEE, JOB_BYTES + past);
        for (int c = 0; c < NCALLS; c++) {
            int64_t len = CALL_LEN + (j == NJOBS - 1 && c == NCALLS - 1 ? past : 0);
            colio_exec_job_add(&jobs[j], bufs[j] + c * CALL_LEN, len, (int64_t)j * JOB_BYTES + c * CALL_LEN);
        }
        CHECK(colio_exec_submit(ex, &jobs[j]) == 0, "submit read job %d", j);
    }
    int64_t bad = 0;
    for (int j = 0; j < NJOBS; j++) {
        colio_exec_wait(&jobs[j]);
        CHECK(jobs[j].rc == 0, "read job %d: rc %d", j, jobs[j].rc);
        CHECK(jobs[j].bytes == JOB_BYTES, "read job %d: %lld bytes read", j, (long long)jobs[j].bytes);
        for (int64_t k = 0; k < JOB_BYTES; k++)
            bad += (unsigned char)bufs[j][k] != expected((int64_t)j * JOB_BYTES + k);
    }
    CHECK(bad == 0, "%lld wrong bytes read", (long long)bad);
    int64_t nonzero = 0;
    for (int64_t k = 0; k < past; k++)
        nonzero += bufs[NJOBS - 1][JOB_BYTES + k] != 0;
    CHECK(nonzero == 0, "%lld bytes past the end of file not zero-filled", (long long)nonzero);
    CHECK((int64_t)NJOBS * JOB_BYTES == size, "test layout");
}

/* /dev/full: the first call fails with ENOSPC, the next job of the chain makes no call. */
static void enospc_chain(void)
{
    struct stat sb;
    if (stat("/dev/full", &sb) != 0)
        return;
    const colio_store_ops_t *ops = colio_store_find("posix");
    colio_store_t *st = open_store(ops, "/dev/full", "", COLIO_STORE_WRITE);
    if (st == NULL)
        return;
    char buf[4096];
    memset(buf, 1, sizeof buf);
    int chain = 0;
    colio_exec_job_t a = {0}, b = {0};
    colio_exec_job_reset(&a, COLIO_EXEC_WRITE, ops, st, &chain);
    colio_exec_job_add(&a, buf, 1000, 0);
    colio_exec_job_add(&a, buf, 1000, 1000);
    colio_exec_job_reset(&b, COLIO_EXEC_WRITE, ops, st, &chain);
    colio_exec_job_add(&b, buf, 4096, 2000);
    colio_exec_submit(ex, &a);
    colio_exec_submit(ex, &b);
    colio_exec_wait(&b);
    colio_exec_wait(&a);
    /* threads make one call after the other; uring issues a job's calls at once */
    int64_t most = a.exec == &colio_exec_uring ? 2 : 1;
    CHECK(a.rc == -ENOSPC && a.failed_call == 0 && a.calls_made >= 1 && a.calls_made <= most,
          "/dev/full: rc %d, call %lld, %lld calls", a.rc, (long long)a.failed_call, (long long)a.calls_made);
    CHECK(b.skipped && b.calls_made == 0 && b.rc == 0, "the job after a failure ran (%lld calls)",
          (long long)b.calls_made);
    colio_exec_job_free(&a), colio_exec_job_free(&b);
    ops->close(st);
}

/* The fault backend through the helper: its second write fails with EIO; bytes of the first are there. */
static void injected_eio(const char *path)
{
    const colio_store_ops_t *ops = colio_store_find("fault");
    colio_store_t *st = open_store(ops, path, "write:2:EIO", COLIO_STORE_WRITE | COLIO_STORE_READ);
    if (st == NULL)
        return;
    char buf[300];
    for (int k = 0; k < 300; k++)
        buf[k] = (char)(k ^ 0x5A);
    colio_exec_job_t j = {0};
    colio_exec_job_reset(&j, COLIO_EXEC_WRITE, ops, st, NULL);
    colio_exec_job_add(&j, buf, 100, 0);
    colio_exec_job_add(&j, buf + 100, 100, 100);
    colio_exec_job_add(&j, buf + 200, 100, 200);
    colio_exec_submit(ex, &j);
    colio_exec_wait(&j);
    CHECK(j.rc == -EIO && j.failed_call == 1 && j.calls_made == 2 && j.bytes == 200,
          "fault: rc %d, call %lld, %lld calls, %lld bytes", j.rc, (long long)j.failed_call, (long long)j.calls_made,
          (long long)j.bytes);
    unsigned char file[100];
    CHECK(test_read_file(path, file, 100) == 0 && memcmp(file, buf, 100) == 0, "the first call's bytes");
    colio_exec_job_free(&j);
    ops->close(st);
}

static int poll_done(colio_exec_job_t *j, int seconds)
{
    for (int ms = 0; ms < seconds * 1000; ms++) {
        if (colio_exec_done(j))
            return 1;
        usleep(1000);
    }
    return 0;
}

/* Two chains on a pool of helpers: A (gated) holds chain 1, C waits behind it, B (chain 2) runs meanwhile. */
static void pool_chains(const char *path)
{
    char gated[4200], gate[4300];
    snprintf(gated, sizeof gated, "%s.gated", path);
    snprintf(gate, sizeof gate, "%s.colio-gate", gated);
    unlink(gate);
    const colio_store_ops_t *fault = colio_store_find("fault"), *posix = colio_store_find("posix");
    colio_store_t *sg = open_store(fault, gated, "gate:60", COLIO_STORE_WRITE | COLIO_STORE_READ | COLIO_STORE_CREATE);
    colio_store_t *sp = open_store(posix, path, "", COLIO_STORE_WRITE | COLIO_STORE_READ);
    if (sg == NULL || sp == NULL)
        return;
    colio_exec_hold(&colio_exec_threads, 4);
    char a_buf[100], b_buf[100], c_buf[100];
    memset(a_buf, 'a', 100), memset(b_buf, 'b', 100), memset(c_buf, 'c', 100);
    int chain1 = 0, chain2 = 0;
    colio_exec_job_t a = {0}, b = {0}, c = {0};
    colio_exec_job_reset(&a, COLIO_EXEC_WRITE, fault, sg, &chain1);
    colio_exec_job_add(&a, a_buf, 100, 0);
    colio_exec_job_reset(&c, COLIO_EXEC_WRITE, fault, sg, &chain1);
    colio_exec_job_add(&c, c_buf, 100, 100);
    colio_exec_job_reset(&b, COLIO_EXEC_WRITE, posix, sp, &chain2);
    colio_exec_job_add(&b, b_buf, 100, 0);
    colio_exec_submit(ex, &a);
    colio_exec_submit(ex, &c);
    colio_exec_submit(ex, &b);
    CHECK(poll_done(&b, 30), "another chain's job did not run while chain 1 was held at the gate");
    int a_done = colio_exec_done(&a), c_done = colio_exec_done(&c);
    CHECK(!a_done && !c_done && __atomic_load_n(&c.calls_made, __ATOMIC_RELAXED) == 0,
          "chain 1: the gated job finished (%d) or its next one started (%d)", a_done, c_done);
    int fd = open(gate, O_CREAT | O_WRONLY, 0644); /* open the gate */
    CHECK(fd >= 0, "create %s", gate);
    if (fd >= 0)
        close(fd);
    colio_exec_wait(&c);
    colio_exec_wait(&a);
    CHECK(a.rc == 0 && b.rc == 0 && c.rc == 0, "rc a %d b %d c %d", a.rc, b.rc, c.rc);
    unsigned char file[200];
    CHECK(test_read_file(gated, file, 200) == 0 && memcmp(file, a_buf, 100) == 0 && memcmp(file + 100, c_buf, 100) == 0,
          "the gated chain's bytes");
    CHECK(test_read_file(path, file, 100) == 0 && memcmp(file, b_buf, 100) == 0, "the other chain's bytes");
    colio_exec_job_free(&a), colio_exec_job_free(&b), colio_exec_job_free(&c);
    fault->close(sg);
    posix->close(sp);
    unlink(gate);
    unlink(gated);
}

/* Which executor ran a posix job submitted to ex: uring, or threads where io_uring is missing. */
static const colio_exec_ops_t *posix_runner(void)
{
    return ex == &colio_exec_uring && uring_up ? &colio_exec_uring : &colio_exec_threads;
}

/*
 * uring only: a fault-store job goes to threads; calls over each other land
 * last-call-wins; a job of 1000 calls (more than the ring holds) completes.
 */
static void uring_cases(const char *path)
{
    const colio_store_ops_t *fault = colio_store_find("fault"), *posix = colio_store_find("posix");
    colio_store_t *sf = open_store(fault, path, "write:1000000", COLIO_STORE_WRITE | COLIO_STORE_READ);
    colio_store_t *sp = open_store(posix, path, "", COLIO_STORE_WRITE | COLIO_STORE_READ);
    if (sf == NULL || sp == NULL)
        return;
    char x[64], y[64];
    memset(x, 'x', sizeof x), memset(y, 'y', sizeof y);
    colio_exec_job_t j = {0};
    colio_exec_job_reset(&j, COLIO_EXEC_WRITE, fault, sf, NULL);
    colio_exec_job_add(&j, x, 64, 0);
    CHECK(colio_exec_submit(ex, &j) == 0 && j.exec == &colio_exec_threads, "a fault-store job did not go to threads");
    colio_exec_wait(&j);
    colio_exec_job_reset(&j, COLIO_EXEC_WRITE, posix, sp, NULL);
    for (int k = 0; k < 40; k++) /* x at 0..63, then y over 32..95, in turn: y wins where both are */
        colio_exec_job_add(&j, k % 2 ? y : x, 64, k % 2 ? 32 : 0);
    CHECK(colio_exec_submit(ex, &j) == 0 && j.exec == posix_runner(), "overlapping job: executor %s",
          j.exec ? j.exec->name : "none");
    colio_exec_wait(&j);
    unsigned char file[96];
    int bad = j.rc != 0 || test_read_file(path, file, 96) != 0;
    for (int k = 0; k < 96 && !bad; k++)
        bad = file[k] != (k < 32 ? 'x' : 'y');
    CHECK(!bad, "overlapping calls did not land in order (rc %d)", j.rc);
    enum { MANY = 1000, LEN = 37 };
    char *big = malloc(MANY * LEN), *back = malloc(MANY * LEN);
    for (int k = 0; k < MANY * LEN; k++)
        big[k] = (char)expected(k + 5);
    colio_exec_job_reset(&j, COLIO_EXEC_WRITE, posix, sp, NULL);
    for (int k = 0; k < MANY; k++)
        colio_exec_job_add(&j, big + k * LEN, LEN, (int64_t)k * LEN);
    CHECK(colio_exec_submit(ex, &j) == 0, "submit %d calls", MANY);
    colio_exec_wait(&j);
    CHECK(j.rc == 0 && j.calls_made == MANY && j.bytes == MANY * LEN, "%d calls: rc %d, %lld calls, %lld bytes", MANY,
          j.rc, (long long)j.calls_made, (long long)j.bytes);
    CHECK(test_read_file(path, (unsigned char *)back, MANY * LEN) == 0 && memcmp(back, big, MANY * LEN) == 0,
          "the bytes of %d calls", MANY);
    colio_exec_job_free(&j);
    free(big), free(back);
    fault->close(sf);
    posix->close(sp);
}

/* Whether io_uring runs jobs here (built with liburing, io_uring_setup allowed): a probe job's executor. */
static int probe_uring(const char *path)
{
    const colio_store_ops_t *posix = colio_store_find("posix");
    colio_store_t *st = open_store(posix, path, "", COLIO_STORE_WRITE | COLIO_STORE_READ);
    if (st == NULL)
        return 0;
    char b = 'p';
    colio_exec_job_t j = {0};
    colio_exec_job_reset(&j, COLIO_EXEC_WRITE, posix, st, NULL);
    colio_exec_job_add(&j, &b, 1, 0);
    int rc = colio_exec_submit(&colio_exec_uring, &j);
    int up = rc == 0 && j.exec == &colio_exec_uring;
    colio_exec_wait(&j);
    CHECK(rc == 0 && j.rc == 0 && j.bytes == 1, "probe job: submit %d, rc %d", rc, j.rc);
    colio_exec_job_free(&j);
    posix->close(st);
    printf("test_exec_unit: io_uring %s\n", up ? "runs jobs here" : "not available here: uring falls back to threads");
    return up;
}

int main(void)
{
    char path[] = "/dev/shm/colio-ex-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        strcpy(path, "/tmp/colio-ex-XXXXXX");
        fd = mkstemp(path);
    }
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    const colio_store_ops_t *posix = colio_store_find("posix");
    colio_exec_job_t *jobs = calloc(NJOBS, sizeof *jobs);
    char *bufs[NJOBS];
    for (int j = 0; j < NJOBS; j++)
        bufs[j] = malloc(JOB_BYTES + 1024);
    uring_up = probe_uring(path);
    const colio_exec_ops_t *under_test[] = {&colio_exec_threads, &colio_exec_uring};
    for (int e = 0; e < 2; e++) {
        ex = under_test[e];
        colio_exec_hold(ex, 1);
        colio_store_t *st = open_store(posix, path, "", COLIO_STORE_WRITE | COLIO_STORE_READ);
        if (st) {
            write_jobs(posix, st, jobs, bufs);
            CHECK(jobs[0].exec == posix_runner(), "%s: posix jobs ran on %s", ex->name,
                  jobs[0].exec ? jobs[0].exec->name : "none");
            check_file(path, (int64_t)NJOBS * JOB_BYTES);
            colio_exec_unhold(ex); /* the last file gone: the helper stays, idle, for the next submit */
            colio_exec_hold(ex, 1);
            read_jobs(posix, st, jobs, bufs, (int64_t)NJOBS * JOB_BYTES);
            posix->close(st);
        }
        enospc_chain();
        injected_eio(path);
        pool_chains(path);
        if (ex == &colio_exec_uring)
            uring_cases(path);
        colio_exec_unhold(ex);
    }
    for (int j = 0; j < NJOBS; j++) {
        colio_exec_job_free(&jobs[j]);
        free(bufs[j]);
    }
    free(jobs);
    unlink(path);
    return unit_finish("test_exec_unit");
}
