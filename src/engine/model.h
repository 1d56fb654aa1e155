/*
 * The cost model (docs/DESIGN.md, "Choosing the path"): predicted times of
 * two-phase I/O and of the direct path for one collective call, from the
 * call's agreed shape, the storage figures of its file system
 * (store/cost.h) and the network model's terms; and the sizes and rules
 * that follow from the same figures (rounds, sieving, pipelining). Pure
 * functions: every rank computes the same answer from the same agreed
 * words, and tests/unit/test_model_unit.c checks them from given figures.
 * The chooser that uses them is engine/strategy.c.
 */
#ifndef COLIO_ENGINE_MODEL_H
#define COLIO_ENGINE_MODEL_H

#include <stdint.h>

#include "store/cost.h"

/* One call as every rank knows it after the SETUP agreement. */
typedef struct colio_call_shape {
    int write;
    int nprocs, nnodes, naggs;
    int64_t bytes, pieces;               /* over all ranks */
    int64_t runs;                        /* ... runs (a strided run holds several pieces); 0 = not said */
    int64_t extent;                      /* the global extent: last byte + 1 - first byte */
    int64_t extent_sum;                  /* sum of the ranks' own extents */
    int64_t pieces_max, bytes_max, extent_max; /* the busiest rank's */
    int64_t round_bytes;                 /* bytes of file per round (colio_model_round_bytes) */
    int64_t sieve_bytes;                 /* reads: bytes per sieved read of the direct path; 0 = round_bytes */
    int pipelined;                       /* rounds pipelined (colio_plan_pipelines) */
    int meta_words;                      /* the lists' record format (access/split.h, colio_op_meta_words): 1
                                            packed, 2 a piece, 4 a run; 0 = 2 */
} colio_call_shape_t;

/* The network between nodes: seconds per message, bytes per second per node link. */
typedef struct colio_net_terms {
    double latency, bandwidth;
} colio_net_terms_t;

typedef struct colio_model_costs {
    double two_phase, direct;   /* predicted seconds */
    double direct_pieces;       /* reads: one call per piece */
    double direct_sieved;       /* reads: each rank reads its extent whole */
} colio_model_costs_t;

/*
 * Where storage calls wait (a network file system's round trips, a device
 * queue: the figures' cost of a read call at least COLIO_OVERLAP_CALL), the
 * direct path hands a read's pieces to the I/O executor in up to
 * COLIO_DIRECT_JOBS jobs that run at once, their waits overlapping as a
 * parallel file system client's requests in flight do (engine/direct.c;
 * 4 MiB pieces behind 1 ms calls: 0.6x the time). Below it (a page cache:
 * about a microsecond a call, all of it copying) a hand-off to a helper
 * (5-20 us) would only cost. Writes keep one job in order: behind the
 * same storage they gained nothing (tmpfs takes a file's lock for each
 * write), and on a shared file's locks more writers at once contend.
 */
#define COLIO_DIRECT_JOBS 4
#define COLIO_OVERLAP_CALL 50e-6
/* The direct path's read calls that wait at once on storage of figures f: COLIO_DIRECT_JOBS, else 1. */
int colio_model_reads_at_once(const colio_store_figures_t *f);

/*
 * Whether pipelined rounds (colio_pipeline automatic) pay on storage of
 * figures f for writes (write) or reads: where a call of the kind waits
 * (at least COLIO_OVERLAP_CALL), the helper's call overlaps the next
 * round's exchange. A copy into a page cache (a microsecond a call, the
 * rest its bytes) runs on the core the exchange needs: there the second
 * buffer and the hand-offs only cost (2 ranks bound on tmpfs: many-piece
 * writes 3-7% faster with one buffer, E3SM's maps and the lattice; behind
 * 1 ms calls 5-8% slower; colio-bench --size medium and --workload lattice).
 */
int colio_model_pipelines(const colio_store_figures_t *f, int write);

/*
 * CPU seconds two-phase I/O spends each time it handles a record (listed
 * and split, then its bytes copied in at one end and out at the other:
 * about three times at 2 ranks), and per further piece of a strided run,
 * whose pieces one loop copies. Measured at 2 ranks on /dev/shm against
 * the time of the same bytes in a few large pieces (29 November 2026,
 * docs/PERFORMANCE.md, "The model's cost per piece"): the E3SM F case,
 * 661,072 packed pieces a rank, 6-10 ns a piece in all; interleaved
 * 64-byte blocks in one strided run a rank, under 1 ns.
 */
#define COLIO_COST_PER_RECORD 3e-9
#define COLIO_COST_PER_PIECE_IN_RUN 0.3e-9
/* Records a run leaves where the split cuts it at a round's edge (access/split.c): a head, a body, a tail. */
#define COLIO_SPLIT_PARTS 3

/* Both paths' predicted seconds for the call s (the direct path's reads both ways). */
void colio_model_costs(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net,
                       colio_model_costs_t *costs);
/* The direct path's predicted seconds, and two-phase I/O's. */
double colio_model_direct(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net);
double colio_model_two_phase(const colio_call_shape_t *s, const colio_store_figures_t *f,
                             const colio_net_terms_t *net);

/*
 * Bytes of file per two-phase round, and per sieved read of the direct
 * path (s->nprocs 1: no messages), for a call of s's kind on its ranks and
 * nodes, at most s->round_bytes (cb_buffer_size): small enough that the
 * round's bytes stay in a core's cache while they are copied in and out
 * (COLIO_ROUND_CACHE_BYTES, and with two buffers storage overlaps the next
 * round sooner), large enough that a round's fixed costs, a storage call and
 * a message from each source, take at most COLIO_ROUND_FIXED_SHARE of its
 * time. Depends on the file's figures, hints and ranks only, never on one
 * call's bytes, so a stored plan's rounds stay right.
 */
int64_t colio_model_round_bytes(const colio_call_shape_t *s, const colio_store_figures_t *f,
                                   const colio_net_terms_t *net);

/* Bytes a round keeps in a core's cache while they are copied (a core's L2 on current CPUs). */
#define COLIO_ROUND_CACHE_BYTES ((int64_t)1 << 20)
/* The share of a round's time its fixed costs may take. */
#define COLIO_ROUND_FIXED_SHARE 0.05

/*
 * The direct path's reads, per stretch of pieces: whether reading the holes
 * between them (data sieving, then copying the pieces out) costs less than
 * one call per piece, for pieces of avg_piece bytes avg_hole apart.
 */
int colio_model_sieve(const colio_store_figures_t *f, double avg_piece, double avg_hole);

/*
 * A two-phase write round whose covered bytes leave holes, `runs` covered
 * stretches of `covered` bytes over `extent` bytes of file: whether filling
 * the holes by read-modify-write (read the extent, write it whole) costs
 * less than one write call per covered stretch.
 */
int colio_model_sieve_write(const colio_store_figures_t *f, double extent, double covered, double runs);

#endif
