/*
 * Subfiling (docs/SUBFILING.md): for N = 1, 2, 3 subfiles, one per emulated
 * node, one per group of nodes and one per storage target of a torus model,
 * colio makes the subfiled file, the
 * tests' own reader (testutil.c) finds the expected bytes in it, and
 * `colio-subfile join` gives a file byte-identical to the same writes into
 * an ordinary file; a different process count with different hints reads
 * it back and updates it in place; `colio-subfile split` of the ordinary
 * file reads back the same through colio. Then the errors: a missing or
 * truncated subfile, bad metadata, EXCL, a real ENOSPC on one subfile
 * (/dev/full), an injected EIO, read-only; and DELETE_ON_CLOSE and
 * colio_delete remove every subfile. Usage: test_subfile PATH-OF-colio-subfile
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define SIZE 23000 /* logical size: not a multiple of any stripe below */
#define BLK 37
#define STRIPE "1000"

static const char *tool;

static MPI_Info layout_info(const char *subfiles, const char *node_size)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (subfiles)
        MPI_Info_set(info, "colio_subfiles", subfiles);
    MPI_Info_set(info, "colio_subfile_stripe", STRIPE);
    MPI_Info_set(info, "cb_buffer_size", "300"); /* several rounds per stripe */
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    if (node_size)
        MPI_Info_set(info, "colio_node_size", node_size);
    if (subfiles && strcmp(subfiles, "ionode") == 0) /* nodes of 1 rank, 2 per pset and storage target */
        MPI_Info_set(info, "colio_topology", "torus:dims=4,psets=2,bridges=1");
    return info;
}

/* Block b belongs to rank b mod (P + 1); blocks of "rank P" are holes. */
static int block_owner(int64_t b, int nprocs) { return (int)(b % (nprocs + 1)); }

static unsigned char new_byte(int64_t off, int salt) { return (unsigned char)(off * 11 + salt * 29 + 3); }

/* The image after the old content everywhere and the interleaved write of salt. */
static void expected_image(unsigned char *img, int salt)
{
    for (int64_t x = 0; x < SIZE; x++)
        img[x] = block_owner(x / BLK, t_nprocs) < t_nprocs ? new_byte(x, salt) : pattern_old(x);
}

/* Create path with info, write the old content (rank 0), then the interleaved blocks (every rank). */
static int write_file(const char *path, MPI_Info info, int salt)
{
    colio_file *fh = NULL;
    test_unlink(path);
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "create", NULL);
    if (rc != COLIO_SUCCESS)
        return rc;
    unsigned char *old = malloc(SIZE), *mine = malloc(SIZE);
    MPI_Offset *off = malloc(sizeof *off * (SIZE / BLK + 1)), *len = malloc(sizeof *len * (SIZE / BLK + 1));
    for (int64_t x = 0; x < SIZE; x++)
        old[x] = pattern_old(x);
    rc = colio_write_at_all(fh, 0, old, t_rank == 0 ? SIZE : 0, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_SUCCESS, fh, "old content", NULL);
    int64_t n = 0, at = 0;
    for (int64_t b = 0; b * BLK < SIZE; b++) {
        if (block_owner(b, t_nprocs) != t_rank)
            continue;
        off[n] = b * BLK;
        len[n] = b * BLK + BLK <= SIZE ? BLK : SIZE - b * BLK;
        for (int64_t i = 0; i < len[n]; i++)
            mine[at++] = new_byte(off[n] + i, salt);
        n++;
    }
    rc = colio_write_list_all(fh, n, off, len, mine);
    expect_all(rc, COLIO_SUCCESS, fh, "interleaved blocks", NULL);
    expect_all(colio_close(&fh), COLIO_SUCCESS, NULL, "close", NULL);
    free(old), free(mine), free(off), free(len);
    return rc;
}

static int64_t compare_file(const char *path, const unsigned char *img, int64_t size, const char *what)
{
    int64_t bad = 0;
    if (t_rank == 0) {
        unsigned char *got = malloc((size_t)size);
        CHECK(test_file_size(path) == size, "%s: size %lld, expected %lld", what, (long long)test_file_size(path),
              (long long)size);
        if (test_read_file(path, got, size) != 0)
            bad = size;
        for (int64_t x = 0; x < size && bad < size; x++)
            if (got[x] != img[x] && bad++ < 3)
                fprintf(stderr, "%s: byte %lld is %u, expected %u\n", what, (long long)x, got[x], img[x]);
        free(got);
    }
    MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return bad;
}

