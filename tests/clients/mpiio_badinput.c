/*
 * Bad arguments to the MPI-IO calls libcolio_mpiio wraps, from one table:
 * a plain MPI-IO program, run with the interposer preloaded. Every function
 * of COLIO_WRAPPED_FUNCS (src/mpiio/real.h) has a row here or the program
 * fails. Each (call, bad value) runs on every rank and, where it is not
 * the MPI library's own check, on the last rank only, and the program
 * checks: a collective call colio takes fails on every rank with the
 * expected MPI error class, through the file's error handler once; a call
 * the MPI library answers fails on the ranks that were given the bad value
 * (any class; an independent data call is the MPI library's alone, and
 * only must not write or hang); where the value is harmless (a NULL status)
 * the call does its work; no rank dies or hangs (a watchdog names the case); the file
 * holds what it held before, or that plus what the call was asked to write
 * (a good rank's one piece may go before the agreement).
 *
 * usage: mpiio_badinput DIR
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client_init.h"
#include "mpiio/real.h"

enum { FILE_BYTES = 4096, SLOT = 256, LEN = 48 };

static int rank, nprocs, failures, cases;
static char path[1024], other[1100], fresh[1100];
static const char *current = "setup";
static MPI_Errhandler handler;
static int h_calls, h_class = -1;
static unsigned char data[FILE_BYTES], rbuf[FILE_BYTES];

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "[rank %d] %s: ", rank, current);                           \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

static void on_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    h_calls++;
    MPI_Error_class(*code, &h_class);
}

/* The calls: what kind of call, and how it is made. */
typedef enum { DATA, SEEK, POSITION, OPEN, OTHER } kind_t;
typedef struct fn {
    const char *name; /* as in COLIO_WRAPPED_FUNCS, without MPI_ */
    kind_t kind;
    char dir;         /* data calls: 'w' or 'r' */
    int at, nb, split, indep, large;
} fn_t;

