/*
 * libcolio_gio: GIO's public calls (GIO 1.0.0's API: collective and
 * independent reads and writes of offset-length lists, POSIX open flags,
 * GIO's error codes and hint names) on colio, for programs written against
 * standalone GIO, linked or preloaded in place of libgio. Collective calls
 * are colio's list calls; independent ones are POSIX calls on a descriptor
 * of their own, as GIO's are. A list's memory side that is not one stretch
 * is packed into (or unpacked from) a buffer of the call.
 */
#define _GNU_SOURCE
#include "gio/gio_api.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colio.h"

struct GIOI_File {
    colio_file *cf;
    MPI_Comm comm;
    char *path;
    int amode;             /* as given (O_*) */
    int fd;                /* independent calls' descriptor, -1 until the first one */
};

/* ---- errors ---------------------------------------------------------------------------- */

#define GIO_ERRORS(X)                                                                                   \
    X(GIO_NOERR, "No error")                                                                            \
    X(GIO_EEXIST, "File exists")                                                                        \
    X(GIO_EINVAL, "Invalid argument")                                                                   \
    X(GIO_EPERM, "Write to a file opened read-only")                                                    \
    X(GIO_ENOMEM, "Out of memory")                                                                      \
    X(GIO_EACCESS, "Permission denied")                                                                 \
    X(GIO_ENEGATIVECNT, "Negative count")                                                               \
    X(GIO_EFILE, "File system error")                                                                   \
    X(GIO_ENOENT, "No such file")                                                                       \
    X(GIO_EINTOVERFLOW, "Count too large for the call")                                                 \
    X(GIO_ENOTENABLED, "Feature not available")                                                         \
    X(GIO_EBAD_FILE, "Invalid file name, or its folder does not exist")                                 \
    X(GIO_ENO_SPACE, "No space left on the device")                                                     \
    X(GIO_EQUOTA, "Disk quota exceeded")                                                                \
    X(GIO_EFSTYPE, "Unknown file system type")                                                          \
    X(GIO_EMULTIDEFINE_AMODE, "Open mode differs among processes")                                      \
    X(GIO_EMULTIDEFINE_FNC_ARGS, "Arguments of a collective call differ among processes")               \
    X(GIO_EMULTIDEFINE_HINTS, "Hints differ among processes")                                           \
    X(GIO_EFILEVIEW, "File offsets of a call decrease")

const char *GIO_strerror(int err)
{
#define GIO_TEXT_(code, text) if (err == code) return text;
    GIO_ERRORS(GIO_TEXT_)
#undef GIO_TEXT_
    if (err > 0) /* a system error number */
        return strerror(err);
    return "Unknown error code";
}

const char *GIO_strerrno(int err)
{
#define GIO_NAME_(code, text) if (err == code) return #code;
    GIO_ERRORS(GIO_NAME_)
#undef GIO_NAME_
    static __thread char unknown[32];
    snprintf(unknown, sizeof unknown, "Unknown code %d", err);
    return unknown;
}

const char *GIO_inq_libvers(void) { return "1.0.0 (colio " COLIO_GIO_VERSION ")"; }

/* colio's code as GIO's (the same on every rank where colio agreed it). */
static int gio_code(int rc)
{
    switch (rc) {
    case COLIO_SUCCESS: return GIO_NOERR;
    case COLIO_ERR_NOMEM: return GIO_ENOMEM;
    case COLIO_ERR_NOENT: return GIO_ENOENT;
    case COLIO_ERR_EXIST: return GIO_EEXIST;
    case COLIO_ERR_ACCESS: return GIO_EACCESS;
    case COLIO_ERR_READONLY: return GIO_EPERM;
    case COLIO_ERR_NOSPC: return GIO_ENO_SPACE;
    case COLIO_ERR_QUOTA: return GIO_EQUOTA;
    case COLIO_ERR_BAD_FILE: return GIO_EBAD_FILE;
    case COLIO_ERR_NOT_SAME: return GIO_EMULTIDEFINE_FNC_ARGS;
    case COLIO_ERR_ARG: case COLIO_ERR_HINT: case COLIO_ERR_AMODE: return GIO_EINVAL;
    default: return GIO_EFILE;
    }
}

