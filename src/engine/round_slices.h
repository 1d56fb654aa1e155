/*
 * What the rounds of writes and of reads share (round_slices.c): which
 * round comes next and its coverage, the aggregator's slices of it, copies
 * between the collective buffer, packed buffers and user memory, and the
 * data sieving choice.
 */
#ifndef COLIO_ENGINE_ROUND_SLICES_H
#define COLIO_ENGINE_ROUND_SLICES_H

#include "access/copy.h"
#include "base/pool.h"
#include "engine/op.h"

/* The next round this aggregator has pieces in (INT64_MAX: none). */
int64_t colio_round_agg_next(const colio_op_t *op);
/* Room for bytes in a buffer from the file's pool, taken anew (nothing kept) when too small; -1: out of memory. */
int colio_round_buf_reserve(colio_pool_t *bufs, char **buf, int64_t *size, int64_t bytes);
/* Empty the coverage for the extent [rs, re) of round r; 0, or the operation's error (storage I/O stops). */
int colio_round_coverage_begin(colio_op_t *op, int64_t r, int64_t rs, int64_t re);
/* Copies of one run's pieces: between the collective buffer (file layout of the round) and a packed
   buffer, and between the collective buffer and user memory. */
static inline void colio_round_cbuf_pack(const colio_op_t *op, const colio_run_t *r, char *packed)
{
    colio_copy_strided(packed, r->len, op->rnd.cbuf + (r->off - op->rnd.rs), r->stride, r->len, r->count);
}
static inline void colio_round_cbuf_unpack(colio_op_t *op, const colio_run_t *r, const char *packed)
{
    colio_copy_strided(op->rnd.cbuf + (r->off - op->rnd.rs), r->stride, packed, r->len, r->len, r->count);
}
void colio_round_cbuf_mem(colio_op_t *op, const colio_run_t *r, int to_cbuf);
/* Data sieving choice for a round: whether holes this small (per the toggle) are read too. */
int colio_round_sieve_worth(const colio_op_t *op, colio_toggle_t toggle, int64_t max_avg_hole);
/* Bytes from the start of a round's collective buffer to where file offset rs goes (0 for writes). */
int64_t colio_round_read_shift(const colio_op_t *op, int64_t rs);
/* The next round this aggregator covers (*r_p, its file range [*rs_p, *re_p)); 0 when none is left. */
int colio_round_cover_next(colio_op_t *op, int64_t *r_p, int64_t *rs_p, int64_t *re_p);
/* The incoming slices of the round at their place in the collective buffer (in_place), or in a pack buffer. */
void colio_round_place_agg_slices(colio_op_t *op, int in_place);
/* The runs meta[first .. first+n) as one datatype over a buffer holding file offset base at 0. */
int colio_runs_type(const int64_t *meta, int words, int64_t from, int64_t first, int64_t n, int64_t base,
                    MPI_Datatype *t);

#endif
