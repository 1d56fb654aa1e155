/*
 * POSIX storage backend: open/pwritev/preadv/fsync on a path every rank can
 * reach. With direct_write / direct_read (ROMIO's hints) a second descriptor
 * opened with O_DIRECT moves the blocks a call covers whole, at the file
 * system's direct-I/O alignment (statx STATX_DIOALIGN, else st_blksize); a
 * call's unaligned first and last bytes go through the ordinary descriptor,
 * so a call stores exactly its bytes (holes and neighbours' bytes in a shared
 * edge block stay as they were) and the page cache is never bypassed for a
 * partial block. Linux keeps the two coherent: a direct read or write first
 * writes back and then drops the cached pages of its range. Memory off the
 * alignment goes through an aligned bounce buffer of the call. Where
 * O_DIRECT cannot be opened, both descriptors are one (buffered I/O).
 */
#define _GNU_SOURCE /* F_OFD_SETLKW */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hints.h"
#include "store/backends.h"
#include "store/cost.h"
#include "store/dio.h"
#include "store/iov.h"
#include "store/store.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

struct colio_store {
    int fd;
    int lock_cmd; /* colio_lock_writes: F_OFD_SETLKW (or F_SETLKW where the kernel lacks it); 0: no locks */
    int locks_on; /* ... taken now (automatic: set_locks turns them on and off) */
    int64_t blksize; /* st_blksize at open */
    int dfd;         /* O_DIRECT descriptor (direct_write / direct_read), else -1 */
    int64_t direct_write, direct_read; /* calls of at least these bytes go through dfd (INT64_MAX: none) */
    int64_t dio_mem, dio_off;      /* its memory and file-offset alignment */
    char *path;                    /* as opened: set_direct opens dfd later */
};

/* Bytes of a direct call's bounce buffer at most (memory off the alignment): larger calls take turns. */
#define COLIO_DIO_BOUNCE ((int64_t)4 << 20)

static int posix_open_fd(const char *path, int flags, int *fd_p, int *readable_p)
{
    int oflags = 0;
    if (flags & COLIO_STORE_CREATE)
        oflags |= O_CREAT;
    if (flags & COLIO_STORE_EXCL)
        oflags |= O_EXCL;
    if (flags & COLIO_STORE_WRITE) {
        /* Ask for read access too so aggregators can fill holes by read-modify-write. */
        int fd = open(path, oflags | O_RDWR, 0666);
        if (fd >= 0 || (flags & COLIO_STORE_READ) || errno != EACCES) {
            *fd_p = fd;
            *readable_p = fd >= 0;
            return fd >= 0 ? 0 : -errno;
        }
        fd = open(path, oflags | O_WRONLY, 0666);
        *fd_p = fd;
        *readable_p = 0;
        return fd >= 0 ? 0 : -errno;
    }
    int fd = open(path, oflags | O_RDONLY, 0666);
    *fd_p = fd;
    *readable_p = fd >= 0;
    return fd >= 0 ? 0 : -errno;
}

/*
 * colio_lock_writes: open-file-description locks where the file system has
 * them, else process locks, which conflict with other processes' only and
 * which any close of the file in this process drops. Asked once per file
 * system (device) and process: the answer does not change, and the probe
 * was a system call of every open.
 */
#define LOCK_KINDS_KEPT 8
static struct {
    dev_t dev;
    int kind;
} lock_kinds[LOCK_KINDS_KEPT];
static int nlock_kinds;
static pthread_mutex_t lock_kinds_mutex = PTHREAD_MUTEX_INITIALIZER;

static int probe_lock_kind(int fd)
{
#ifdef F_OFD_SETLKW
    struct flock probe = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    if (fcntl(fd, F_OFD_GETLK, &probe) == 0)
        return F_OFD_SETLKW;
#endif
    (void)fd;
    return F_SETLKW;
}

static int lock_kind(int fd, dev_t dev)
{
    int kind = 0;
    pthread_mutex_lock(&lock_kinds_mutex);
    for (int i = 0; i < nlock_kinds && !kind; i++)
        if (lock_kinds[i].dev == dev)
            kind = lock_kinds[i].kind;
    pthread_mutex_unlock(&lock_kinds_mutex);
    if (kind)
        return kind;
    kind = probe_lock_kind(fd);
    pthread_mutex_lock(&lock_kinds_mutex);
    if (nlock_kinds < LOCK_KINDS_KEPT)
        lock_kinds[nlock_kinds++] = (typeof(lock_kinds[0])){dev, kind};
    pthread_mutex_unlock(&lock_kinds_mutex);
    return kind;
}

/*
 * Writes (w) and reads (r) through the O_DIRECT descriptor from now on,
 * opened in the ordinary one's access mode when first needed; buffered
 * I/O (the documented fallback) where the file system refuses O_DIRECT or
 * reports no alignment for it. Called after the open's agreement with what
 * direct_write / direct_read and the file system's figures ask (api/file.c).
 */