/* An errno of a POSIX call as GIO's code. */
static int errno_code(int e)
{
    switch (e) {
    case ENOENT: return GIO_ENOENT;
    case EEXIST: return GIO_EEXIST;
    case EACCES: return GIO_EACCESS;
    case EPERM: case EROFS: case EBADF: return GIO_EPERM;
    case ENOSPC: return GIO_ENO_SPACE;
    case EDQUOT: return GIO_EQUOTA;
    case ENAMETOOLONG: case ENOTDIR: return GIO_EBAD_FILE;
    case ENOMEM: return GIO_ENOMEM;
    case EINVAL: return GIO_EINVAL;
    default: return GIO_EFILE;
    }
}

/* ---- open, close and the file's size --------------------------------------------------- */

/* GIO's hint names as colio's (the standard ones are the same); keys colio has no use for stay out. */
static MPI_Info colio_info(MPI_Info info)
{
    static const char *const same[] = {"cb_nodes", "cb_buffer_size", "striping_factor", "striping_unit"};
    static const char *const renamed[][2] = {
        {"cb_read", "romio_cb_read"}, {"cb_write", "romio_cb_write"},
        {"ds_read", "romio_ds_read"}, {"ds_write", "romio_ds_write"}};
    MPI_Info out = MPI_INFO_NULL;
    if (info == MPI_INFO_NULL || MPI_Info_create(&out) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        if (MPI_Info_get(info, same[i], MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag)
            MPI_Info_set(out, same[i], value);
    for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
        if (MPI_Info_get(info, renamed[i][0], MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag)
            MPI_Info_set(out, renamed[i][1], value);
    return out;
}

/* O_RDONLY, O_WRONLY or O_RDWR, with O_CREAT (O_EXCL too), as an MPI access mode; -1 for anything else. */
static int mpi_amode(int amode)
{
    int acc = amode & O_ACCMODE, mode;
    if (amode & ~(O_ACCMODE | O_CREAT | O_EXCL))
        return -1;
    mode = acc == O_RDONLY ? MPI_MODE_RDONLY : acc == O_WRONLY ? MPI_MODE_WRONLY : acc == O_RDWR ? MPI_MODE_RDWR : -1;
    if (mode < 0 || (acc == O_RDONLY && (amode & O_CREAT)))
        return -1;
    return mode | (amode & O_CREAT ? MPI_MODE_CREATE : 0) | (amode & O_EXCL ? MPI_MODE_EXCL : 0);
}

/* The same value on every rank of comm? (MIN of it and of its negation) */
static int same_everywhere(MPI_Comm comm, int v)
{
    int in[2] = {v, -v}, out[2];
    if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return 0;
    return out[0] == -out[1];
}

int GIO_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, GIO_File *fh)
{
    if (fh == NULL)
        return GIO_EINVAL; /* nowhere to say anything: the others fail their open alike or hang in MPI */
    *fh = NULL;
    int mode = mpi_amode(amode);
    if (!same_everywhere(comm, amode))
        return GIO_EMULTIDEFINE_AMODE;
    if (mode < 0)
        return GIO_EINVAL;
    struct GIOI_File *f = calloc(1, sizeof *f);
    char *path = filename ? strdup(filename) : NULL;
    int ok = f != NULL && path != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(f), free(path);
        return GIO_ENOMEM;
    }
    MPI_Info mine = colio_info(info);
    int rc = colio_open(comm, filename, mode, mine, &f->cf);
    if (mine != MPI_INFO_NULL)
        MPI_Info_free(&mine);
    if (rc != COLIO_SUCCESS) {
        free(f), free(path);
        return gio_code(rc);
    }
    f->comm = comm, f->path = path, f->amode = amode, f->fd = -1;
    *fh = f;
    return GIO_NOERR;
}

int GIO_close(GIO_File *fh)
{
    if (fh == NULL || *fh == NULL)
        return GIO_EINVAL;
    struct GIOI_File *f = *fh;
    int rc = colio_close(&f->cf), failed = f->fd >= 0 && close(f->fd) != 0;
    free(f->path);
    free(f);
    *fh = NULL;
    return rc != COLIO_SUCCESS ? gio_code(rc) : failed ? GIO_EFILE : GIO_NOERR;
}

int GIO_sync(GIO_File fh)
{
    if (fh == NULL)
        return GIO_EINVAL;
    int rc = colio_sync(fh->cf);
    if (rc == COLIO_SUCCESS && fh->fd >= 0 && fsync(fh->fd) != 0)
        return errno_code(errno);
    return gio_code(rc);
}

int GIO_delete(const char *filename)
{
    if (filename == NULL)
        return GIO_EINVAL;
    return unlink(filename) == 0 ? GIO_NOERR : errno_code(errno);
}

/* Collective: every operation in flight ends, rank 0 sets the size, every rank gets its outcome. */
int GIO_set_size(GIO_File fh, MPI_Offset size)
{
    if (fh == NULL)
        return GIO_EINVAL;
    int rank = 0, rc = colio_complete(fh->cf), code = gio_code(rc);
    MPI_Comm_rank(fh->comm, &rank);
    if (code == GIO_NOERR && rank == 0 && (size < 0 || truncate(fh->path, (off_t)size) != 0))
        code = size < 0 ? GIO_EINVAL : errno_code(errno);
    MPI_Bcast(&code, 1, MPI_INT, 0, fh->comm);
    return code;
}

int GIO_get_size(GIO_File fh, MPI_Offset *size)
{
    if (fh == NULL || size == NULL)
        return GIO_EINVAL;
    return gio_code(colio_get_size(fh->cf, size));
}

/* colio's hints in use, with GIO's names beside the ROMIO ones colio takes. */
int GIO_get_info(GIO_File fh, MPI_Info *info_used)
{
    if (fh == NULL || info_used == NULL)
        return GIO_EINVAL;
    int rc = colio_get_info(fh->cf, info_used);
    if (rc != COLIO_SUCCESS)
        return gio_code(rc);
    static const char *const names[][2] = {
        {"romio_cb_read", "cb_read"}, {"romio_cb_write", "cb_write"},
        {"romio_ds_read", "ds_read"}, {"romio_ds_write", "ds_write"}};
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (MPI_Info_get(*info_used, names[i][0], MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag)
            MPI_Info_set(*info_used, names[i][1], value);
    return GIO_NOERR;
}

/* ---- data ------------------------------------------------------------------------------ */

/* The bytes a list names, or a negative GIO code (a negative count or length). */
static MPI_Offset list_bytes(MPI_Offset n, const MPI_Offset *offs, const MPI_Offset *lens)
{
    MPI_Offset sum = 0;
    if (n < 0)
        return GIO_ENEGATIVECNT;
    if (n > 0 && (lens == NULL || offs == NULL))
        return GIO_EINVAL;
    for (MPI_Offset i = 0; i < n; i++) {
        if (lens[i] < 0 || offs[i] < 0)
            return GIO_EINVAL;
        if (__builtin_add_overflow(sum, lens[i], &sum))
            return GIO_EINTOVERFLOW;
    }
    return sum;
}

/*
 * The call's memory as one stretch: buf itself when its list is one pair at
 * 0 (or none), else a buffer of the call the pieces are gathered into
 * (writes) or scattered from afterwards (reads). *fail: a GIO code, else 0.
 */
static char *stretch(const void *buf, MPI_Offset n, const MPI_Offset *offs, const MPI_Offset *lens,
                     MPI_Offset bytes, int write, int *fail)
{
    MPI_Offset mem = list_bytes(n, offs, lens);
    *fail = mem < 0 ? (int)mem : mem != bytes || (bytes > 0 && buf == NULL) ? GIO_EINVAL : 0;
    if (*fail || n == 0 || (n == 1 && offs[0] == 0))
        return (char *)buf;
    char *packed = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (packed == NULL) {
        *fail = GIO_ENOMEM;
        return NULL;
    }
    for (MPI_Offset i = 0, at = 0; write && i < n; at += lens[i++])
        memcpy(packed + at, (const char *)buf + offs[i], (size_t)lens[i]);
    return packed;
}

static void scatter(void *buf, const char *packed, MPI_Offset n, const MPI_Offset *offs, const MPI_Offset *lens)
{
    for (MPI_Offset i = 0, at = 0; i < n; at += lens[i++])
        memcpy((char *)buf + offs[i], packed + at, (size_t)lens[i]);
}

/*
 * A failed collective call's code, the same on every rank: the lowest rank
 * whose arguments were bad names it (its own GIO code, which colio's codes
 * cannot carry: a negative count, an overflow), else colio's agreed one.
 * Only failed calls pay for this agreement, and colio's failure is agreed,
 * so every rank comes here or none.
 */
static int agreed_code(MPI_Comm comm, int fail, int agreed)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct { int key, code; } mine = {fail ? rank : INT_MAX, fail ? fail : agreed}, first = mine;
    MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, comm);
    return first.key == INT_MAX ? agreed : first.code;
}