static const fn_t calls[] = {
    {"File_write_all", DATA, 'w', 0, 0, 0, 0, 0},       {"File_read_all", DATA, 'r', 0, 0, 0, 0, 0},
    {"File_write_at_all", DATA, 'w', 1, 0, 0, 0, 0},    {"File_read_at_all", DATA, 'r', 1, 0, 0, 0, 0},
    {"File_iwrite_all", DATA, 'w', 0, 1, 0, 0, 0},      {"File_iread_all", DATA, 'r', 0, 1, 0, 0, 0},
    {"File_iwrite_at_all", DATA, 'w', 1, 1, 0, 0, 0},   {"File_iread_at_all", DATA, 'r', 1, 1, 0, 0, 0},
    {"File_write_all_begin", DATA, 'w', 0, 0, 1, 0, 0}, {"File_read_all_begin", DATA, 'r', 0, 0, 1, 0, 0},
    {"File_write_at_all_begin", DATA, 'w', 1, 0, 1, 0, 0}, {"File_read_at_all_begin", DATA, 'r', 1, 0, 1, 0, 0},
    {"File_write", DATA, 'w', 0, 0, 0, 1, 0},           {"File_read", DATA, 'r', 0, 0, 0, 1, 0},
    {"File_iwrite", DATA, 'w', 0, 1, 0, 1, 0},          {"File_iread", DATA, 'r', 0, 1, 0, 1, 0},
#if MPI_VERSION >= 4
    {"File_write_all_c", DATA, 'w', 0, 0, 0, 0, 1},     {"File_read_all_c", DATA, 'r', 0, 0, 0, 0, 1},
    {"File_write_at_all_c", DATA, 'w', 1, 0, 0, 0, 1},  {"File_read_at_all_c", DATA, 'r', 1, 0, 0, 0, 1},
    {"File_iwrite_all_c", DATA, 'w', 0, 1, 0, 0, 1},    {"File_iread_all_c", DATA, 'r', 0, 1, 0, 0, 1},
    {"File_iwrite_at_all_c", DATA, 'w', 1, 1, 0, 0, 1}, {"File_iread_at_all_c", DATA, 'r', 1, 1, 0, 0, 1},
    {"File_write_all_begin_c", DATA, 'w', 0, 0, 1, 0, 1}, {"File_read_all_begin_c", DATA, 'r', 0, 0, 1, 0, 1},
    {"File_write_at_all_begin_c", DATA, 'w', 1, 0, 1, 0, 1}, {"File_read_at_all_begin_c", DATA, 'r', 1, 0, 1, 0, 1},
    {"File_write_c", DATA, 'w', 0, 0, 0, 1, 1},         {"File_read_c", DATA, 'r', 0, 0, 0, 1, 1},
    {"File_iwrite_c", DATA, 'w', 0, 1, 0, 1, 1},        {"File_iread_c", DATA, 'r', 0, 1, 0, 1, 1},
#endif
    {"File_seek", SEEK, 0, 0, 0, 0, 0, 0},              {"File_get_position", POSITION, 0, 0, 0, 0, 0, 0},
    {"File_open", OPEN, 0, 0, 0, 0, 0, 0},
    /* the rest are the MPI library's calls (the interposer completes colio's operations first): MPI's own
       answers to a bad value, the same on every rank where every rank gives it */
    {"File_close", OTHER, 0, 0, 0, 0, 0, 0},            {"File_delete", OTHER, 0, 0, 0, 0, 0, 0},
    {"File_set_view", OTHER, 0, 0, 0, 0, 0, 0},         {"File_set_info", OTHER, 0, 0, 0, 0, 0, 0},
    {"File_set_atomicity", OTHER, 0, 0, 0, 0, 0, 0},    {"File_sync", OTHER, 0, 0, 0, 0, 0, 0},
    {"File_set_size", OTHER, 0, 0, 0, 0, 0, 0},         {"File_preallocate", OTHER, 0, 0, 0, 0, 0, 0},
    {"File_write_all_end", OTHER, 0, 0, 0, 0, 0, 0},    {"File_read_all_end", OTHER, 0, 0, 0, 0, 0, 0},
    {"File_write_at_all_end", OTHER, 0, 0, 0, 0, 0, 0}, {"File_read_at_all_end", OTHER, 0, 0, 0, 0, 0, 0},
    {"Info_set", OTHER, 0, 0, 0, 0, 0, 0},
};

/* One bad value: which calls take it, the class colio answers with (0: any error, -1: success). */
typedef enum { B_BUF, B_COUNT, B_TYPE_NULL, B_TYPE_UNCOMMITTED, B_OFF_NEG, B_OFF_HUGE, B_STATUS, B_MODE, B_REQ,
               B_WHENCE, B_SEEK_NEG, B_POS_NULL, B_PATH_OTHER, B_PATH_OTHER_NEW, B_MPI_OWN } bad_kind_t;

typedef struct bad {
    bad_kind_t kind;
    const char *what;
    int cls;
    int all_only, last_only;
} bad_t;

static const bad_t bad[] = {
    {B_BUF, "NULL buffer", MPI_ERR_ARG, 0, 0},
    {B_COUNT, "count -1", MPI_ERR_ARG, 0, 0},
    {B_TYPE_NULL, "MPI_DATATYPE_NULL", MPI_ERR_TYPE, 0, 0},
    {B_TYPE_UNCOMMITTED, "an uncommitted datatype", MPI_ERR_TYPE, 0, 0},
    {B_OFF_NEG, "offset -1", MPI_ERR_ARG, 0, 0},
    {B_OFF_HUGE, "offset INT64_MAX", MPI_ERR_ARG, 0, 0},
    {B_STATUS, "NULL status (ignored)", -1, 0, 0},
    {B_MODE, "a file open for the other direction", -2, 1, 0}, /* READ_ONLY or ACCESS */
    {B_REQ, "NULL request pointer", MPI_ERR_ARG, 0, 0},
    {B_WHENCE, "whence 12345", MPI_ERR_ARG, 0, 0},
    {B_SEEK_NEG, "position -1", MPI_ERR_ARG, 0, 0},
    {B_POS_NULL, "NULL offset pointer", MPI_ERR_ARG, 0, 0},
    {B_PATH_OTHER, "another existing file on the last rank", MPI_ERR_NOT_SAME, 0, 1},
    {B_PATH_OTHER_NEW, "another existing file, the others creating one", MPI_ERR_NOT_SAME, 0, 1},
    {B_MPI_OWN, "MPI_FILE_NULL (a missing file to delete)", 0, 1, 0},
};

