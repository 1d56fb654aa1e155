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

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "topo/topo.h"

/* ---- aggregator placement ------------------------------------------------- */

/*
 * The access pattern as placement sees it: bytes each rank accesses in each
 * file domain (TATP's matrix C, Liu et al. Sec. 4.1), sparse by rank.
 * Every rank holds the same copy (gathered once per operation).
 */
typedef struct colio_pattern {
    int nprocs, ndom;
    int64_t *row_start;   /* nprocs + 1: entries of rank r are [row_start[r], row_start[r+1]) */
    int *dom;             /* file domain of each entry, ascending within a rank */
    int64_t *bytes;       /* bytes of each entry, > 0 */
    /* the same by file domain (colio_pattern_index): ranks ascending */
    int64_t *col_start;   /* ndom + 1 */
    int *col_rank;
    int64_t *col_bytes;
    int64_t *dom_bytes;   /* ndom: total bytes of each file domain */
} colio_pattern_t;

/* Fill the by-domain half from the by-rank half. */
int colio_pattern_index(colio_pattern_t *pat);
/* Frees every array (by-rank ones included). */
void colio_pattern_free(colio_pattern_t *pat);

typedef struct colio_place_input {
    const colio_topo_t *topo;    /* nodes and, through topo->net, distances */
    int naggs;                   /* aggregators to choose = file domains (>= 1, <= nprocs) */
    int per_node;                /* at most this many per node where the strategy honours it (>= 1) */
    const colio_pattern_t *pat;  /* the pattern (ndom == naggs) for strategies with uses_pattern; else NULL */
    /* Subfiling (colio_place_select): file domains [group_first[g], group_first[g+1]) store into
       subfile g and take their aggregators among the ranks r with group_of_rank[r] == g. A strategy
       sees one group at a time: only ranks with colio_place_allowed are candidates. NULL: no groups. */
    const int *group_of_rank;
    const int *group_first;
    int ngroups;
    int only_group;              /* set by colio_place_select for the strategy */
} colio_place_input_t;

typedef struct colio_place_ops {
    const char *name;
    int uses_pattern;            /* chosen per operation from the pattern, else once per hints */
    /* Fill aggs[0..naggs-1] with distinct ranks: aggs[j] serves file domain j. */
    int (*select)(const colio_place_input_t *in, int *aggs);
} colio_place_ops_t;

const colio_place_ops_t *colio_place_find(const char *name);

/* Run strategy ops: once, or once per subfile group with the group's domains and ranks (see above). */
int colio_place_select(const colio_place_ops_t *ops, const colio_place_input_t *in, int *aggs);
/* Whether rank r may aggregate in the group a strategy is choosing for. */
static inline int colio_place_allowed(const colio_place_input_t *in, int r)
{
    return in->group_of_rank == NULL || in->group_of_rank[r] == in->only_group;
}
const char *colio_place_name(int i);

/* How many aggregators the hints ask for: cb_nodes, else per_node on every node; capped at nprocs. */
int colio_place_count(const colio_topo_t *topo, int cb_nodes, int per_node);
/* Aggregators of the wide set (every rank) when neither hint sets a count on a job of one node, else 0. */
int colio_place_wide_count(const colio_topo_t *topo, int cb_nodes, int per_node);
/* Whether a call of these totals (agreed) takes the wide set: writes whose average piece is small. */
int colio_place_wide_call(int write, int64_t bytes, int64_t pieces);
/* The per-node cap a placement honours: per_node, raised when naggs needs more. */
int colio_place_node_cap(const colio_topo_t *topo, int naggs, int per_node);

/* Distance between ranks as TATP's matrix D: 0 itself, 1 on the same node, else network hops. */
int colio_place_rank_dist(const colio_topo_t *topo, int a, int b);
/* Network hops between nodes (0 for the same node) and from a node to its storage target;
   the model's latency and bandwidths. A topology without a network model is flat. */
int colio_place_node_hops(const colio_topo_t *topo, int node_a, int node_b);
int colio_place_io_hops(const colio_topo_t *topo, int node);
double colio_place_latency(const colio_topo_t *topo);
double colio_place_bandwidth(const colio_topo_t *topo);
double colio_place_io_bandwidth(const colio_topo_t *topo);

