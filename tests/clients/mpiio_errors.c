/*
 * Errors through libcolio_mpiio are collective and clear: a plain MPI-IO
 * program makes calls that must fail, and checks that every rank gets a
 * non-success code of the same (expected) error class, that
 * MPI_Error_string explains it, that the file's error handler ran once
 * with that class (errors go through the handler, as MPI does), and that
 * the handle still works afterwards (a correct collective write and read
 * back, or for a read-only file, unchanged contents).
 *
 * usage: mpiio_errors DIR   (a scratch directory; created if missing)
 *
 * Meant to run with libcolio_mpiio preloaded. Without it (detected by the
 * interposer's marker symbol, or COLIO_DISABLE) the /dev/full case only
 * reports what the MPI library does and the fault-injection case is
 * skipped, so the bare library can be compared: MPICH 4.0.2 passes; Open
 * MPI 4.1.4's OMPIO returns success from a collective write whose
 * pwritev failed, and its next MPI_File_sync then fails on one rank and
 * hangs the others.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client_init.h"

#define N 64 /* bytes per rank in every write */

static int rank, nprocs, failures, interposed;
static const char *dir;
static MPI_Errhandler handler;
static int h_calls, h_class = -1; /* what the error handler saw since the last expect_error */

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "[rank %d] line %d: ", rank, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#define MPI_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static unsigned char datum(int r, long i, int salt) { return (unsigned char)(r * 37 + i * 11 + salt * 101 + 1); }

static const char *path_of(const char *name)
{
    static char p[4096];
    snprintf(p, sizeof p, "%s/errors.%s", dir, name);
    return p;
}

/* The file error handler: records and returns (the call then returns the code too). */
static void on_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    h_calls++;
    MPI_Error_class(*code, &h_class);
}

static int open_file(const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    int rc = MPI_File_open(MPI_COMM_WORLD, path_of(name), amode, info, fh);
    if (rc == MPI_SUCCESS)
        MPI_File_set_errhandler(*fh, handler);
    return rc;
}

/*
 * rc must be an error, of the same class on every rank, with a message,
 * raised once through the error handler; want_a/want_b are the accepted
 * classes (0: any error, for calls the MPI library itself rejects).
 */
static void expect_error(const char *what, int rc, int want_a, int want_b)
{
    int cls = -1, len = 0, in[2], out[2];
    char text[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
    }
    in[0] = cls, in[1] = -cls;
    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "%s: the call succeeded, expected an error", what);
    CHECK(out[0] == -out[1], "%s: error classes differ across ranks (%d..%d)", what, out[0], -out[1]);
    CHECK(!want_a || cls == want_a || cls == want_b, "%s: class %d (%s), expected %d or %d", what, cls, text, want_a,
          want_b);
    CHECK(rc == MPI_SUCCESS || (len > 0 && text[0]), "%s: MPI_Error_string gave no text", what);
    CHECK(h_calls == 1 && h_class == cls, "%s: the error handler ran %d times (last class %d), expected once with %d",
          what, h_calls, h_class, cls);
    if (rank == 0)
        printf("  %s: class %d: %s\n", what, cls, text);
    h_calls = 0, h_class = -1;
}

/* Every rank reads the N*nprocs bytes at off and checks them against salt's pattern. */
static void check_contents(MPI_File fh, const char *what, MPI_Offset off, int salt)
{
    unsigned char *all = malloc((size_t)N * nprocs);
    memset(all, 0xEE, (size_t)N * nprocs);
    int rc = MPI_File_read_at_all(fh, off, all, N * nprocs, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "%s: read back failed", what);
    long bad = 0;
    for (int r = 0; r < nprocs; r++)
        for (long i = 0; i < N; i++)
            bad += all[(long)r * N + i] != datum(r, i, salt);
    CHECK(bad == 0, "%s: %ld bytes wrong at offset %lld", what, bad, (long long)off);
    free(all);
}

/* A correct collective write of N bytes per rank at off, then read back: the handle still works. */
static void check_usable(MPI_File fh, const char *what, MPI_Offset off, int salt)
{
    unsigned char buf[N];
    for (long i = 0; i < N; i++)
        buf[i] = datum(rank, i, salt);
    int rc = MPI_File_write_at_all(fh, off + (MPI_Offset)rank * N, buf, N, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "%s: write afterwards failed", what);
    /* MPI makes other ranks' writes visible only after sync-barrier-sync (OMPIO's may not have landed yet) */
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_sync(fh));
    check_contents(fh, what, off, salt);
    CHECK(h_calls == 0, "%s: the error handler ran for a correct call", what);
}