static void posix_set_direct(colio_store_t *st, int64_t w, int64_t r)
{
    int mode = fcntl(st->fd, F_GETFL);
    if (mode < 0)
        return;
    if ((w < INT64_MAX || r < INT64_MAX) && st->dfd < 0 && st->path) {
        int fd = open(st->path, (mode & O_ACCMODE) | O_DIRECT);
        int64_t mem, off;
        if (fd < 0)
            return;
        if (colio_dio_alignment(fd, st->blksize, &mem, &off) != 0) {
            close(fd);
            return;
        }
        st->dfd = fd, st->dio_mem = mem, st->dio_off = off;
    }
    st->direct_write = st->dfd >= 0 && (mode & O_ACCMODE) != O_RDONLY ? w : INT64_MAX;
    st->direct_read = st->dfd >= 0 && (mode & O_ACCMODE) != O_WRONLY ? r : INT64_MAX;
}

static int posix_open(const char *path, int flags, const struct colio_hints *hints, int rank,
                      colio_store_t **st_p, int *readable_p)
{
    (void)rank;
    colio_store_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return -ENOMEM;
    int rc = posix_open_fd(path, flags, &st->fd, readable_p);
    if (rc != 0) {
        free(st);
        return rc;
    }
    struct stat sb;
    int known = fstat(st->fd, &sb) == 0;
    if (known && S_ISDIR(sb.st_mode)) {
        close(st->fd);
        free(st);
        return -EISDIR;
    }
    st->blksize = known ? (int64_t)sb.st_blksize : -1;
    int locking = hints && hints->lock_writes != COLIO_DISABLE;
    st->lock_cmd = locking ? (known ? lock_kind(st->fd, sb.st_dev) : probe_lock_kind(st->fd)) : 0;
    st->locks_on = st->lock_cmd != 0; /* automatic starts locked: the file turns them off (api/file.c) */
    st->dfd = -1;
    st->direct_write = st->direct_read = INT64_MAX; /* until set_direct (api/file.c, after the open) */
    if (known && S_ISREG(sb.st_mode))
        st->path = strdup(path); /* NULL: set_direct keeps buffered I/O */
    *st_p = st;
    return 0;
}

static int posix_close(colio_store_t *st)
{
    int rc = close(st->fd) == 0 ? 0 : -errno;
    if (st->dfd >= 0 && close(st->dfd) != 0 && rc == 0)
        rc = -errno;
    free(st->path);
    free(st);
    return rc;
}

/* Advance an iovec array past n bytes already transferred. */
static int iov_advance(struct iovec **iov, int *iovcnt, int64_t n)
{
    while (*iovcnt > 0 && n >= (int64_t)(*iov)->iov_len) {
        n -= (int64_t)(*iov)->iov_len;
        (*iov)++;
        (*iovcnt)--;
    }
    if (*iovcnt > 0) {
        (*iov)->iov_base = (char *)(*iov)->iov_base + n;
        (*iov)->iov_len -= (size_t)n;
    }
    return *iovcnt;
}

/* One call: pwrite/pread for one buffer (cheaper in the kernel: no vector to import), else pwritev/preadv. */
static ssize_t xfer_call(int fd, const struct iovec *iov, int n, int64_t off, int is_write)
{
    if (n == 1)
        return is_write ? pwrite(fd, iov->iov_base, iov->iov_len, off) : pread(fd, iov->iov_base, iov->iov_len, off);
    return is_write ? pwritev(fd, iov, n, off) : preadv(fd, iov, n, off);
}

/* pwritev/preadv loop over short transfers and IOV_MAX; is_write selects the call. */
static int posix_xfer(int fd, const struct iovec *iov_in, int iovcnt, int64_t off, int is_write,
                      int64_t *done_p)
{
    struct iovec local[64];
    struct iovec *copy = iovcnt <= 64 ? local : malloc(sizeof *copy * (size_t)iovcnt);
    if (copy == NULL)
        return -ENOMEM;
    for (int i = 0; i < iovcnt; i++)
        copy[i] = iov_in[i];
    struct iovec *iov = copy;
    int64_t done = 0;
    int rc = 0;
    while (iovcnt > 0) {
        int n = iovcnt < IOV_MAX ? iovcnt : IOV_MAX;
        ssize_t k = xfer_call(fd, iov, n, off + done, is_write);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (k == 0) {
            if (is_write)
                rc = -EIO; /* a zero-byte write without an error: treat as I/O failure */
            break;         /* read: end of file */
        }
        done += k;
        iov_advance(&iov, &iovcnt, k);
    }
    if (copy != local)
        free(copy);
    *done_p = done;
    return rc;
}

/* ---- direct I/O ------------------------------------------------------------------------- */

