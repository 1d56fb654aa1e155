/* colio-bench: options, one measured run, the report. */
#ifndef COLIO_BENCH_RUN_H
#define COLIO_BENCH_RUN_H

#include "bench.h"

#define BENCH_MAX_LIST 16

typedef struct bench_options {
    const char *workloads[BENCH_MAX_LIST];
    int nworkloads;
    bench_size_t sizes[3];
    int nsizes;
    const char *engines[BENCH_MAX_LIST];
    int nengines;
    int ops[2]; /* 1 write, 0 read, in order */
    int nops;
    int repeat, warmup;
    const char *dir;
    const char *hints;
    int use_lists;
    int steps;
    int buffer_offset; /* --buffer-offset: the data buffer this many bytes past a page; -1: where malloc puts it */
    int64_t blocks[BENCH_MAX_LIST]; /* --block LIST: the block-sized workloads run once per size */
    int nblocks;
    const char *json;
    int quiet;
    int interleave;        /* --interleave: every engine once per repeat, in turn */
    int sync;              /* --sync: the flush to storage inside a write's time */
    int drop_cache;        /* --drop-cache: the file's pages evicted before every read */
    bench_params_t params;
} bench_options_t;

/* Parse argv; returns 0, 1 for --help (printed), -1 on error (printed on rank 0). */
int bench_parse(int argc, char **argv, bench_options_t *o, int rank);

typedef struct bench_run {
    char workload[32], size[8], engine[96], op[8], desc[256], error[BENCH_ERR];
    int64_t bytes, pieces;
    int nprocs;                       /* ranks that ran it */
    int repeats;
    double median, min, max, mean, std, cov;
    double *times;                    /* the repeats' times, in order (NULL when the run failed) */
    double meta, data, io, compute;   /* medians over repeats of the slowest rank's phase times */
    int64_t rss_extra;                /* largest rank's peak resident growth during the call */
    int64_t memory;                   /* colio: the largest rank's buffers (its own accounting) */
    double exch_min, exch_max;        /* colio: medians of the fastest and slowest rank's exchange time */
    int64_t messages;                 /* colio: the busiest rank's messages per call */
    char kernels[40];                 /* colio: metadata/data kernels that ran */
    char placement[16];               /* colio: placement strategy */
    int64_t hop_bytes, max_link_bytes; /* colio: per call, as colio's statistics model them */
    char strategy[12];                /* colio: the last call's path */
    double predicted_two_phase, predicted_direct; /* colio: the model's seconds for it (0: not modelled) */
    int rss_aggregator;               /* that rank was an aggregator (colio) */
    int verified;                     /* every repeat's bytes checked and right (or unstored) */
    int unstored;                     /* colio_backend=null: nothing stored, no bytes checked */
} bench_run_t;

const char *bench_size_name(bench_size_t s);

/* Print the human table on stdout and, with a path, the JSON document. */
void bench_report(const bench_options_t *o, const bench_run_t *runs, int nruns, int nprocs, const char *library);
int bench_report_json(const char *path, const bench_options_t *o, const bench_run_t *runs, int nruns, int nprocs,
                      const char *library);

#endif
