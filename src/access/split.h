/* Splitting a rank's runs by file domain and round: one list per aggregator. */
#ifndef COLIO_ACCESS_SPLIT_H
#define COLIO_ACCESS_SPLIT_H

#include <stdint.h>

#include "access/access.h"
#include "access/packed.h"
#include "place/place.h"

/*
 * Metadata record of a run as sent to an aggregator: off, len, stride,
 * count; or off, len (COLIO_META_PIECE_WORDS), a record per piece, in a
 * call where that takes no more room on any rank (the climate maps'
 * millions of 13-byte pieces, a few of them in strided runs: half the
 * bytes to write, send and read in every pass over them); or, where the
 * call's pieces also lie within 4 GiB of the file, one word a piece
 * (COLIO_META_PACKED_WORDS): the offset from the call's first byte (the
 * list's base) in the high 32 bits, the length in the low 32. A climate
 * write moves its metadata between memory and cache four or five times
 * (split, send, receive, the round's slices, the copy of the bytes) and is
 * bound by memory bandwidth: half the words took 9-16% off the E3SM F
 * write at 2 ranks (docs/PERFORMANCE.md). The formats' word counts,
 * COLIO_META_WORDS, _PIECE_WORDS and _PACKED_WORDS, are in access/packed.h.
 */
/* Packed records: the call's pieces lie in fewer bytes of the file than this (offsets from the first byte and
   lengths fit 32 bits each). */
#define COLIO_META_PACKED_LIMIT COLIO_PACKED_LIMIT
/* Whether a record holds one piece (two-word and packed records). */
static inline int colio_meta_is_piece(int words)
{
    return words == COLIO_META_PIECE_WORDS || words == COLIO_META_PACKED_WORDS;
}
/* The record size for a call whose pieces lie in [lo, hi): four words, or a record per piece (piece_meta),
   packed where the span allows it. */
static inline int colio_meta_words_for(int piece_meta, int64_t lo, int64_t hi)
{
    if (!piece_meta)
        return COLIO_META_WORDS;
    return hi - lo < COLIO_META_PACKED_LIMIT ? COLIO_META_PACKED_WORDS : COLIO_META_PIECE_WORDS;
}
/* Write a one-piece record (a piece format; base: the list's, for packed records). */
static inline void colio_meta_put_piece(int64_t *m, int words, int64_t base, int64_t off, int64_t len)
{
    if (words == COLIO_META_PACKED_WORDS) {
        m[0] = colio_packed_word(off - base, len);
        return;
    }
    m[0] = off, m[1] = len;
}
/* Lengthen the one-piece record at m by len bytes (a piece format; packed: the sum stays below 4 GiB). */
static inline void colio_meta_grow_piece(int64_t *m, int words, int64_t len)
{
    m[words == COLIO_META_PACKED_WORDS ? 0 : 1] += len;
}
/* Move a list's n records by delta bytes in the file: its base (*base), and the records too unless packed. */
static inline void colio_meta_move(int64_t *meta, int words, int64_t n, int64_t *base, int64_t delta)
{
    *base += delta;
    for (int64_t k = 0; k < n && words != COLIO_META_PACKED_WORDS; k++)
        meta[words * k] += delta;
}
static inline int64_t colio_meta_bytes(int words, int64_t n) { return (int64_t)sizeof(int64_t) * words * n; }

/*
 * A list's runs of one round, in order: what the requester sends the
 * aggregator in that round, summed as the split deals them (a round reads
 * no run to know its message). In a list whose stream positions are
 * implied (pos NULL) a stretch is also one stretch of the user's stream:
 * a run that does not continue it opens another, of the same round.
 */
typedef struct colio_list_stretch {
    int64_t round;    /* the aggregator's round */
    int64_t first, n; /* runs [first, first + n) of the list */
    int64_t bytes, pieces;
    int64_t pos0;     /* the stream position of the first run */
    int64_t next_pos; /* the stream position after the last run */
    int contig;       /* each run follows the one before in the stream: one stretch of it */
} colio_list_stretch_t;

/* This rank's runs destined to one aggregator, in file order, each inside one round. */
typedef struct colio_agg_list {
    int64_t n, cap;
    int words;       /* metadata words per run: COLIO_META_WORDS, _PIECE_WORDS or _PACKED_WORDS */
    int64_t *meta;   /* words per run: the metadata sent to the aggregator */
    int64_t base;    /* packed records: the file offset their offsets count from (the call's first byte) */
    int64_t *pos;    /* n: stream position of each run's first piece; NULL: implied by the stretches */
    int implied_pos; /* positions kept by the stretches alone (an access in stream order) */
    colio_list_stretch_t *st; /* nst: the runs by round, in list order */
    int64_t nst, cap_st;
    int64_t cur;     /* first run not yet exchanged */
    int64_t scur;    /* its stretch */
    int64_t bytes;   /* the runs' bytes, summed as they are dealt */
} colio_agg_list_t;