static int iov_aligned(const struct iovec *iov, int n, int64_t a)
{
    for (int i = 0; i < n; i++)
        if (((uintptr_t)iov[i].iov_base | (uintptr_t)iov[i].iov_len) & (uintptr_t)(a - 1))
            return 0;
    return 1;
}

/* Copy between an iovec array, from byte at, and a flat buffer. */
static void iov_copy(const struct iovec *iov, int n, int64_t at, char *flat, int64_t len, int to_flat)
{
    for (int i = 0; i < n && len > 0; i++) {
        int64_t l = (int64_t)iov[i].iov_len;
        if (at >= l) {
            at -= l;
            continue;
        }
        int64_t take = l - at < len ? l - at : len;
        char *m = (char *)iov[i].iov_base + at;
        memcpy(to_flat ? flat : m, to_flat ? m : flat, (size_t)take);
        flat += take, len -= take, at = 0;
    }
}

/*
 * One call on the O_DIRECT descriptor; what it leaves (cut short: a read
 * at the end of file, whose next offset is off the alignment) goes on
 * through the ordinary one, which ends at the end of file as usual.
 */
static int dio_xfer(colio_store_t *st, const struct iovec *iov, int n, int64_t off, int is_write, int64_t *done_p)
{
    ssize_t k;
    do
        k = xfer_call(st->dfd, iov, n < IOV_MAX ? n : IOV_MAX, off, is_write);
    while (k < 0 && errno == EINTR);
    *done_p = 0;
    if (k < 0)
        return -errno;
    int64_t total = colio_iov_bytes(iov, n), rest = 0;
    if (k == total || (k == 0 && !is_write))
        return *done_p = k, 0;
    struct iovec local[64];
    struct iovec *left = n <= 64 ? local : malloc(sizeof *left * (size_t)n);
    if (left == NULL)
        return -ENOMEM;
    int m = colio_iov_slice(iov, n, k, total - k, left);
    int rc = posix_xfer(st->fd, left, m, off + k, is_write, &rest);
    if (left != local)
        free(left);
    *done_p = k + rest;
    return rc;
}

/*
 * The aligned middle of a call through the O_DIRECT descriptor: straight
 * from or into its memory where that is aligned too, else through a bounce
 * buffer in turns. A direct transfer cut short (a read at the end of file)
 * ends the call there; *done_p: the bytes moved.
 */
static int direct_middle(colio_store_t *st, const struct iovec *iov, int n, int64_t off, int64_t len,
                         int is_write, int64_t *done_p)
{
    if (iov_aligned(iov, n, st->dio_mem))
        return dio_xfer(st, iov, n, off, is_write, done_p);
    int64_t cap = len < COLIO_DIO_BOUNCE ? len : COLIO_DIO_BOUNCE;
    void *b = NULL;
    if (posix_memalign(&b, (size_t)(st->dio_mem > 4096 ? st->dio_mem : 4096), (size_t)cap) != 0)
        return -ENOMEM;
    int64_t done = 0;
    int rc = 0;
    while (rc == 0 && done < len) {
        int64_t chunk = len - done < cap ? len - done : cap, got = 0;
        if (is_write)
            iov_copy(iov, n, done, b, chunk, 1);
        struct iovec one = {b, (size_t)chunk};
        rc = dio_xfer(st, &one, 1, off + done, is_write, &got);
        if (!is_write)
            iov_copy(iov, n, done, b, got, 0);
        done += got;
        if (got < chunk)
            break; /* end of file */
    }
    free(b);
    *done_p = done;
    return rc;
}

/*
 * A call with direct I/O: its unaligned head and tail through the ordinary
 * descriptor, the whole blocks between through the direct one, in file
 * order; a short read ends it.
 */
static int direct_xfer(colio_store_t *st, const struct iovec *iov, int n, int64_t off, int is_write,
                       int64_t *done_p)
{
    int64_t total = colio_iov_bytes(iov, n), a = st->dio_off;
    int64_t head = (a - off % a) % a, tail = (off + total) % a;
    *done_p = 0;
    if (total - head - tail < a) /* no whole block: the ordinary descriptor */
        return posix_xfer(st->fd, iov, n, off, is_write, done_p);
    struct iovec local[64];
    struct iovec *part = n <= 64 ? local : malloc(sizeof *part * (size_t)n);
    if (part == NULL)
        return -ENOMEM;
    int64_t cut[4] = {0, head, total - tail, total};
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++) {
        int64_t len = cut[k + 1] - cut[k], got = 0;
        if (len == 0)
            continue;
        int m = colio_iov_slice(iov, n, cut[k], len, part);
        rc = k == 1 ? direct_middle(st, part, m, off + cut[k], len, is_write, &got)
                    : posix_xfer(st->fd, part, m, off + cut[k], is_write, &got);
        *done_p += got;
        if (got < len)
            break; /* end of file (reads) */
    }
    if (part != local)
        free(part);
    return rc;
}

