/*
 * The per-call strategy choice (issue 23, item 2; docs/DESIGN.md, "Choosing
 * the path"): predicted times of two-phase I/O and of the direct path for
 * one collective call, from the call's agreed shape, the storage figures of
 * its file system (store/figures.h) and the network model's terms, and the
 * cheaper of the two. Pure functions: every rank computes the same answer
 * from the same agreed words, and tests/unit/test_strategy_unit.c checks them
 * from given figures.
 */
#ifndef COLIO_ENGINE_STRATEGY_H
#define COLIO_ENGINE_STRATEGY_H

#include <stdint.h>

#include "store/figures.h"

/* One call as every rank knows it after the SETUP agreement. */
typedef struct colio_call_shape {
    int write;
    int nprocs, nnodes, naggs;
    int64_t bytes, pieces;               /* over all ranks */
    int64_t extent;                      /* the global extent: last byte + 1 - first byte */
    int64_t extent_sum;                  /* sum of the ranks' own extents */
    int64_t pieces_max, bytes_max, extent_max; /* the busiest rank's */
    int64_t round_bytes;                 /* cb_buffer_size */
    int pipelined;                       /* colio_pipeline > 1 */
} colio_call_shape_t;

/* The network between nodes: seconds per message, bytes per second per node link. */
typedef struct colio_net_terms {
    double latency, bandwidth;
} colio_net_terms_t;

typedef enum colio_path {
    COLIO_PATH_TWO_PHASE,
    COLIO_PATH_DIRECT,
} colio_path_t;

typedef struct colio_path_costs {
    double two_phase, direct;   /* predicted seconds */
    double direct_pieces;       /* reads: one call per piece */
    double direct_sieved;       /* reads: each rank reads its extent whole */
} colio_path_costs_t;

/* CPU seconds two-phase I/O spends per piece (splitting, lists, merging, packing; measured, E3SM F case). */
#define COLIO_COST_PER_PIECE 40e-9

colio_path_t colio_strategy_choose(const colio_call_shape_t *s, const colio_store_figures_t *f,
                                   const colio_net_terms_t *net, colio_path_costs_t *costs);

/*
 * The direct path's reads, per stretch of pieces: whether reading the holes
 * between them (data sieving, then copying the pieces out) costs less than
 * one call per piece, for pieces of avg_piece bytes avg_hole apart.
 */
int colio_strategy_sieve(const colio_store_figures_t *f, double avg_piece, double avg_hole);

/* "two-phase" or "direct". */
const char *colio_path_name(colio_path_t p);

#endif