static int run_tool(const char *a, const char *b, const char *c, const char *d)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s %s %s %s >/dev/null 2>&1", tool, a, b, c ? c : "", d ? d : "");
    return system(cmd);
}

/* Both files byte for byte (cmp): rank 0. */
static int same_files(const char *a, const char *b)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
    return system(cmd) == 0;
}

/* The metadata says n subfiles and the logical size; each subfile holds exactly its share. */
static void check_metadata(const char *path, int n)
{
    if (t_rank != 0)
        return;
    FILE *f = fopen(path, "r");
    char line[256];
    long long stripe = 0, size = -1;
    int count = 0, first_ok = f && fgets(line, sizeof line, f) && strcmp(line, "colio-subfile 1\n") == 0;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "stripe %lld", &stripe);
        sscanf(line, "logical_size %lld", &size);
        sscanf(line, "subfiles %d", &count);
    }
    if (f)
        fclose(f);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.colio-new", path);
    CHECK(access(tmp, F_OK) != 0, "the metadata rewrite left %s behind", tmp);
    CHECK(first_ok && stripe == atoll(STRIPE) && size == SIZE && count == n,
          "metadata: header %d stripe %lld logical_size %lld subfiles %d (expected %d)", first_ok, stripe, size, count,
          n);
    for (int k = 0; k < n; k++) { /* subfile k: stripes k, k+n, ... of [0, SIZE) */
        int64_t want = 0, s = atoll(STRIPE);
        for (int64_t st = k; st * s < SIZE; st += n)
            want += (st + 1) * s <= SIZE ? s : SIZE - st * s;
        char name[600];
        snprintf(name, sizeof name, "%s.sub.%d", path, k);
        CHECK(test_file_size(name) == want, "%s: %lld bytes, expected %lld", name, (long long)test_file_size(name),
              (long long)want);
    }
}

/* Fewer ranks (and other hints) read the whole file back, then update part of it in place. */
static void other_process_count(const char *path, unsigned char *img, int nsub)
{
    int fewer = t_nprocs > 1 ? t_nprocs - 1 : 1, in = t_rank < fewer;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, in, t_rank, &comm);
    if (in) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "cb_nodes", "1");
        MPI_Info_set(info, "colio_subfiles", "7");       /* an existing file keeps its layout */
        MPI_Info_set(info, "colio_subfile_stripe", "5");
        MPI_Info_set(info, "colio_exchange", "spread");
        colio_file *fh = NULL;
        int rc = colio_open(comm, path, MPI_MODE_RDWR, info, &fh);
        CHECK_RC(rc, COLIO_SUCCESS, fh);
        MPI_Offset size = 0;
        char v[64] = "";
        int flag = 0;
        MPI_Info used;
        if (fh) {
            colio_get_size(fh, &size);
            colio_get_info(fh, &used);
            MPI_Info_get(used, "colio_subfiles", sizeof v - 1, v, &flag);
            MPI_Info_free(&used);
        }
        CHECK(size == SIZE, "size %lld, expected %d", (long long)size, SIZE);
        CHECK(flag && atoi(v) == nsub, "get_info colio_subfiles %s, expected %d", v, nsub);
        /* each reads a contiguous share, through a strided view on odd ranks */
        int64_t share = SIZE / fewer, lo = t_rank * share, hi = t_rank == fewer - 1 ? SIZE : lo + share;
        unsigned char *buf = malloc((size_t)(hi - lo) + 1);
        rc = colio_read_at_all(fh, lo, buf, hi - lo, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK_RC(rc, COLIO_SUCCESS, fh);
        CHECK(memcmp(buf, img + lo, (size_t)(hi - lo)) == 0, "read back with %d ranks: bytes differ", fewer);
        /* update every third byte of [5000, 9000) by rank 0 of comm, others nothing */
        MPI_Offset offs[1334], lens[1334];
        int n = 0;
        for (int64_t x = 5000; x < 9000 && t_rank == 0; x += 3)
            offs[n] = x, lens[n] = 1, buf[n] = (unsigned char)(x ^ 0x5A), n++;
        rc = colio_write_list_all(fh, n, offs, lens, buf);
        CHECK_RC(rc, COLIO_SUCCESS, fh);
        CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
        free(buf);
        MPI_Info_free(&info);
    }
    MPI_Comm_free(&comm);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int64_t x = 5000; x < 9000; x += 3)
        img[x] = (unsigned char)(x ^ 0x5A);
}