/* Which bad values a call takes. */
static int applies(const fn_t *f, const bad_t *b)
{
    if (f->kind == DATA && f->indep) /* the MPI library's own calls: MPI checks them (a count it refuses) */
        return b->kind == B_COUNT;
    switch (b->kind) {
    case B_BUF: case B_COUNT: case B_TYPE_NULL: case B_TYPE_UNCOMMITTED:
        return f->kind == DATA;
    case B_OFF_NEG: case B_OFF_HUGE:
        return f->kind == DATA && f->at;
    case B_STATUS:
        return f->kind == DATA && !f->nb;
    case B_MODE:
        return f->kind == DATA && !f->indep;
    case B_REQ:
        return f->kind == DATA && f->nb && !f->indep;
    case B_WHENCE: case B_SEEK_NEG:
        return f->kind == SEEK;
    case B_POS_NULL:
        return f->kind == POSITION;
    case B_PATH_OTHER: case B_PATH_OTHER_NEW:
        return f->kind == OPEN;
    case B_MPI_OWN:
        return f->kind == OTHER;
    }
    return 0;
}

static void say(const char *what, int sig)
{
    char line[600];
    int n = snprintf(line, sizeof line, "[rank %d] mpiio_badinput: %s%.0d in case %s\n", rank, what, sig, current);
    if (write(2, line, (size_t)n) < 0)
        _exit(3);
}
static void on_alarm(int sig) { (void)sig, say("hung", 0), _exit(3); }
static void on_crash(int sig)
{
    say("signal ", sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

static unsigned char old_byte(long i) { return (unsigned char)((i * 131 + 17) ^ 0xA5); }
static unsigned char new_byte(int r, long i) { return (unsigned char)(i * 7 + r * 41 + 3); }
static MPI_Offset my_off(int r) { return (MPI_Offset)r * SLOT + 8; }

static void make_file(const char *p, int salt)
{
    unsigned char b[FILE_BYTES];
    for (long i = 0; i < FILE_BYTES; i++)
        b[i] = (unsigned char)(old_byte(i) ^ salt);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, b, FILE_BYTES) == FILE_BYTES, "cannot make %s", p);
    if (fd >= 0)
        close(fd);
}

