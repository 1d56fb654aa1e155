/*
 * Block-aligned file domains, TAPIOCA style (Tessier et al., partitions and
 * aggregation buffers aligned to the file-system block size): equal
 * contiguous shares in whole blocks, as the even layout with the block as
 * alignment, and rounds cut at absolute multiples of the round length R,
 * the largest multiple of the block not above the chosen round (at least
 * one block, at most cb_buffer_size), so every storage request but the
 * extent's first and last starts and ends on a block boundary. The block is
 * colio_block_size, else the file's st_blksize, else striping_unit, else
 * 4096. A block larger than cb_buffer_size cannot align rounds: then R =
 * cb_buffer_size.
 */
#include "place/place.h"
#include "place/registry.h"

#define BLOCK_DEFAULT 4096

static int64_t block_of(const colio_domain_input_t *in)
{
    if (in->block_size > 0)
        return in->block_size;
    return in->striping_unit > 0 ? in->striping_unit : BLOCK_DEFAULT;
}

/* Rounds of share a: from the R-aligned slot holding its start to the one holding its end. */
static int64_t share_rounds(const colio_domains_t *d, int a)
{
    if (d->start[a] >= d->end[a])
        return 0;
    return (d->end[a] - 1) / d->unit - d->start[a] / d->unit + 1;
}

static int block_plan(const colio_domain_input_t *in, colio_domains_t *d)
{
    int64_t b = block_of(in);
    colio_domain_input_t aligned = *in;
    aligned.striping_unit = b;
    int rc = colio_domain_even.plan(&aligned, d);
    if (rc != COLIO_SUCCESS)
        return rc;
    int64_t cap = colio_domain_round_max(in), want = in->round_size < b ? b : in->round_size; /* a block at least */
    want = want < cap ? want : cap;
    d->unit = b <= cap ? want / b * b : cap;
    d->round_size = d->unit;
    d->nrounds = 0;
    for (int a = 0; a < in->naggs; a++) {
        int64_t r = share_rounds(d, a);
        d->nrounds = r > d->nrounds ? r : d->nrounds;
    }
    return COLIO_SUCCESS;
}

/* Slot q (the R-aligned extent [q*R, (q+1)*R)) within share a. */
static void slot_extent(const colio_domains_t *d, int a, int64_t q, int64_t *s, int64_t *e)
{
    int64_t qs = q * d->unit; /* q <= (end - 1) / R: no overflow */
    *s = qs > d->start[a] ? qs : d->start[a];
    *e = d->end[a] - qs > d->unit ? qs + d->unit : d->end[a];
}

static void block_locate(const colio_domains_t *d, int64_t off, int *agg, int64_t *round, int64_t *run_end)
{
    int a = colio_domain_share_of(d, off);
    int64_t q = off / d->unit, s;
    *agg = a;
    *round = q - d->start[a] / d->unit;
    slot_extent(d, a, q, &s, run_end);
}

static void block_round_extent(const colio_domains_t *d, int agg, int64_t r, int64_t *s, int64_t *e)
{
    if (r >= share_rounds(d, agg)) {
        *s = *e = d->end[agg];
        return;
    }
    slot_extent(d, agg, d->start[agg] / d->unit + r, s, e);
}

const colio_domain_ops_t colio_domain_block = {
    .name = "block",
    .plan = block_plan,
    .locate = block_locate,
    .round_extent = block_round_extent,
};