/* A collective call: every rank calls colio with what it has, colio agrees on the outcome; bytes or a code. */
static MPI_Offset collective(GIO_File fh, void *buf, MPI_Offset fn, const MPI_Offset *foffs, const MPI_Offset *flens,
                             MPI_Offset bn, const MPI_Offset *boffs, const MPI_Offset *blens, int write)
{
    if (fh == NULL)
        return GIO_EINVAL;
    MPI_Offset bytes = list_bytes(fn, foffs, flens);
    int fail = bytes < 0 ? (int)bytes : 0;
    char *mem = fail ? NULL : stretch(buf, bn, boffs, blens, bytes, write, &fail);
    /* a rank with bad arguments still takes part, with none: colio's agreement fails the call everywhere */
    static const MPI_Offset none = -1;
    MPI_Count n = fail ? 1 : (MPI_Count)fn;
    const MPI_Offset *o = fail ? &none : foffs, *l = fail ? &none : flens;
    int rc = write ? colio_write_list_all(fh->cf, n, o, l, mem) : colio_read_list_all(fh->cf, n, o, l, mem);
    if (rc == COLIO_SUCCESS && !write && mem != buf)
        scatter(buf, mem, bn, boffs, blens);
    if (mem != buf)
        free(mem);
    if (rc != COLIO_SUCCESS)
        return agreed_code(fh->comm, fail, gio_code(rc));
    return bytes;
}

