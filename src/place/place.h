/*
 * Aggregator placement and file-domain layout: the two plug-in points that
 * decide who performs storage I/O and for which bytes. Both are pure
 * functions of their inputs (no MPI traffic) so they are tested on one rank.
 *
 * A file-domain layout splits the global access extent [lo, hi) among the
 * aggregators and cuts each aggregator's share into rounds: every (aggregator,
 * round) pair covers one contiguous file extent of at most cb_buffer_size
 * bytes, and within one aggregator rounds increase with the file offset.
 */
#ifndef COLIO_PLACE_PLACE_H
#define COLIO_PLACE_PLACE_H

#include <stdint.h>

#include "core/error.h"
#include "topo/topo.h"

/* ---- aggregator placement ------------------------------------------------- */

typedef struct colio_place_input {
    const colio_topo_t *topo;
    int cb_nodes; /* requested aggregators; 0 = one per node */
} colio_place_input_t;

typedef struct colio_place_ops {
    const char *name;
    /* Fill aggs (room for topo->nprocs entries) with distinct ranks; *naggs_p >= 1. */
    int (*select)(const colio_place_input_t *in, int *aggs, int *naggs_p);
} colio_place_ops_t;

const colio_place_ops_t *colio_place_find(const char *name);
const char *colio_place_name(int i);

/* ---- file domains ------------------------------------------------------------ */

typedef struct colio_domain_input {
    int naggs;
    int64_t lo, hi;         /* global extent of the access, hi exclusive, lo < hi */
    int64_t round_size;     /* cb_buffer_size */
    int64_t striping_unit;  /* 0 = unknown */
} colio_domain_input_t;

typedef struct colio_domain_ops colio_domain_ops_t;

typedef struct colio_domains {
    const colio_domain_ops_t *ops;
    int naggs;
    int64_t lo, hi;
    int64_t round_size;
    int64_t nrounds;        /* max rounds over aggregators */
    int64_t *start, *end;   /* per aggregator (layouts with one contiguous share) */
} colio_domains_t;

struct colio_domain_ops {
    const char *name;
    int (*plan)(const colio_domain_input_t *in, colio_domains_t *d);
    /* Owner and round of byte off (lo <= off < hi), and the end of the run from
       off that stays with the same owner and round. */
    void (*locate)(const colio_domains_t *d, int64_t off, int *agg, int64_t *round, int64_t *run_end);
    /* File extent [*s, *e) of aggregator agg in round r (empty when *s >= *e). */
    void (*round_extent)(const colio_domains_t *d, int agg, int64_t r, int64_t *s, int64_t *e);
};

const colio_domain_ops_t *colio_domain_find(const char *name);
const char *colio_domain_name(int i);
void colio_domains_free(colio_domains_t *d);

#endif