/* 1. A device that is always full: ENOSPC inside colio becomes MPI_ERR_NO_SPACE on every rank. */
static void case_enospc(void)
{
    MPI_File fh;
    unsigned char buf[N] = {0};
    int rc = MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) { /* collective: fails everywhere or nowhere */
        if (rank == 0)
            printf("  1. skipped: cannot open /dev/full\n");
        return;
    }
    MPI_File_set_errhandler(fh, handler);
    rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * N, buf, N, MPI_BYTE, MPI_STATUS_IGNORE);
    if (interposed) {
        expect_error("1. write_at_all to /dev/full", rc, MPI_ERR_NO_SPACE, MPI_ERR_NO_SPACE);
    } else { /* information: ROMIO says MPI_ERR_IO; OMPIO (vulcan) returns success */
        int cls = -1;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (rank == 0)
            printf("  1. bare MPI: write_at_all to /dev/full gave class %d, handler ran %d times\n", cls, h_calls);
        h_calls = 0;
    }
    MPI_OK(MPI_File_close(&fh)); /* nothing buffered to flush: closes cleanly */
}

/*
 * 2. and 3. Writing to a file opened read-only (mode 0444 too: as root
 * that alone stops nothing, hence the read-only open): READ_ONLY (colio,
 * ROMIO) or ACCESS (OMPIO), contents unchanged. Not as root, opening the
 * 0444 file read-write must fail too: the MPI library refuses it before
 * colio sees the file.
 */