/*
 * TAPIOCA's cost of rank cand aggregating file domain j (Tessier et al.
 * Sec. 4.1): C1 = max over senders i != A of l*d(i,A) + w(i,A)/B, plus
 * C2 = l*d(A,IO) + w(A,IO)/(|Vc|*B_io), |Vc| = ranks with data in j, d in
 * network hops between nodes (0 within a node). Needs colio_pattern_index.
 */
double colio_place_tapioca_cost(const colio_place_input_t *in, int j, int cand);

/* Score of a rank for file domain j in a per-partition election (lowest wins); ctx is the strategy's. */
typedef double (*colio_place_score_fn_t)(const colio_place_input_t *in, void *ctx, int j, int rank);
/*
 * Elect one aggregator per file domain, domains in order (TAPIOCA's
 * partitions, Sec. 4.1 and 4.5): the best-scoring rank with data in the
 * domain whose node holds fewer than the cap, ties to the lowest rank; a
 * domain without such a rank takes the best-scoring free rank anywhere.
 */
int colio_place_elect(const colio_place_input_t *in, colio_place_score_fn_t score, void *ctx, int *aggs);

/* Per-operation metrics of a placement (statistics and colio-place). */
typedef struct colio_place_metrics {
    int64_t hop_bytes;        /* sum over shuffle messages of bytes x rank distance */
    int64_t max_link_bytes;   /* most bytes crossing one network link (either direction) */
    int64_t max_agg_bytes, min_agg_bytes; /* balance: bytes per aggregator */
    double predicted_cost;    /* max over file domains of TAPIOCA's C1 + C2 (seconds) */
} colio_place_metrics_t;

int colio_place_measure(const colio_place_input_t *in, const int *aggs, colio_place_metrics_t *m);

/* ---- file domains ------------------------------------------------------------ */

/* x * y and x + y, or INT64_MAX when they overflow (extents reach up to INT64_MAX). */
static inline int64_t colio_mul_sat(int64_t x, int64_t y)
{
    int64_t v;
    return __builtin_mul_overflow(x, y, &v) ? INT64_MAX : v;
}
static inline int64_t colio_add_sat(int64_t x, int64_t y)
{
    int64_t v;
    return __builtin_add_overflow(x, y, &v) ? INT64_MAX : v;
}

typedef struct colio_domain_input {
    int naggs;
    int64_t lo, hi;         /* global extent of the access, hi exclusive, lo < hi */
    int64_t round_size;     /* bytes per round as chosen (engine: colio_file_choose_rounds) */
    int64_t round_max;      /* cb_buffer_size, the most a round may hold; 0 = round_size */
    int64_t striping_unit;  /* 0 = unknown */
    int64_t block_size;     /* file-system block size (st_blksize or colio_block_size); 0 = unknown */
    int nsub;               /* subfile layout: subfiles (stripes of striping_unit dealt round-robin) */
    const int *sub_first;   /* nsub + 1: the domains of subfile g are [sub_first[g], sub_first[g+1]) */
} colio_domain_input_t;

typedef struct colio_domain_ops colio_domain_ops_t;

typedef struct colio_domains {
    const colio_domain_ops_t *ops;
    int naggs;
    int64_t lo, hi;
    int64_t round_size;     /* the longest extent of one round (the collective buffer's size) */
    int64_t unit;           /* layout-specific: stripe (stripe), round alignment (block) */
    int64_t first;          /* layout-specific: first stripe index (stripe) */
    int64_t nrounds;        /* max rounds over aggregators */
    int64_t *start, *end;   /* per aggregator (layouts with one contiguous share) */
    int nsub;               /* subfile layout: as in colio_domain_input_t (sub_first not owned) */
    const int *sub_first;
} colio_domains_t;

struct colio_domain_ops {
    const char *name;
    /* The plan of [lo + d, hi + d) is this layout's plan of [lo, hi) moved by d, for every d that is a
       multiple of the striping unit (any d when it is 0): plans may be reused at another offset. */
    int shifts;
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
