/*
 * Pipelined rounds, driven step by step on one rank through the operation
 * state machine (as the nonblocking API will): a write with many rounds
 * over slow storage (the fault backend's delay) is abandoned while a
 * round's storage job is in flight; colio_op_finish must wait for the job
 * before the buffers go back, so the round's bytes are in the file (checked
 * with plain pread) when it returns. The step functions never block: a step
 * that needs an unfinished job returns COLIO_STEP_WAIT with no MPI request.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/file.h"
#include "engine/finish.h"
#include "engine/op.h"
#include "engine/step.h"
#include "testutil.h"

#define ROUND 4096
#define NROUNDS 8

static colio_file *open_slow(const char *path)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_backend", "fault");
    MPI_Info_set(info, "colio_fault", "delay:30000"); /* 30 ms per storage call */
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "colio_pipeline", "2");
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    return fh;
}

/* Step until a round's job is in flight; checks that waiting steps expose no MPI request. */
static int step_until_job(colio_op_t *op)
{
    for (int guard = 0; guard < 10000 && op->phase != COLIO_PH_DONE; guard++) {
        int st = colio_op_step(op);
        if (op->planned && (op->rnd.buf[0].busy || op->rnd.buf[1].busy)) /* the rounds' state is set from PLAN on */
            return 1;
        if (st == COLIO_STEP_WAIT) {
            MPI_Request *reqs;
            int n;
            colio_op_waitset(op, &reqs, &n);
            if (n > 0)
                MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        }
    }
    return 0;
}

/* Run to the end by steps; a step waiting for storage has no MPI request to wait for. */
static void step_to_end(colio_op_t *op, int *io_waits_p)
{
    while (op->phase != COLIO_PH_DONE) {
        if (colio_op_step(op) != COLIO_STEP_WAIT)
            continue;
        MPI_Request *reqs;
        int n;
        colio_op_waitset(op, &reqs, &n);
        if (colio_op_io_pending(op)) {
            CHECK(n == 0, "a step waiting for storage exposes %d MPI requests", n);
            ++*io_waits_p;
            colio_op_io_wait(op);
        } else if (n > 0) {
            MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        }
    }
}

static colio_op_args_t write_args(const char *buf)
{
    return (colio_op_args_t){.kind = COLIO_OP_WRITE, .api = "test", .offset = 0, .buf = (void *)buf,
                             .count = ROUND * NROUNDS, .memtype = MPI_BYTE};
}

static void check_prefix(const char *path, const char *buf, int64_t n, const char *what)
{
    unsigned char *file = malloc((size_t)n);
    CHECK(test_read_file(path, file, n) == 0 && memcmp(file, buf, (size_t)n) == 0,
          "%s: the first %lld bytes are not in the file", what, (long long)n);
    free(file);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "pipe-unit");
    char *buf = malloc(ROUND * NROUNDS);
    for (int i = 0; i < ROUND * NROUNDS; i++)
        buf[i] = (char)pattern_new(0, i, 5);

    /* abandoned with a job in flight */
    test_prefill(path, ROUND * NROUNDS);
    colio_file *fh = open_slow(path);
    colio_op_args_t a = write_args(buf);
    colio_op_t op;
    colio_op_init(&op, fh, &a);
    int in_flight = step_until_job(&op);
    CHECK(in_flight, "no storage job was ever in flight (pipelining off?)");
    CHECK(!in_flight || op.rnd.pipelined, "two buffers expected for %d rounds", NROUNDS);
    int64_t r = in_flight ? op.rnd.r : -1; /* the rounds' state is set from PLAN on */
    colio_op_finish(&op, MPI_STATUS_IGNORE); /* must wait for the job before freeing */
    check_prefix(path, buf, (r + 1) * ROUND, "abandoned operation");
    colio_close(&fh);

    /* stepped to the end: every byte, waits for storage without MPI requests */
    test_prefill(path, ROUND * NROUNDS);
    fh = open_slow(path);
    colio_op_init(&op, fh, &a);
    int io_waits = 0;
    step_to_end(&op, &io_waits);
    CHECK(op.err.code == 0, "stepped write failed: %s", op.err.msg);
    CHECK(io_waits > 0, "30 ms storage calls and never a wait for one");
    colio_op_finish(&op, MPI_STATUS_IGNORE);
    check_prefix(path, buf, ROUND * NROUNDS, "stepped operation");
    colio_close(&fh);

    test_unlink(path);
    free(buf);
    return test_finish("test_pipe_unit");
}