/* The stretch holding run k of a list. */
static inline int64_t colio_agg_list_stretch(const colio_agg_list_t *l, int64_t k)
{
    int64_t lo = 0, hi = l->nst - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (l->st[mid].first <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The round of run k of a list. */
static inline int64_t colio_agg_list_round(const colio_agg_list_t *l, int64_t k)
{
    return l->st[colio_agg_list_stretch(l, k)].round;
}

/* Run i of a metadata array of words per run (stream position pos). */
static inline colio_run_t colio_meta_run(const int64_t *meta, int words, int64_t base, int64_t i, int64_t pos)
{
    const int64_t *m = meta + words * i;
    if (words == COLIO_META_PACKED_WORDS) {
        int64_t off = base + colio_packed_off(m[0]), len = colio_packed_len(m[0]);
        return (colio_run_t){off, len, len, 1, pos};
    }
    if (words == COLIO_META_PIECE_WORDS)
        return (colio_run_t){m[0], m[1], m[1], 1, pos};
    return (colio_run_t){m[0], m[1], m[2], m[3], pos};
}

/* The file offset of run i's first piece. */
static inline int64_t colio_meta_off(const int64_t *meta, int words, int64_t base, int64_t i)
{
    return words == COLIO_META_PACKED_WORDS ? base + colio_packed_off(meta[i]) : meta[words * i];
}

/*
 * A list's runs in order from run k, with their stream positions: kept
 * per run, or implied by the stretches (each the stretch's first position
 * plus the bytes of the runs before in it).
 */
typedef struct colio_list_walk {
    int64_t k, st, end, pos; /* the next run, its stretch, the stretch's end (a run index), its position */
} colio_list_walk_t;

static inline colio_list_walk_t colio_list_walk_from(const colio_agg_list_t *l, int64_t k)
{
    colio_list_walk_t w = {k, 0, 0, 0};
    if (l->pos || k >= l->n)
        return w;
    w.st = colio_agg_list_stretch(l, k);
    w.end = l->st[w.st].first + l->st[w.st].n;
    w.pos = l->st[w.st].pos0;
    for (int64_t q = l->st[w.st].first; q < k; q++) {
        colio_run_t r = colio_meta_run(l->meta, l->words, l->base, q, 0);
        w.pos += colio_run_bytes(&r);
    }
    return w;
}

/* The walk's next run (words: the list's record size, known to an inlined caller). */
static inline colio_run_t colio_list_next(const colio_agg_list_t *l, colio_list_walk_t *w, int words)
{
    colio_run_t r = colio_meta_run(l->meta, words, l->base, w->k, 0);
    if (l->pos) {
        r.pos = l->pos[w->k++];
        return r;
    }
    if (w->k == w->end) {
        const colio_list_stretch_t *t = &l->st[++w->st];
        w->pos = t->pos0, w->end = t->first + t->n;
    }
    r.pos = w->pos;
    w->pos += colio_run_bytes(&r);
    w->k++;
    return r;
}

/*
 * Cut every run at file-domain and round boundaries (pieces too, where a
 * boundary falls inside one) and deal the parts to lists[0..dom->naggs),
 * words metadata words per run (a piece format, colio_meta_is_piece: strided runs are
 * dealt piece by piece, and parts merged only where they abut). On
 * failure the lists are left empty.
 */
int colio_split_by_domain(const colio_access_t *acc, const colio_domains_t *dom, int words,
                          colio_agg_list_t *lists, colio_err_t *err);
void colio_agg_lists_free(colio_agg_list_t *lists, int n);
/*
 * How many parts colio_split_by_domain deals to each list of words per
 * run, added to count[0..dom->naggs), for sizing the lists: a run inside
 * one (aggregator, round) segment is one, a run cut at boundaries three a
 * segment (in two-word lists a strided run counts its pieces). An access
 * whose runs may overlap is counted run by run: at most the parts. One in
 * file order is counted a segment at a time (binary searches): the same
 * with four words; with two, each list's extra pieces are estimated (as
 * many as its runs, at most the access's), a list may need more.
 */
void colio_split_count(const colio_access_t *acc, const colio_domains_t *dom, int words, int64_t *count);

#endif