typedef struct layout_case {
    const char *subfiles, *node_size;
    int nsub;
} layout_case_t;

static void one_layout(const char *path, const char *plain, const layout_case_t *c)
{
    unsigned char *img = malloc(SIZE);
    char what[128], joined[600];
    snprintf(what, sizeof what, "colio_subfiles=%s%s%s", c->subfiles, c->node_size ? " colio_node_size=" : "",
             c->node_size ? c->node_size : "");
    expected_image(img, 1);
    MPI_Info info = layout_info(c->subfiles, c->node_size), none = layout_info(NULL, c->node_size);
    write_file(path, info, 1);
    write_file(plain, none, 1);
    CHECK(test_is_subfiled(path) && !test_is_subfiled(plain), "%s: one subfiled file, one ordinary", what);
    check_metadata(path, c->nsub);
    CHECK(compare_file(path, img, SIZE, what) == 0, "%s: subfiled file differs from the expected bytes", what);
    CHECK(compare_file(plain, img, SIZE, "ordinary") == 0, "%s: ordinary file differs", what);
    snprintf(joined, sizeof joined, "%s.joined", path);
    if (t_rank == 0) {
        CHECK(run_tool("join", path, joined, NULL) == 0, "%s: colio-subfile join failed", what);
        CHECK(same_files(joined, plain), "%s: join differs from the ordinary file", what);
        CHECK(run_tool("info", path, NULL, NULL) == 0, "%s: colio-subfile info says damaged", what);
        unlink(joined);
    }
    other_process_count(path, img, c->nsub);
    CHECK(compare_file(path, img, SIZE, what) == 0, "%s: after the update by fewer ranks", what);
    MPI_Info_free(&info), MPI_Info_free(&none);
    free(img);
}

