/* The file handle: everything colio keeps between calls on one open file. */
#ifndef COLIO_CORE_FILE_H
#define COLIO_CORE_FILE_H

#include "access/access.h"
#include "core/bufcache.h"
#include "core/error.h"
#include "core/hints.h"
#include "exchange/xchg.h"
#include "place/place.h"
#include "store/store.h"
#include "topo/topo.h"

struct colio_file {
    MPI_Comm comm;              /* private duplicate, errors returned */
    int rank, nprocs;
    char *path;
    int amode;
    colio_hints_t hints;        /* identical on every rank (rank 0's) */
    /* plug-ins selected by the hints */
    const colio_store_ops_t *store;
    const colio_place_ops_t *place;
    const colio_domain_ops_t *domain;
    const colio_xchg_ops_t *xchg_data, *xchg_meta;
    colio_store_t *st;
    int readable;               /* storage handle can read (read-modify-write possible) */
    colio_view_t view;
    int64_t fp;                 /* individual file pointer, in etypes */
    colio_topo_t topo;
    int *aggs;                  /* nprocs entries, the first naggs used */
    int *aggs_spare;            /* nprocs entries: the next configuration is built here */
    int naggs;
    colio_stats stats;
    colio_err_t last_err;
    int64_t op_seq;             /* operations started, for message tags */
    colio_bufcache_t bufs;      /* large buffers kept between operations */
};

/* Select plug-ins and aggregators for the current hints (local, deterministic). */
int colio_file_configure(colio_file *fh, colio_err_t *err);

/* Record the outcome of a collective call on the handle and return its code. */
int colio_file_result(colio_file *fh, const colio_err_t *err);

#endif