MPI_Offset GIO_write_all(GIO_File fh, const void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                         const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                         const MPI_Offset *buf_lens)
{
    if (fh && (fh->amode & O_ACCMODE) == O_RDONLY)
        return GIO_EPERM; /* the same on every rank: the mode was agreed at open */
    return collective(fh, (void *)buf, file_npairs, file_offs, file_lens, buf_npairs, buf_offs, buf_lens, 1);
}

MPI_Offset GIO_read_all(GIO_File fh, void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                        const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                        const MPI_Offset *buf_lens)
{
    if (fh && (fh->amode & O_ACCMODE) == O_WRONLY)
        return GIO_EPERM;
    return collective(fh, buf, file_npairs, file_offs, file_lens, buf_npairs, buf_offs, buf_lens, 0);
}

/* The independent calls' descriptor, opened at the first one. */
static int indep_fd(GIO_File fh)
{
    if (fh->fd < 0)
        fh->fd = open(fh->path, fh->amode & O_ACCMODE);
    return fh->fd;
}

/* An independent call: POSIX calls of the file's pieces from (or into) the call's one stretch of memory. */
static MPI_Offset independent(GIO_File fh, void *buf, MPI_Offset fn, const MPI_Offset *foffs, const MPI_Offset *flens,
                              MPI_Offset bn, const MPI_Offset *boffs, const MPI_Offset *blens, int write)
{
    if (fh == NULL)
        return GIO_EINVAL;
    if ((fh->amode & O_ACCMODE) == (write ? O_RDONLY : O_WRONLY))
        return GIO_EPERM;
    MPI_Offset bytes = list_bytes(fn, foffs, flens), done = 0;
    if (bytes < 0)
        return bytes;
    int fail = 0, fd = indep_fd(fh);
    char *mem = stretch(buf, bn, boffs, blens, bytes, write, &fail);
    if (fail)
        return fail;
    if (fd < 0)
        fail = errno_code(errno);
    for (MPI_Offset i = 0, at = 0; !fail && i < fn; at += flens[i++])
        for (MPI_Offset k = 0; k < flens[i];) {
            ssize_t r = write ? pwrite(fd, mem + at + k, (size_t)(flens[i] - k), (off_t)(foffs[i] + k))
                              : pread(fd, mem + at + k, (size_t)(flens[i] - k), (off_t)(foffs[i] + k));
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                fail = errno_code(errno);
                break;
            }
            if (r == 0) { /* a read at the end of file: what is there */
                i = fn - 1;
                break;
            }
            k += r, done += r;
        }
    if (!fail && !write && mem != buf)
        scatter(buf, mem, bn, boffs, blens);
    if (mem != buf)
        free(mem);
    return fail ? fail : done;
}