static void case_readonly(void)
{
    MPI_File fh;
    MPI_OK(open_file("ro", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    check_usable(fh, "2. setup", 0, 1);
    MPI_OK(MPI_File_close(&fh));
    if (rank == 0)
        CHECK(chmod(path_of("ro"), 0444) == 0, "chmod %s", path_of("ro"));
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_OK(open_file("ro", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    unsigned char buf[N];
    for (long i = 0; i < N; i++)
        buf[i] = datum(rank, i, 2);
    MPI_OK(MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET));
    int rc = MPI_File_write_all(fh, buf, N, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_error("2. write_all on a read-only handle", rc, MPI_ERR_READ_ONLY, MPI_ERR_ACCESS);
    check_contents(fh, "2. contents after the refused write", 0, 1);
    MPI_OK(MPI_File_close(&fh));

    if (geteuid() == 0) {
        if (rank == 0)
            printf("  3. skipped: root ignores mode 0444 (2. covers the refused write)\n");
        return;
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, handler); /* open errors are raised on MPI_FILE_NULL */
    rc = open_file("ro", MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_error("3. read-write open of a 0444 file", rc, 0, 0);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
}

/* 4. and 5. Arguments MPI calls erroneous: any class is accepted, the same on every rank. */
static void case_bad_args(void)
{
    MPI_File fh;
    unsigned char buf[N] = {0};
    MPI_OK(open_file("args", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

    /* colio refuses the type itself (COLIO_ERR_TYPE, agreed): a failed call on every rank, the handler called once
       (handing it to MPICH 5.0.2 raised the error through the handler and returned MPI_SUCCESS) */
    MPI_Datatype t;
    MPI_Type_contiguous(N, MPI_BYTE, &t); /* never committed */
    int rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * N, buf, 1, t, MPI_STATUS_IGNORE);
    expect_error("4. write_at_all with an uncommitted datatype", rc, 0, 0);
    MPI_Type_free(&t);
    check_usable(fh, "4. afterwards", 0, 3);

    rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * N, buf, -1, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_error("5. write_at_all with count -1", rc, 0, 0);
    /* at the file pointer too (0 here): the call must not move it, nor raise a second error */
    MPI_Offset before = -1, after = -1;
    MPI_OK(MPI_File_get_position(fh, &before));
    rc = MPI_File_write_all(fh, buf, -1, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_error("5. write_all with count -1", rc, 0, 0);
    MPI_OK(MPI_File_get_position(fh, &after));
    CHECK(after == before, "5. write_all with count -1 moved the file pointer from %lld to %lld", (long long)before,
          (long long)after);
    check_usable(fh, "5. afterwards", (MPI_Offset)N * nprocs, 4);
    MPI_OK(MPI_File_close(&fh));
}

/*
 * 6. colio's fault backend: the last rank's first storage write fails with
 * EIO. romio_cb_write=disable makes every rank write its own bytes, so the
 * other ranks' storage calls succeed and still they must report MPI_ERR_IO.
 * The next writes succeed: the handle stays usable and closes cleanly.
 */
static void case_fault(void)
{
    if (!interposed) {
        if (rank == 0)
            printf("  6. skipped: colio's fault backend needs libcolio_mpiio\n");
        return;
    }
    char spec[64];
    snprintf(spec, sizeof spec, "write:1:EIO:%d", nprocs - 1);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_backend", "fault");
    MPI_Info_set(info, "colio_fault", spec);
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_File fh;
    MPI_OK(open_file("fault", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    unsigned char buf[N] = {0};
    int rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * N, buf, N, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_error("6. write_at_all with an injected EIO on the last rank", rc, MPI_ERR_IO, MPI_ERR_IO);
    check_usable(fh, "6. afterwards", 0, 5);
    MPI_OK(MPI_File_close(&fh));
    CHECK(h_calls == 0, "6. the error handler ran at close");
}

/*
 * 7. An invalid colio hint value: the MPI library ignores keys it does not
 * know (and cb_nodes=abc), so the open succeeds; colio refuses the hints
 * and the interposer leaves the file to MPI-IO. The same through
 * set_info on a file colio had taken. Writes land either way.
 */
static void case_bad_hint(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_exchange", "bogus");
    MPI_Info_set(info, "cb_nodes", "abc");
    MPI_File fh;
    int rc = open_file("hint", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK(rc == MPI_SUCCESS, "7. open with invalid colio hints failed");
    if (rc == MPI_SUCCESS) {
        check_usable(fh, "7. after open with invalid hints", 0, 6);
        MPI_OK(MPI_File_close(&fh));
    }
    MPI_OK(open_file("hint", MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    check_usable(fh, "7. before set_info", (MPI_Offset)N * nprocs, 7);
    MPI_OK(MPI_File_set_info(fh, info));
    check_usable(fh, "7. after set_info with invalid hints", 0, 8);
    check_contents(fh, "7. earlier bytes kept", (MPI_Offset)N * nprocs, 7);
    MPI_OK(MPI_File_close(&fh));
    MPI_Info_free(&info);
}

/*
 * 8. Not an error: data sieving asked for by the program stays what it
 * asked (the interposer once forced it off and MPI_File_get_info reported
 * it); colio's byte-range locks keep the MPI library's sieving and colio's
 * writes apart instead (mpiio_indep_view case b checks that).
 */
static void case_sieving_kept(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "enable");
    MPI_File fh;
    MPI_OK(open_file("sieve", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_File_set_info(fh, info));
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int found = 0;
    MPI_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_ds_write", MPI_MAX_INFO_VAL, value, &found);
    MPI_Info_free(&used);
    if (found)
        CHECK(strcmp(value, "disable") != 0, "8. romio_ds_write is %s, the program asked for enable", value);
    check_usable(fh, "8. with data sieving asked for", 0, 9);
    MPI_OK(MPI_File_close(&fh));
    MPI_Info_free(&info);
}

/*
 * 8. A colio subfiled file (written here by hand: metadata naming one
 * subfile) cannot be opened through the interposer: the MPI library's own
 * handle would read the metadata as data. The open fails on every rank with
 * MPI_ERR_UNSUPPORTED_OPERATION (without the interposer MPI opens the text),
 * and MPI_File_delete removes it with its subfile.
 */
static void case_subfiled(void)
{
    if (!interposed)
        return;
    if (rank == 0) {
        FILE *f = fopen(path_of("sub"), "w"), *g = fopen(path_of("sub.sub.0"), "w");
        CHECK(f && g, "making the subfiled file");
        if (f)
            fputs("colio-subfile 1\nstripe 4096\nlogical_size 3\nsubfiles 1\nsubfile 0 errors.sub.sub.0\n", f), fclose(f);
        if (g)
            fputs("abc", g), fclose(g);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    MPI_File_set_errhandler(MPI_FILE_NULL, handler); /* open errors are raised on MPI_FILE_NULL */
    int rc = MPI_File_open(MPI_COMM_WORLD, path_of("sub"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect_error("8. open of a colio subfiled file", rc, MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_UNSUPPORTED_OPERATION);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    /* MPI_File_delete through the interposer removes the subfiles with the metadata */
    if (rank == 0) {
        CHECK(MPI_File_delete(path_of("sub"), MPI_INFO_NULL) == MPI_SUCCESS, "8. MPI_File_delete of the subfiled file");
        CHECK(access(path_of("sub"), F_OK) != 0 && access(path_of("sub.sub.0"), F_OK) != 0,
              "8. MPI_File_delete left the metadata or its subfile behind");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiio_errors DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dir = argv[1];
    const char *off = getenv("COLIO_DISABLE");
    interposed = dlsym(RTLD_DEFAULT, "colio_mpiio_interposer") != NULL && !(off && *off && strcmp(off, "0") != 0);
    if (rank == 0) {
        mkdir(dir, 0777); /* may exist */
        const char *names[] = {"ro", "args", "fault", "hint", "sieve"};
        for (int i = 0; i < 5; i++)
            unlink(path_of(names[i])); /* leftovers of an earlier run (the 0444 one too) */
        printf("mpiio_errors: %s libcolio_mpiio\n", interposed ? "through" : "without");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_create_errhandler(on_error, &handler);

    case_enospc();
    case_readonly();
    case_bad_args();
    case_fault();
    case_bad_hint();
    case_sieving_kept();
    case_subfiled();

    MPI_Errhandler_free(&handler);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpiio_errors on %d ranks: %s\n", nprocs, total ? "FAIL" : "PASS");
    MPI_Finalize();
    return total ? 1 : 0;
}