/* Rank 0 reads the file; every rank gets it. */
static long snapshot(const char *p, unsigned char *img)
{
    long got = 0;
    if (rank == 0) {
        memset(img, 0, FILE_BYTES);
        int fd = open(p, O_RDONLY);
        got = fd >= 0 ? (long)pread(fd, img, FILE_BYTES, 0) : -1;
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(&got, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(img, FILE_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD);
    return got;
}

/* The data call of f with these arguments; a nonblocking call is completed. */
static int data_call(const fn_t *f, MPI_File fh, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype t,
                     MPI_Status *st, MPI_Request *rq)
{
    int w = f->dir == 'w', rc;
    if (!f->at && !f->indep)
        MPI_File_seek(fh, my_off(rank), MPI_SEEK_SET);
    if (f->indep)
        MPI_File_seek(fh, my_off(rank), MPI_SEEK_SET);
#if MPI_VERSION >= 4
    if (f->large) {
        if (f->split)
            rc = f->at ? (w ? MPI_File_write_at_all_begin_c(fh, off, buf, count, t) : MPI_File_read_at_all_begin_c(fh, off, buf, count, t))
                       : (w ? MPI_File_write_all_begin_c(fh, buf, count, t) : MPI_File_read_all_begin_c(fh, buf, count, t));
        else if (f->nb && f->indep)
            rc = w ? MPI_File_iwrite_c(fh, buf, count, t, rq) : MPI_File_iread_c(fh, buf, count, t, rq);
        else if (f->nb)
            rc = f->at ? (w ? MPI_File_iwrite_at_all_c(fh, off, buf, count, t, rq) : MPI_File_iread_at_all_c(fh, off, buf, count, t, rq))
                       : (w ? MPI_File_iwrite_all_c(fh, buf, count, t, rq) : MPI_File_iread_all_c(fh, buf, count, t, rq));
        else if (f->indep)
            rc = w ? MPI_File_write_c(fh, buf, count, t, st) : MPI_File_read_c(fh, buf, count, t, st);
        else
            rc = f->at ? (w ? MPI_File_write_at_all_c(fh, off, buf, count, t, st) : MPI_File_read_at_all_c(fh, off, buf, count, t, st))
                       : (w ? MPI_File_write_all_c(fh, buf, count, t, st) : MPI_File_read_all_c(fh, buf, count, t, st));
    } else
#endif
    {
        int c = count < 0 ? -1 : (int)count;
        if (f->split)
            rc = f->at ? (w ? MPI_File_write_at_all_begin(fh, off, buf, c, t) : MPI_File_read_at_all_begin(fh, off, buf, c, t))
                       : (w ? MPI_File_write_all_begin(fh, buf, c, t) : MPI_File_read_all_begin(fh, buf, c, t));
        else if (f->nb && f->indep)
            rc = w ? MPI_File_iwrite(fh, buf, c, t, rq) : MPI_File_iread(fh, buf, c, t, rq);
        else if (f->nb)
            rc = f->at ? (w ? MPI_File_iwrite_at_all(fh, off, buf, c, t, rq) : MPI_File_iread_at_all(fh, off, buf, c, t, rq))
                       : (w ? MPI_File_iwrite_all(fh, buf, c, t, rq) : MPI_File_iread_all(fh, buf, c, t, rq));
        else if (f->indep)
            rc = w ? MPI_File_write(fh, buf, c, t, st) : MPI_File_read(fh, buf, c, t, st);
        else
            rc = f->at ? (w ? MPI_File_write_at_all(fh, off, buf, c, t, st) : MPI_File_read_at_all(fh, off, buf, c, t, st))
                       : (w ? MPI_File_write_all(fh, buf, c, t, st) : MPI_File_read_all(fh, buf, c, t, st));
    }
    if (f->split) { /* the outcome of a split collective comes with its end */
        int erc = f->at ? (w ? MPI_File_write_at_all_end(fh, buf, st) : MPI_File_read_at_all_end(fh, buf, st))
                        : (w ? MPI_File_write_all_end(fh, buf, st) : MPI_File_read_all_end(fh, buf, st));
        rc = rc != MPI_SUCCESS ? rc : erc;
    }
    if (f->nb && rc == MPI_SUCCESS && rq && *rq != MPI_REQUEST_NULL)
        rc = MPI_Wait(rq, MPI_STATUS_IGNORE); /* a failed operation's class (colio's generalized request) */
    return rc;
}

/* The MPI library's own check of each other call: MPI_FILE_NULL (a missing file for delete, a key too long). */
static int mpi_own_call(const fn_t *f)
{
    MPI_File none = MPI_FILE_NULL;
    MPI_Status st;
    const char *n = f->name;
    if (strcmp(n, "File_close") == 0)
        return MPI_File_close(&none);
    if (strcmp(n, "File_delete") == 0)
        return MPI_File_delete(fresh, MPI_INFO_NULL);
    if (strcmp(n, "File_set_view") == 0)
        return MPI_File_set_view(none, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (strcmp(n, "File_set_info") == 0)
        return MPI_File_set_info(none, MPI_INFO_NULL);
    if (strcmp(n, "File_set_atomicity") == 0)
        return MPI_File_set_atomicity(none, 1);
    if (strcmp(n, "File_sync") == 0)
        return MPI_File_sync(none);
    if (strcmp(n, "File_set_size") == 0)
        return MPI_File_set_size(none, 0);
    if (strcmp(n, "File_preallocate") == 0)
        return MPI_File_preallocate(none, 0);
    if (strcmp(n, "File_write_all_end") == 0)
        return MPI_File_write_all_end(none, data, &st);
    if (strcmp(n, "File_read_all_end") == 0)
        return MPI_File_read_all_end(none, rbuf, &st);
    if (strcmp(n, "File_write_at_all_end") == 0)
        return MPI_File_write_at_all_end(none, data, &st);
    if (strcmp(n, "File_read_at_all_end") == 0)
        return MPI_File_read_at_all_end(none, rbuf, &st);
    if (strcmp(n, "Info_set") == 0) { /* a key longer than MPI_MAX_INFO_KEY, beside PnetCDF's driver key */
        char key[MPI_MAX_INFO_KEY + 16];
        memset(key, 'k', sizeof key - 1);
        key[sizeof key - 1] = '\0';
        MPI_Info info;
        MPI_Info_create(&info);
        int rc = MPI_Info_set(info, "nc_driver", "mpiio") == MPI_SUCCESS ? MPI_Info_set(info, key, "v") : MPI_ERR_INTERN;
        MPI_Info_free(&info);
        return rc;
    }
    CHECK(0, "no MPI check for %s", n);
    return MPI_ERR_INTERN;
}

/* Make the call with the bad value where `here`; -1 for "the call returned no error where it should". */
static int make_call(const fn_t *f, const bad_t *b, int here, MPI_File *fh)
{
    MPI_Offset off = my_off(rank);
    void *buf = f->dir == 'w' ? (void *)data : (void *)rbuf;
    MPI_Count count = LEN;
    MPI_Datatype t = MPI_BYTE, made = MPI_DATATYPE_NULL;
    MPI_Status st, *stp = &st;
    MPI_Request rq = MPI_REQUEST_NULL, *rqp = &rq;
    if (here) {
        switch (b->kind) {
        case B_BUF: buf = NULL; break;
        case B_COUNT: count = -1; break;
        case B_TYPE_NULL: t = MPI_DATATYPE_NULL; break;
        case B_TYPE_UNCOMMITTED: MPI_Type_contiguous(LEN, MPI_BYTE, &made), t = made, count = 1; break;
        case B_OFF_NEG: off = -1; break;
        case B_OFF_HUGE: off = INT64_MAX; break;
        case B_STATUS: stp = NULL; break;
        case B_REQ: rqp = NULL; break;
        default: break;
        }
    }
    int rc = MPI_SUCCESS;
    switch (f->kind) {
    case DATA:
        rc = data_call(f, *fh, off, buf, count, t, stp, rqp);
        break;
    case SEEK:
        rc = MPI_File_seek(*fh, here && b->kind == B_SEEK_NEG ? -1 : 1, here && b->kind == B_WHENCE ? 12345 : MPI_SEEK_SET);
        break;
    case POSITION: {
        MPI_Offset at;
        rc = MPI_File_get_position(*fh, here ? NULL : &at);
        break;
    }
    case OPEN: {
        MPI_File g = MPI_FILE_NULL;
        int amode = MPI_MODE_RDWR;
        const char *p = path;
        if (b->kind == B_PATH_OTHER_NEW)
            amode |= MPI_MODE_CREATE, p = here ? other : fresh;
        else if (here)
            p = other;
        MPI_File_set_errhandler(MPI_FILE_NULL, handler); /* open errors go through MPI_FILE_NULL's */
        rc = MPI_File_open(MPI_COMM_WORLD, p, amode, MPI_INFO_NULL, &g);
        MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&g);
        break;
    }
    case OTHER:
        rc = mpi_own_call(f);
        break;
    }
    if (made != MPI_DATATYPE_NULL)
        MPI_Type_free(&made);
    return rc;
}

static void run_case(const fn_t *f, const bad_t *b, int scope_last)
{
    char name[300];
    snprintf(name, sizeof name, "%d MPI_%s: %s, on %s", cases++, f->name, b->what,
             scope_last ? "the last rank" : "every rank");
    current = name;
    int before_failures = failures;
    alarm(60);
    if (rank == 0) {
        make_file(path, 0);
        make_file(other, 0x5A);
        unlink(fresh);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int here = !scope_last || rank == nprocs - 1;
    int amode = MPI_MODE_RDWR;
    if (b->kind == B_MODE)
        amode = f->dir == 'w' ? MPI_MODE_RDONLY : MPI_MODE_WRONLY;
    MPI_File fh = MPI_FILE_NULL;
    if (f->kind != OPEN) {
        int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
        CHECK(rc == MPI_SUCCESS, "cannot open the case's file");
        MPI_File_set_errhandler(fh, handler);
    }
    for (long i = 0; i < FILE_BYTES; i++)
        data[i] = new_byte(rank, i);
    memset(rbuf, 0, sizeof rbuf);
    unsigned char before[FILE_BYTES], now[FILE_BYTES], wrote[FILE_BYTES];
    long before_len = snapshot(path, before);
    h_calls = 0, h_class = -1;
    int rc = make_call(f, b, here, &fh);
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    int collective = f->kind == DATA ? !f->indep : f->kind == OPEN || b->all_only;
    int want = b->cls == -2 ? (f->dir == 'w' ? MPI_ERR_READ_ONLY : MPI_ERR_ACCESS) : b->cls;
    int failed_here = collective || here;
    if (want == -1 || !failed_here)
        CHECK(rc == MPI_SUCCESS, "error class %d where the call must succeed", cls);
    else if (f->kind == DATA && f->indep)
        ; /* the MPI library's own independent call: its answer (MPICH 5.0.2 takes a count of -1 as 0) */
    else if (want == 0)
        CHECK(rc != MPI_SUCCESS, "the call succeeded; MPI defines the value as erroneous");
    else if (b->kind == B_MODE && f->dir == 'w')
        CHECK(cls == MPI_ERR_READ_ONLY || cls == MPI_ERR_ACCESS, "class %d, expected READ_ONLY or ACCESS", cls);
    else
        CHECK(cls == want, "class %d, expected %d", cls, want);
    int theirs = f->kind == DATA && (f->indep || b->kind == B_MPI_OWN); /* the MPI library's own handler rules */
    if (rc != MPI_SUCCESS && f->kind == DATA && !theirs && !(f->nb && h_calls == 0))
        CHECK(h_calls == 1 && h_class == cls, "the error handler ran %d times (class %d), expected once with %d",
              h_calls, h_class, cls);
    int in[2] = {cls, -cls}, out[2];
    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int local = strncmp(f->name, "File_", 5) != 0; /* MPI_Info_set: a local call, whose class MPI may vary by rank */
    if (collective && !local)
        CHECK(out[0] == -out[1], "error classes differ across ranks (%d..%d)", out[0], -out[1]);
    if (fh != MPI_FILE_NULL)
        MPI_File_close(&fh);
    /* the bytes: before, plus what the call was asked to write where it worked (or went early) */
    /* what the call wrote: nothing where it was given a bad value, but for a harmless one */
    int worked = rc == MPI_SUCCESS && f->dir == 'w' && (!here || b->cls == -1);
    int *done = malloc(sizeof(int) * (size_t)nprocs);
    MPI_Allgather(&worked, 1, MPI_INT, done, 1, MPI_INT, MPI_COMM_WORLD);
    long now_len = snapshot(path, now);
    memcpy(wrote, before, FILE_BYTES);
    long want_len = before_len;
    for (int r = 0; f->dir == 'w' && r < nprocs; r++) {
        MPI_Offset at = my_off(r);
        unsigned char piece[LEN];
        for (int i = 0; i < LEN; i++)
            piece[i] = new_byte(r, i);
        int early = !done[r] && collective && scope_last && r != nprocs - 1; /* a good rank's piece may have gone */
        if (done[r] || (early && memcmp(now + at, piece, LEN) == 0)) {
            memcpy(wrote + at, piece, LEN);
            want_len = at + LEN > want_len ? at + LEN : want_len;
        }
    }
    free(done);
    CHECK(now_len == want_len, "the file is %ld bytes, expected %ld", now_len, want_len);
    long at = -1;
    for (long i = 0; i < want_len && at < 0; i++)
        if (now[i] != wrote[i])
            at = i;
    CHECK(at < 0, "byte %ld is %d, expected %d", at, at >= 0 ? now[at] : 0, at >= 0 ? wrote[at] : 0);
    if (f->kind == OPEN) {
        unsigned char o[FILE_BYTES];
        snapshot(other, o);
        int same = 1;
        for (long i = 0; i < FILE_BYTES && same; i++)
            same = o[i] == (unsigned char)(old_byte(i) ^ 0x5A);
        CHECK(same, "the other file changed");
        CHECK(access(fresh, F_OK) != 0, "the refused open left %s behind", fresh);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    alarm(0);
    int mine = failures > before_failures, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && (any || getenv("COLIO_TEST_VERBOSE")))
        printf("%-90s %s\n", name, any ? "FAIL" : "ok");
}

/* Every function the interposer wraps has a row. */
#define COLIO_NAME_(name, params) #name,
static const char *wrapped[] = {COLIO_WRAPPED_FUNCS(COLIO_NAME_)};
#undef COLIO_NAME_

static void check_coverage(void)
{
    for (size_t i = 0; i < sizeof wrapped / sizeof *wrapped; i++) {
        int found = 0;
        for (size_t k = 0; k < sizeof calls / sizeof *calls && !found; k++)
            found = strcmp(calls[k].name, wrapped[i]) == 0;
        CHECK(found, "MPI_%s is wrapped by libcolio_mpiio but has no row in mpiio_badinput", wrapped[i]);
    }
}

int main(int argc, char **argv)
{
    client_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiio_badinput DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    signal(SIGALRM, on_alarm);
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    if (rank == 0)
        mkdir(argv[1], 0777);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/badinput.dat", argv[1]);
    snprintf(other, sizeof other, "%s.other", path);
    snprintf(fresh, sizeof fresh, "%s.fresh", path);
    MPI_File_create_errhandler(on_error, &handler);
    check_coverage();
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
            const fn_t *f = &calls[i];
            const bad_t *b = &bad[k];
            if (!applies(f, b) || (b->last_only && nprocs == 1))
                continue;
            int collective = f->kind == DATA ? !f->indep : f->kind == OPEN;
            if (!b->last_only)
                run_case(f, b, 0);
            if (nprocs > 1 && !(b->all_only && collective) && b->kind != B_MPI_OWN)
                run_case(f, b, 1);
        }
    current = "done";
    MPI_Errhandler_free(&handler);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpiio_badinput: %d cases on %d ranks: %s\n", cases, nprocs, total ? "FAIL" : "PASS");
    MPI_Finalize();
    return total ? 1 : 0;
}
