/*
 * Initiation never waits for storage (Seo et al., Sec. III): the
 * fault backend's gate mode (colio_fault=gate:S) holds every storage call
 * until the test makes PATH.colio-gate. Each rank starts a nonblocking
 * collective, every rank returns from initiation with the gate shut, the
 * file still holds its old bytes, and only then is the gate opened and the
 * operation waited for; the bytes are checked against the formula. A call
 * that waited for storage at initiation would sit in the gate until its
 * timeout, which leaves PATH.colio-gate-timeout behind: the test fails on
 * that marker instead of hanging.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

enum { GATE_SECONDS = 30 };

typedef struct {
    const char *name;
    const char *hints; /* besides the gate */
    int block;         /* bytes each rank owns per interleaved block */
    int blocks;        /* blocks per rank */
    int write;
} gate_case_t;

static const gate_case_t cases[] = {
    {"early write, one small piece, default hints", "", 64, 1, 1},
    {"early read, one small piece, default hints", "", 64, 1, 0},
    {"direct write, one large piece", "romio_cb_write=disable", 1 << 20, 1, 1},
    {"direct write, many pieces", "romio_cb_write=disable;cb_buffer_size=8192", 3000, 16, 1},
    {"direct read, sieved", "romio_cb_read=disable;cb_buffer_size=65536", 100, 64, 0},
    {"direct read, one large piece", "romio_cb_read=disable", 1 << 20, 1, 0},
    {"two-phase write, pipelined rounds", "romio_cb_write=enable;cb_buffer_size=4096;colio_pipeline=2", 1000, 40, 1},
    {"two-phase read, pipelined rounds", "romio_cb_read=enable;cb_buffer_size=4096;colio_pipeline=2", 1000, 40, 0},
};

static char gate[600], timeout_marker[640];

static int exists(const char *p) { return access(p, F_OK) == 0; }

/* Byte i of block b of rank r. */
static unsigned char data(int r, int b, int64_t i) { return pattern_new(r, (int64_t)b * 7919 + i, 3); }
static int64_t block_off(const gate_case_t *c, int r, int b) { return ((int64_t)b * t_nprocs + r) * c->block; }

static MPI_Info gate_info(const gate_case_t *c)
{
    MPI_Info info = test_info(c->hints);
    char spec[32];
    snprintf(spec, sizeof spec, "gate:%d", GATE_SECONDS);
    MPI_Info_set(info, "colio_backend", "fault");
    MPI_Info_set(info, "colio_fault", spec);
    return info;
}

/* This rank's blocks as one explicit list, and its buffer (the data to write, or room to read). */
static void my_list(const gate_case_t *c, MPI_Offset *off, MPI_Offset *len, unsigned char *buf)
{
    for (int b = 0; b < c->blocks; b++) {
        off[b] = block_off(c, t_rank, b);
        len[b] = c->block;
        for (int64_t i = 0; i < c->block; i++)
            buf[(int64_t)b * c->block + i] = c->write ? data(t_rank, b, i) : 0;
    }
}

/* Rank 0: the file holds the old bytes everywhere (nothing passed the gate), or the new ones in every block. */
static void check_file(const gate_case_t *c, const char *path, int written, const char *when)
{
    if (t_rank != 0)
        return;
    int64_t size = (int64_t)c->blocks * t_nprocs * c->block;
    unsigned char *got = malloc((size_t)size);
    CHECK(test_pread(path, got, size, 0) == size, "%s: %s: file short", c->name, when);
    int64_t bad = 0;
    for (int b = 0; b < c->blocks; b++)
        for (int r = 0; r < t_nprocs; r++)
            for (int64_t i = 0; i < c->block; i++) {
                int64_t off = block_off(c, r, b) + i;
                bad += got[off] != (written ? data(r, b, i) : pattern_old(off));
            }
    CHECK(bad == 0, "%s: %s: %lld wrong bytes", c->name, when, (long long)bad);
    free(got);
}

/* A read's bytes against the file's old content. */
static void check_read(const gate_case_t *c, const unsigned char *buf)
{
    int64_t bad = 0;
    for (int b = 0; b < c->blocks; b++)
        for (int64_t i = 0; i < c->block; i++)
            bad += buf[(int64_t)b * c->block + i] != pattern_old(block_off(c, t_rank, b) + i);
    CHECK(bad == 0, "%s: read %lld wrong bytes", c->name, (long long)bad);
}

static void run_case(const gate_case_t *c, const char *path)
{
    int64_t size = (int64_t)c->blocks * t_nprocs * c->block;
    test_prefill(path, size);
    if (t_rank == 0)
        unlink(gate), unlink(timeout_marker);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = gate_info(c);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    if (fh == NULL)
        return;
    MPI_Offset *off = malloc(sizeof *off * (size_t)c->blocks), *len = malloc(sizeof *len * (size_t)c->blocks);
    unsigned char *buf = malloc((size_t)c->blocks * (size_t)c->block);
    my_list(c, off, len, buf);
    colio_request *req = NULL;
    rc = c->write ? colio_iwrite_list_all(fh, c->blocks, off, len, buf, &req)
                  : colio_iread_list_all(fh, c->blocks, off, len, buf, &req);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has returned from initiation */
    CHECK(!exists(timeout_marker), "%s: initiation waited for storage (the gate timed out)", c->name);
    check_file(c, path, 0, "gate shut");
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        FILE *f = fopen(gate, "w");
        CHECK(f != NULL, "cannot make the gate file");
        if (f)
            fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = req ? colio_wait(&req, MPI_STATUS_IGNORE) : rc;
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(!exists(timeout_marker), "%s: a storage call ran past the gate's timeout", c->name);
    if (c->write)
        check_file(c, path, 1, "after the wait");
    else
        check_read(c, buf);
    free(off), free(len), free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    save_env_hints();
    unsetenv("COLIO_HINTS"); /* the gate needs the fault backend: no matrix hints here */
    char path[512];
    test_path(path, sizeof path, "gate");
    snprintf(gate, sizeof gate, "%s.colio-gate", path);
    snprintf(timeout_marker, sizeof timeout_marker, "%s-timeout", gate);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], path);
    if (t_rank == 0)
        unlink(gate), unlink(timeout_marker);
    test_unlink(path);
    restore_env_hints();
    return test_finish("test_gate");
}