MPI_Offset GIO_write(GIO_File fh, const void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                     const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                     const MPI_Offset *buf_lens)
{
    return independent(fh, (void *)buf, file_npairs, file_offs, file_lens, buf_npairs, buf_offs, buf_lens, 1);
}

MPI_Offset GIO_read(GIO_File fh, void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                    const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                    const MPI_Offset *buf_lens)
{
    return independent(fh, buf, file_npairs, file_offs, file_lens, buf_npairs, buf_offs, buf_lens, 0);
}

/* ---- utilities ------------------------------------------------------------------------- */

/*
 * A subarray of a row-major array of esize-byte elements, as offset-length
 * pairs in file order, the innermost dimension's runs merged where the
 * subarray spans whole rows. The arrays are malloc'd: the caller frees them.
 */
int GIO_flatten_subarray(int ndims, int esize, MPI_Offset disp, const int *sizes, const int *subsizes,
                         const int *starts, MPI_Offset *npairs, MPI_Offset **offs, MPI_Offset **lens)
{
    if (ndims < 1 || ndims > 64 || esize < 1 || !sizes || !subsizes || !starts || !npairs || !offs || !lens)
        return GIO_EINVAL;
    *npairs = 0, *offs = *lens = NULL;
    int inner = ndims - 1; /* dimensions below it that the subarray covers whole fold into one run */
    MPI_Offset run = (MPI_Offset)subsizes[inner] * esize, count = 1;
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] < 0 || subsizes[d] < 0 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d])
            return GIO_EINVAL;
        if (subsizes[d] == 0)
            return GIO_NOERR; /* nothing */
    }
    while (inner > 0 && subsizes[inner] == sizes[inner]) {
        inner--;
        run *= subsizes[inner];
    }
    for (int d = 0; d < inner; d++)
        count *= subsizes[d];
    *offs = malloc(sizeof **offs * (size_t)count), *lens = malloc(sizeof **lens * (size_t)count);
    if (*offs == NULL || *lens == NULL) {
        free(*offs), free(*lens);
        *offs = *lens = NULL;
        return GIO_ENOMEM;
    }
    MPI_Offset stride[64]; /* bytes of one step along each dimension */
    stride[ndims - 1] = esize;
    for (int d = ndims - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * sizes[d + 1];
    int idx[64] = {0};
    for (MPI_Offset k = 0; k < count; k++) {
        MPI_Offset off = disp + (MPI_Offset)starts[inner] * stride[inner];
        for (int d = 0; d < inner; d++)
            off += (MPI_Offset)(starts[d] + idx[d]) * stride[d];
        for (int d = inner + 1; d < ndims; d++)
            off += (MPI_Offset)starts[d] * stride[d];
        (*offs)[k] = off, (*lens)[k] = run;
        for (int d = inner - 1; d >= 0 && ++idx[d] == subsizes[d]; d--)
            idx[d] = 0;
    }
    *npairs = count;
    return GIO_NOERR;
}

/* GIO's own allocations still held: libcolio_gio keeps none between calls. */
int GIO_inq_malloc_size(MPI_Offset *size)
{
    if (size)
        *size = 0;
    return GIO_NOERR;
}

int GIO_inq_malloc_max_size(MPI_Offset *size) { return GIO_inq_malloc_size(size); }

int GIO_inq_malloc_list(void) { return GIO_NOERR; }
