/*
 * Storage backends: the only code that touches the file system. Each backend
 * is one file exporting a const colio_store_ops_t; the registry in store.c is
 * the only list of them. Functions return 0 or a negative errno value so the
 * caller can name the failure (the engine maps it to a COLIO_ERR_* code).
 */
#ifndef COLIO_STORE_STORE_H
#define COLIO_STORE_STORE_H

#include <stdint.h>
#include <stddef.h>
#include <sys/uio.h>

struct colio_hints;
struct colio_store_figures;

/* Open flags, independent of the MPI amode. */
enum {
    COLIO_STORE_READ = 1 << 0,
    COLIO_STORE_WRITE = 1 << 1,
    COLIO_STORE_CREATE = 1 << 2,
    COLIO_STORE_EXCL = 1 << 3,
};

/* Capabilities. */
enum {
    COLIO_STORE_CAP_READ_WHILE_WRITE_ONLY = 1 << 0, /* can read a file the user opened write-only */
    COLIO_STORE_CAP_NO_CONTENT = 1 << 1,            /* keeps no bytes (null): every file is new and endless */
    COLIO_STORE_CAP_NO_SHORT_READS = 1 << 2,        /* reads never stop at the end of file (subfiles: holes) */
};

typedef struct colio_store colio_store_t; /* backend-private handle */

typedef struct colio_store_ops {
    const char *name;
    const struct colio_hint_def *hints; /* the keys only this implementation reads ({0}-ended; NULL: none) */
    unsigned caps;
    /* flags: COLIO_STORE_*; *readable_p tells whether reads work (read-modify-write). */
    int (*open)(const char *path, int flags, const struct colio_hints *hints, int rank,
                colio_store_t **st_p, int *readable_p);
    int (*close)(colio_store_t *st);
    /* Write iov to the contiguous file range starting at off; all or an error. */
    int (*pwritev)(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off);
    /* Read into iov from off; *got_p < total only at end of file. */
    int (*preadv)(colio_store_t *st, const struct iovec *iov, int iovcnt, int64_t off,
                  int64_t *got_p);
    int (*sync)(colio_store_t *st);
    int (*size)(colio_store_t *st, int64_t *size_p);
    /* Preferred I/O block size (st_blksize); NULL or 0 when the backend has none. */
    int (*block_size)(colio_store_t *st, int64_t *bs_p);
    int (*truncate)(colio_store_t *st, int64_t size);
    int (*unlink)(const char *path);
    /* Optional: what file path names now, as (inode, device), 0 or -errno: ranks that opened one file see the
       same inode (a node's ranks the same device too); NULL: every path is its own file (null). */
    int (*identity)(const char *path, int64_t *ino_p, int64_t *dev_p);
    /* Optional: replace path `to` by `from` at once (rename(2)); NULL: colio rewrites its small files in place. */
    int (*rename)(const char *from, const char *to);
    /* Optional: a descriptor whose pwrite/pread store the same bytes as pwritev/preadv (no locks, no
       delays), for executors that call the kernel themselves (io_uring); -1 or NULL: none. */
    int (*raw_fd)(colio_store_t *st);
    /* Optional: names where the logical bytes [off, off+span) are stored (subfiles and offsets) for messages. */
    int (*where)(colio_store_t *st, int64_t off, int64_t span, char *buf, size_t len);
    /* Optional: what calls cost on the file system of the file open as st at path (store/cost.h),
       0 or -errno (then *f holds defaults); NULL: colio_figures_default. Rank 0, at open. */
    int (*figures)(colio_store_t *st, const char *path, const struct colio_hints *hints,
                   struct colio_store_figures *f);
    /* Optional: turn the byte-range locks of colio_lock_writes on or off for the writes from now on (none in
       flight); NULL: the locks stay as the hint set them at open (automatic: on). */
    void (*set_locks)(colio_store_t *st, int on);
    /* Optional: storage writes / reads of at least these bytes with O_DIRECT from now on (none in flight;
       0: every call, INT64_MAX: none), where the file system takes it (direct_write / direct_read
       automatic); NULL: as the hints set them at open. */
    void (*set_direct)(colio_store_t *st, int64_t write_min, int64_t read_min);
    /* The backend for colio's own bookkeeping (subfiling metadata, subfile sizes); NULL: this one.
       The fault backend names posix, so injected faults hit data calls only. */
    const struct colio_store_ops *bookkeeping;
} colio_store_ops_t;

const colio_store_ops_t *colio_store_find(const char *name);
const char *colio_store_name(int i); /* registry iteration, NULL past the end */

/*
 * The subfiling store (store/subfile.c): one logical file over the subfiles
 * layout names, each opened with base when first touched; the subfiles in
 * eager[0..neager-1] are opened now (*readable_p: all of those can read).
 */
struct colio_subfile_layout;
int colio_store_subfile_open(const struct colio_subfile_layout *lay, const colio_store_ops_t *base, int flags,
                             const struct colio_hints *hints, int rank, const int *eager, int neager,
                             colio_store_t **st_p, int *readable_p);

/* Convenience wrappers for one buffer. */
int colio_store_pwrite(const colio_store_ops_t *ops, colio_store_t *st, const void *buf,
                       int64_t len, int64_t off);
int colio_store_pread(const colio_store_ops_t *ops, colio_store_t *st, void *buf, int64_t len,
                      int64_t off, int64_t *got_p);

/* The fault-injecting backend's spec: fail the Nth call of kind op with err on rank.
   COALESCE (any backend): the Nth coalesce buffer a TAM local aggregator takes is refused.
   DELAY: no failure, every write and read sleeps nth microseconds first (slow storage, for measurements). */
typedef enum {
    COLIO_FAULT_WRITE,
    COLIO_FAULT_READ,
    COLIO_FAULT_SYNC,
    COLIO_FAULT_ANY,
    COLIO_FAULT_COALESCE,
    COLIO_FAULT_DELAY,
    COLIO_FAULT_GATE
} colio_fault_op_t;
typedef struct colio_fault_spec {
    colio_fault_op_t op;
    int64_t nth;   /* 1-based */
    int errnum;    /* positive errno */
    int rank;      /* -1: every rank */
} colio_fault_spec_t;
int colio_fault_parse(const char *spec, colio_fault_spec_t *out);

/*
 * The null backend's storage model (hints colio_null_latency, _bandwidth,
 * _block): an access costs latency + bytes / bandwidth, and a write that
 * covers a block only in part also moves that whole block twice (read and
 * write back, TAPIOCA Fig. 3). bandwidth 0: no byte cost.
 */
typedef struct colio_null_model {
    double latency;    /* seconds per access */
    int64_t bandwidth; /* bytes per second; 0 = unlimited */
    int64_t block;     /* file-system block; 0 = none */
} colio_null_model_t;
#define COLIO_NULL_SIZE ((int64_t)1 << 62) /* a null file is endless */
double colio_null_cost(const colio_null_model_t *m, int is_write, int64_t off, int64_t len);

#endif