/*
 * colio_lock_writes: lock [off, off + len) for writing, as ROMIO and OMPIO
 * lock the span of a data-sieving read-modify-write. Open-file-description
 * locks conflict with those record locks in other processes and in this
 * one (the MPI library's own handle on the same file), so neither side's
 * write lands inside the other's read-modify-write (lock_kind).
 */
static int range_lock(colio_store_t *st, short type, int64_t off, int64_t len)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = off, .l_len = len};
    while (fcntl(st->fd, st->lock_cmd, &fl) != 0) /* an unlock never waits */
        if (errno != EINTR)
            return -errno;
    return 0;
}

/* The descriptor, unless writes may take byte-range locks (colio_lock_writes: only pwritev holds them). */
static int posix_raw_fd(colio_store_t *st)
{
    return st->lock_cmd || st->direct_write < INT64_MAX || st->direct_read < INT64_MAX ? -1 : st->fd;
}

/* Whether a call of iov goes through the O_DIRECT descriptor: min its bytes at least. */
static int goes_direct(int64_t min, const struct iovec *iov, int iovcnt)
{
    return min == 0 || (min < INT64_MAX && colio_iov_bytes(iov, iovcnt) >= min);
}

static void posix_set_locks(colio_store_t *st, int on) { st->locks_on = on && st->lock_cmd != 0; }

static int posix_pwritev(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off)
{
    int64_t done, len = st->locks_on ? colio_iov_bytes(iov, iovcnt) : 0;
    if (len > 0) {
        int rc = range_lock(st, F_WRLCK, off, len);
        if (rc != 0)
            return rc;
    }
    int rc = goes_direct(st->direct_write, iov, iovcnt) ? direct_xfer(st, iov, iovcnt, off, 1, &done)
                              : posix_xfer(st->fd, iov, iovcnt, off, 1, &done);
    if (len > 0) {
        int urc = range_lock(st, F_UNLCK, off, len);
        rc = rc != 0 ? rc : urc;
    }
    return rc;
}

static int posix_preadv(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off,
                        int64_t *got_p)
{
    return goes_direct(st->direct_read, iov, iovcnt) ? direct_xfer(st, iov, iovcnt, off, 0, got_p) : posix_xfer(st->fd, iov, iovcnt, off, 0, got_p);
}

static int posix_sync(colio_store_t *st)
{
    if (fsync(st->fd) == 0)
        return 0;
    /* Character devices and some pseudo file systems cannot sync: nothing to flush. */
    return (errno == EINVAL || errno == EROFS) ? 0 : -errno;
}

static int posix_size(colio_store_t *st, int64_t *size_p)
{
    struct stat sb;
    if (fstat(st->fd, &sb) != 0)
        return -errno;
    *size_p = (int64_t)sb.st_size;
    return 0;
}

/* Measured once per file system (store/cost.c), kept for the process and in the cache file. */
static int posix_figures(colio_store_t *st, const char *path, const struct colio_hints *hints,
                         colio_store_figures_t *f)
{
    (void)st;
    return colio_figures_of_path(path, hints->storage_cache, f);
}

static int posix_block_size(colio_store_t *st, int64_t *bs_p)
{
    if (st->blksize >= 0) { /* as at open: a file's block size does not change */
        *bs_p = st->blksize;
        return 0;
    }
    struct stat sb;
    if (fstat(st->fd, &sb) != 0)
        return -errno;
    *bs_p = (int64_t)sb.st_blksize;
    return 0;
}

static int posix_truncate(colio_store_t *st, int64_t size)
{
    return ftruncate(st->fd, (off_t)size) == 0 ? 0 : -errno;
}

static int posix_unlink(const char *path) { return unlink(path) == 0 ? 0 : -errno; }

static int posix_rename(const char *from, const char *to) { return rename(from, to) == 0 ? 0 : -errno; }

static int posix_identity(const char *path, int64_t *ino_p, int64_t *dev_p)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -errno;
    *ino_p = (int64_t)sb.st_ino, *dev_p = (int64_t)sb.st_dev;
    return 0;
}

const colio_store_ops_t colio_store_posix = {
    .name = "posix",
    .caps = COLIO_STORE_CAP_READ_WHILE_WRITE_ONLY,
    .open = posix_open,
    .close = posix_close,
    .pwritev = posix_pwritev,
    .raw_fd = posix_raw_fd,
    .set_locks = posix_set_locks,
    .set_direct = posix_set_direct,
    .preadv = posix_preadv,
    .sync = posix_sync,
    .size = posix_size,
    .block_size = posix_block_size,
    .figures = posix_figures,
    .truncate = posix_truncate,
    .unlink = posix_unlink,
    .identity = posix_identity,
    .rename = posix_rename,
};