/* split of an ordinary file, read by colio: the same bytes. */
static void split_then_read(const char *path, const char *plain)
{
    unsigned char *img = malloc(SIZE), *got = malloc(SIZE);
    expected_image(img, 1);
    write_file(plain, MPI_INFO_NULL, 1);
    if (t_rank == 0) {
        test_unlink_local(path);
        CHECK(run_tool("split", plain, path, "3 700") == 0, "colio-subfile split failed");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    rc = colio_read_at_all(fh, 0, got, t_rank == 0 ? SIZE : 0, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    colio_close(&fh);
    CHECK(t_rank != 0 || memcmp(got, img, SIZE) == 0, "split file read through colio differs");
    free(img), free(got);
}

/* ---- errors ------------------------------------------------------------------------- */

static int open_rc(const char *path, int amode, MPI_Info info, colio_file **fh)
{
    *fh = NULL;
    return colio_open(MPI_COMM_WORLD, path, amode, info, fh);
}

static void damaged(const char *path)
{
    char sub[600], aside[600];
    colio_file *fh;
    int rc;
    MPI_Info info = layout_info("3", NULL);
    write_file(path, info, 2);
    snprintf(sub, sizeof sub, "%s.sub.1", path);
    snprintf(aside, sizeof aside, "%s.aside", path);
    if (t_rank == 0)
        rename(sub, aside);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = open_rc(path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_NOENT, NULL, "missing subfile", ".sub.1 is missing");
    if (t_rank == 0) {
        CHECK(run_tool("info", path, NULL, NULL) != 0 && run_tool("join", path, aside, NULL) != 0,
              "colio-subfile info and join must fail on a missing subfile");
        rename(aside, sub);
        CHECK(truncate(sub, 100) == 0, "truncate");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = open_rc(path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_IO, NULL, "truncated subfile", ".sub.1 is truncated");
    if (t_rank == 0) {
        CHECK(run_tool("info", path, NULL, NULL) != 0, "colio-subfile info must fail on a truncated subfile");
        FILE *f = fopen(path, "w");
        fputs("colio-subfile 9\nstripe 10\nsubfiles 1\nsubfile 0 x\n", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = open_rc(path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_ERR_IO, NULL, "bad metadata", "version 9");
    MPI_Info_free(&info);
}

/* Every rank writes [0, 2000) in 4 slices: stripes of subfile 1 land on /dev/full. */
static void enospc(const char *path)
{
    struct stat sb;
    if (stat("/dev/full", &sb) != 0)
        return;
    char sub[600];
    colio_file *fh;
    MPI_Info info = layout_info("2", NULL);
    int rc;
    MPI_Info_set(info, "colio_subfile_stripe", "500");
    test_unlink(path);
    rc = open_rc(path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "create", NULL);
    colio_close(&fh);
    snprintf(sub, sizeof sub, "%s.sub.1", path);
    if (t_rank == 0) {
        unlink(sub);
        CHECK(symlink("/dev/full", sub) == 0, "symlink");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = open_rc(path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "open", NULL);
    unsigned char buf[2000];
    memset(buf, 7, sizeof buf);
    int64_t share = 2000 / t_nprocs;
    rc = colio_write_at_all(fh, t_rank * share, buf, t_rank == t_nprocs - 1 ? 2000 - t_rank * share : share,
                                MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_NOSPC, fh, "ENOSPC on one subfile", ".sub.1");
    colio_close(&fh);
    if (t_rank == 0)
        unlink(sub);
    test_unlink(path);
    MPI_Info_free(&info);
}

static void injected_and_modes(const char *path)
{
    colio_file *fh;
    int rc;
    MPI_Info info = layout_info("3", NULL);
    write_file(path, info, 3);
    MPI_Info fault;
    MPI_Info_create(&fault);
    MPI_Info_set(fault, "colio_backend", "fault");
    MPI_Info_set(fault, "colio_fault", "write:1:EIO:0");
    MPI_Info_set(fault, "romio_cb_write", "enable");
    rc = open_rc(path, MPI_MODE_RDWR, fault, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "open with faults", NULL);
    unsigned char buf[500];
    memset(buf, 9, sizeof buf);
    rc = colio_write_at_all(fh, 600 * t_rank, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_ERR_IO, fh, "injected EIO", ".sub.");
    colio_close(&fh);
    MPI_Info_free(&fault);

    rc = open_rc(path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, info, &fh);
    expect_all(rc, COLIO_ERR_EXIST, NULL,
               "EXCL on a subfiled file", NULL);
    rc = open_rc(path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_all(rc, COLIO_SUCCESS, fh, "read-only open", NULL);
    rc = colio_write_at_all(fh, 0, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc != COLIO_SUCCESS, "a write through a read-only handle must fail");
    colio_close(&fh);

    char sub[600];
    test_unlink(path);
    rc = open_rc(path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &fh);
    expect_all(rc, COLIO_SUCCESS,
               fh, "create for delete on close", NULL);
    rc = colio_write_at_all(fh, 1000 * t_rank, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_all(rc, COLIO_SUCCESS, fh, "write before delete", NULL);
    CHECK(test_is_subfiled(path), "subfiled before close");
    expect_all(colio_close(&fh), COLIO_SUCCESS, NULL, "close with DELETE_ON_CLOSE", NULL);
    for (int k = 0; k < 3; k++) {
        snprintf(sub, sizeof sub, "%s.sub.%d", path, k);
        CHECK(access(sub, F_OK) != 0, "%s left behind by DELETE_ON_CLOSE", sub);
    }
    CHECK(access(path, F_OK) != 0, "metadata left behind by DELETE_ON_CLOSE");

    /* colio_delete (local, as MPI_File_delete): subfiles and metadata; then there is nothing to delete */
    write_file(path, info, 4);
    if (t_rank == 0) {
        CHECK(colio_delete(path, MPI_INFO_NULL) == COLIO_SUCCESS, "colio_delete: %s", colio_last_open_error());
        for (int k = 0; k < 3; k++) {
            snprintf(sub, sizeof sub, "%s.sub.%d", path, k);
            CHECK(access(sub, F_OK) != 0, "%s left behind by colio_delete", sub);
        }
        CHECK(access(path, F_OK) != 0, "metadata left behind by colio_delete");
        rc = colio_delete(path, MPI_INFO_NULL);
        CHECK(rc == COLIO_ERR_NOENT && strstr(colio_last_open_error(), path), "colio_delete of nothing: %d %s", rc,
              colio_last_open_error());
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    tool = argc > 1 ? argv[1] : "colio-subfile";
    char path[512], plain[600];
    test_path(path, sizeof path, "subfile");
    snprintf(plain, sizeof plain, "%s.plain", path);
    int half = (t_nprocs + 1) / 2;
    layout_case_t cases[] = {{"1", NULL, 1}, {"2", NULL, 2}, {"3", NULL, 3}, {"node", "2", half},
                             {"group:2", "1", half}, {"ionode", "1", half}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        one_layout(path, plain, &cases[i]);
    split_then_read(path, plain);
    damaged(path);
    enospc(path);
    injected_and_modes(path);
    test_unlink(path);
    test_unlink(plain);
    return test_finish("test_subfile");
}
