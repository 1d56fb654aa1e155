/*
 * A plain MPI-IO program (it knows nothing of colio) making seeded random
 * collective calls, the same kinds as tests/mpi/test_mix_random.c
 * (tests/common/random_calls.h): one small or large piece per rank, in
 * slots or packed a few bytes apart, interleaved blocks of 8 B-4 KiB,
 * random runs with holes; through MPI_File_write_at_all with contiguous or
 * strided memory, or a file view of the rank's pieces then write_at_all at
 * 0 or write_all at the file pointer; some ranks empty; some calls
 * nonblocking (MPI_File_iwrite_at_all and friends, then MPI_Wait). After
 * each write rank 0 reads the file with POSIX calls and compares it with a
 * shadow image every rank keeps from the formula; after each read every
 * rank compares its bytes (and the memory between strided ones, untouched)
 * and the status's count. Run with and without libcolio_mpiio
 * (run_client.cmake): the files must also be byte-identical.
 *
 * usage: mpiio_random PATH
 */
#include <fcntl.h>
#include <unistd.h>

#include "client_check.h"
#include "client_init.h"
#include "random_calls.h"

#define CALLS 120

static unsigned char old_byte(int64_t x) { return (unsigned char)((x * 131 + 17) ^ 0xA5); }

static void prefill(const char *path, unsigned char *shadow)
{
    for (int64_t x = 0; x < RC_FILE_MAX; x++)
        shadow[x] = old_byte(x);
    if (rc_rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CHECK(fd >= 0 && pwrite(fd, shadow, RC_FILE_MAX, 0) == RC_FILE_MAX, "prefill %s", path);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 compares the file with the shadow (after sync, barrier): the wrong bytes, on every rank. */
static int64_t file_mismatches(MPI_File fh, const char *path, const unsigned char *shadow)
{
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t bad = 0, first = -1;
    if (rc_rank == 0) {
        unsigned char *f = malloc(RC_FILE_MAX);
        int fd = open(path, O_RDONLY);
        bad = fd < 0 || pread(fd, f, RC_FILE_MAX, 0) != RC_FILE_MAX;
        for (int64_t x = 0; !bad && x < RC_FILE_MAX; x++)
            if (f[x] != shadow[x] && bad++ == 0)
                first = x;
        CHECK(bad == 0, "%lld wrong bytes in the file, the first at %lld", (long long)bad, (long long)first);
        if (fd >= 0)
            close(fd);
        free(f);
    }
    MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_OK(MPI_File_sync(fh));
    return bad;
}

/* The call, blocking or started then waited for; the status's count of elements of its memory type. */
static int issue(MPI_File fh, const rc_call_t *c, rc_share_t *s)
{
    int rd = c->reading, n = s->strided ? 1 : (int)s->bytes, got = -1;
    MPI_Status st;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Offset at = s->n ? s->off[0] : 0;
    int viewed = c->via != RC_VIA_AT || s->n > 1;
    if (viewed) {
        rc_share_filetype(s);
        MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, s->filetype, "native", MPI_INFO_NULL));
        at = 0;
    }
    void *m = s->mem;
    if (c->via == RC_VIA_LIST && c->nonblocking) /* at the file pointer, 0 after set_view */
        MPI_OK(rd ? MPI_File_iread_all(fh, m, n, s->memtype, &req) : MPI_File_iwrite_all(fh, m, n, s->memtype, &req));
    else if (c->via == RC_VIA_LIST)
        MPI_OK(rd ? MPI_File_read_all(fh, m, n, s->memtype, &st) : MPI_File_write_all(fh, m, n, s->memtype, &st));
    else if (c->nonblocking)
        MPI_OK(rd ? MPI_File_iread_at_all(fh, at, m, n, s->memtype, &req)
                  : MPI_File_iwrite_at_all(fh, at, m, n, s->memtype, &req));
    else
        MPI_OK(rd ? MPI_File_read_at_all(fh, at, m, n, s->memtype, &st)
                  : MPI_File_write_at_all(fh, at, m, n, s->memtype, &st));
    if (req != MPI_REQUEST_NULL)
        MPI_OK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, s->memtype, &got);
    if (viewed) {
        MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        MPI_Type_free(&s->filetype);
    }
    return got;
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    rc_setup(MPI_COMM_WORLD);
    client_rank = rc_rank;
    if (argc < 2) {
        fprintf(stderr, "usage: mpiio_random PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    unsigned char *shadow = malloc(RC_FILE_MAX);
    prefill(path, shadow);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    uint64_t g = 0x7E57AB1EULL;
    rc_pieces_t *p = malloc(sizeof *p);
    rc_share_t *s = malloc(sizeof *s);
    for (int i = 0; i < CALLS; i++) {
        rc_call_t c = rc_draw(&g, i);
        c.follow = 0; /* MPI-IO leaves the order of a blocking call behind a nonblocking one to the library */
        static char name[96];
        snprintf(name, sizeof name, "call %d (%s %s%s, via %d)", i, rc_shape_name[c.shape],
                 c.reading ? "read" : "write", c.nonblocking ? ", nonblocking" : "", c.via);
        client_case = name;
        rc_call_pieces(&c, p, 0);
        rc_share_of(p, &c, 0, s);
        if (!c.reading)
            rc_fill(s, c.salt);
        int got = issue(fh, &c, s);
        int64_t bad = 0;
        if (c.reading) {
            bad = rc_read_mismatches(s, shadow);
            CHECK(bad == 0, "%lld wrong bytes read", (long long)bad);
            CHECK(got == (s->strided ? 1 : (int)s->bytes), "status count %d", got);
        } else {
            rc_shadow_write(p, c.salt, shadow);
            bad = file_mismatches(fh, path, shadow);
        }
        rc_share_free(s);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (bad)
            break;
    }
    client_case = "close";
    MPI_OK(MPI_File_close(&fh));
    free(p), free(s), free(shadow);
    int rc = client_result("mpiio_random");
    MPI_Finalize();
    return rc;
}
