/*
 * colio-bench: the papers' I/O workloads through colio, the MPI library's
 * own MPI-IO, independent POSIX I/O and a contiguous-write ceiling, in one
 * run, every byte verified. Shared types of the benchmark's modules.
 */
#ifndef COLIO_BENCH_H
#define COLIO_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_ERR 512

typedef enum bench_size { BENCH_SMALL, BENCH_MEDIUM, BENCH_LARGE } bench_size_t;

/* Workload parameters given on the command line (0 / NULL: workload default). */
typedef struct bench_params {
    bench_size_t size;
    int64_t block;        /* interleaved: block bytes */
    int64_t particles;    /* hacc: particles per rank */
    int aos;              /* hacc: array of structures */
    uint64_t seed;
    const char *decomp;   /* e3sm: decomposition map (CDF) */
    const char *header;   /* e3sm: output header (ncdump -h text) */
    MPI_Comm comm;        /* the ranks running the workload (set by the runner) */
} bench_params_t;

/*
 * One rank's access: pieces sorted by offset, not overlapping, and a view
 * that describes exactly these bytes in this order (for MPI-IO and colio's
 * view path). The data of piece i is the file content at its offsets.
 */
typedef struct bench_access {
    int64_t n, cap;
    MPI_Offset *off, *len;
    int64_t bytes;         /* this rank */
    int64_t file_size;     /* every rank: max end over ranks */
    int64_t total_bytes;   /* every rank: sum of bytes over ranks */
    int64_t total_pieces;  /* every rank: sum of n over ranks */
    MPI_Datatype filetype; /* committed; MPI_BYTE with n == 0 */
    MPI_Offset disp;
    int call_per_piece;    /* colio, mpiio: one collective call per piece at its offset, no view (IOR's segments) */
    char desc[256];        /* human summary of the parameters */
} bench_access_t;

typedef struct bench_workload {
    const char *name;
    const char *help;
    int (*generate)(const bench_params_t *p, int rank, int nprocs, bench_access_t *a, char *err, size_t errlen);
    /* How many of nprocs ranks the workload runs on (NULL: all), e.g. a square count for BTIO. */
    int (*ranks)(int nprocs);
    int uses_block;        /* --block sets its piece size (a --block list runs it once per size) */
} bench_workload_t;

const bench_workload_t *bench_workload_find(const char *name);
const bench_workload_t *bench_workload_at(int i);

/* Helpers for generators. */
int bench_access_alloc(bench_access_t *a, int64_t n);
/* Append a piece, merging it with the previous one when adjacent; grows as needed. */
int bench_access_push(bench_access_t *a, int64_t off, int64_t len);
/* Sort, merge, build an hindexed filetype if none, and agree on the global figures. */
int bench_access_finish(bench_access_t *a, MPI_Comm comm, char *err, size_t errlen);
void bench_access_free(bench_access_t *a);

/* File content: byte x of every file is bench_content(x, seed), so any bytes can be checked alone. */
void bench_fill(unsigned char *buf, int64_t off, int64_t len, uint64_t seed);
/* Bytes of buf that differ from the content of [off, off+len); 0 when right. */
int64_t bench_check(const unsigned char *buf, int64_t off, int64_t len, uint64_t seed);

/* Per-run measurements of one operation on one rank. */
typedef struct bench_sample {
    double time;                                   /* open to close, divided by the steps */
    double meta, data, io, compute;                /* colio's phases (0 for other engines) */
    int64_t rss_extra;                             /* peak resident bytes above the start of the call */
    int64_t memory;                                /* colio: bytes of buffers it held (stats) */
    int is_aggregator;
    double exch_min, exch_max;                     /* colio: fastest and slowest rank's exchange time */
    int64_t messages;                              /* colio: messages this rank posted */
    char kernels[40];                              /* colio: "meta/data" kernels that ran */
    char placement[16];                            /* colio: placement strategy that chose the aggregators */
    int64_t hop_bytes, max_link_bytes;             /* colio: shuffle hop-bytes and busiest link, per call */
    char strategy[12];                             /* colio: the last call's path (two-phase, direct, early...) */
    double predicted_two_phase, predicted_direct;  /* colio: its cost model's seconds for the last call's paths */
} bench_sample_t;

typedef struct bench_engine_ctx {
    MPI_Comm comm;
    int rank, nprocs;
    const char *path;
    const char *hints;     /* "key=value;..." as given */
    int use_lists;         /* colio: list API instead of the view */
    int steps;             /* calls (posix: passes over the pieces) per open file, like checkpoint steps */
    int sync;              /* --sync: writes flush to storage before the clock stops (IOR's -e) */
} bench_engine_ctx_t;

/* The --steps count (at least 1): every engine repeats its transfer that often on one open file, so that only
   the first write of a run meets a new file's unallocated pages; times are per step. */
static inline int bench_steps(const bench_engine_ctx_t *c)
{
    return c->steps > 0 ? c->steps : 1;
}

typedef struct bench_engine {
    const char *name;
    /* Engines that move the access's byte count somewhere else (the ceiling) say where: one
       contiguous region at *off; NULL for engines that move the access itself. */
    int64_t (*region)(const bench_engine_ctx_t *c, const bench_access_t *a);
    /* One timed collective operation; returns 0 or a message in err (then the run fails). */
    int (*write)(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                 char *err, size_t errlen);
    int (*read)(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s, char *err,
                size_t errlen);
} bench_engine_t;

const bench_engine_t *bench_engine_find(const char *name);
/* --hints plus the hints an engine name carries ("colio:balanced", "colio:colio_plan_cache=0+cb_nodes=1"). */
void bench_engine_hints(const char *engine, const char *hints, char *out, size_t len);

/* MPI_Info from "key=value;..."; standard_only keeps the keys MPI-IO implementations know. */
MPI_Info bench_info(const char *hints, int standard_only);
/* colio's hints (and COLIO_HINTS) select the null backend: nothing is stored, no bytes to verify. */
int bench_stores_nothing(const char *hints);
/* Whether hints (and COLIO_HINTS) ask colio for a subfiled file. */
int bench_subfiles(const char *hints);

/* What a run stored, read back independently of colio (bench/stored.c): ordinary or subfiled. */
typedef struct bench_stored bench_stored_t;
bench_stored_t *bench_stored_open(const char *path); /* NULL: no such file */
/* Bytes [off, off + len) into buf: how many there were (short at the end). */
int64_t bench_stored_pread(bench_stored_t *s, unsigned char *buf, int64_t len, int64_t off);
void bench_stored_close(bench_stored_t *s);
/* Remove the file, and its subfiles when subfiled. */
void bench_stored_remove(const char *path);

/* Memory: reset the peak and read the resident set (bytes), Linux /proc. */
void bench_rss_reset(void);
int64_t bench_rss_now(void);
int64_t bench_rss_peak(void);
/* The sum of v over the ranks before this one (0 on rank 0), in log2 p steps (SimGrid's MPI_Exscan sends p^2 messages). */
int64_t bench_exscan_sum(int64_t v, MPI_Comm comm);

#endif
