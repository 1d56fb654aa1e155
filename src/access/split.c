/* Splitting a rank's runs by file domain and round (the "my requests per aggregator" lists). */
#include "access/split.h"

#include "base/pool.h"

#include <stdlib.h>
#include <string.h>

static int list_grow_to(colio_agg_list_t *l, int64_t cap)
{
    int64_t *m = colio_mem_realloc(l->meta, sizeof *m * (size_t)(l->words * cap));
    if (m)
        l->meta = m;
    if (m == NULL)
        return -1;
    if (!l->implied_pos) {
        int64_t *p = colio_mem_realloc(l->pos, sizeof *p * (size_t)cap);
        if (p == NULL)
            return -1;
        l->pos = p;
    }
    l->cap = cap;
    return 0;
}

/* A new stretch for round at the list's end; NULL when out of memory. */
static colio_list_stretch_t *stretch_open(colio_agg_list_t *l, int64_t round, int64_t pos)
{
    if (l->nst == l->cap_st) {
        int64_t cap = l->cap_st ? 2 * l->cap_st : 8;
        colio_list_stretch_t *st = realloc(l->st, sizeof *st * (size_t)cap);
        if (st == NULL)
            return NULL;
        l->st = st;
        l->cap_st = cap;
    }
    colio_list_stretch_t *t = &l->st[l->nst++];
    *t = (colio_list_stretch_t){.round = round, .first = l->n, .pos0 = pos, .next_pos = pos, .contig = 1};
    return t;
}

/* Append a part as a run of its own. (The split's three helpers are inlined: a call per run of a million-run
   access, the struct passed on the stack, cost a third of the split.) */
static inline __attribute__((always_inline)) int list_push(colio_agg_list_t *l, colio_run_t b, int64_t round)
{
    if (l->n == l->cap && list_grow_to(l, l->cap ? 2 * l->cap : 16) != 0)
        return -1;
    colio_list_stretch_t *t = l->nst > 0 ? &l->st[l->nst - 1] : NULL;
    if ((t == NULL || t->round != round || (l->implied_pos && b.pos != t->next_pos)) &&
        (t = stretch_open(l, round, b.pos)) == NULL)
        return -1;
    int64_t *m = l->meta + l->words * l->n;
    if (colio_meta_is_piece(l->words))
        colio_meta_put_piece(m, l->words, l->base, b.off, b.len);
    else
        m[0] = b.off, m[1] = b.len, m[2] = b.stride, m[3] = b.count;
    if (!l->implied_pos)
        l->pos[l->n] = b.pos;
    l->n++;
    int64_t bytes = b.len * b.count;
    l->bytes += bytes;
    t->contig &= b.pos == t->next_pos;
    t->n++, t->bytes += bytes, t->pieces += b.count, t->next_pos = b.pos + bytes;
    return 0;
}

/*
 * Append a part, extending the last run of the same round when the part
 * continues it: any way colio_run_extend allows, or in a list of single
 * pieces only where the part abuts it in file and stream (one longer piece).
 */
static inline __attribute__((always_inline)) int list_append(colio_agg_list_t *l, colio_run_t b, int64_t round)
{
    colio_list_stretch_t *t = l->nst > 0 ? &l->st[l->nst - 1] : NULL;
    if (t && t->round == round) { /* (a part continues its stream: next_pos moves, contig stays) */
        int64_t *m = l->meta + l->words * (l->n - 1), bytes = b.len * b.count;
        colio_run_t a = colio_meta_run(l->meta, l->words, l->base, l->n - 1, 0);
        a.pos = t->next_pos - colio_run_bytes(&a); /* the last run ends the stretch in the stream */
        if (colio_meta_is_piece(l->words) && b.count == 1 && b.off == a.off + a.len && b.pos == a.pos + a.len) {
            colio_meta_grow_piece(m, l->words, b.len);
            l->bytes += b.len;
            t->bytes += b.len, t->next_pos += b.len;
            return 0;
        }
        int64_t count0 = a.count;
        if (l->words == COLIO_META_WORDS && colio_run_extend(&a, &b)) {
            m[0] = a.off, m[1] = a.len, m[2] = a.stride, m[3] = a.count;
            l->bytes += bytes;
            t->bytes += bytes, t->pieces += a.count - count0, t->next_pos = b.pos + bytes;
            return 0;
        }
    }
    return list_push(l, b, round);
}

/* First file offset at or after x where run r has a byte (x itself inside a piece, or the next piece). */
static int64_t next_byte(const colio_run_t *r, int64_t x)
{
    if (x <= r->off)
        return r->off;
    int64_t k = (x - r->off) / r->stride;
    if (r->off + k * r->stride + r->len > x)
        return x;
    return r->off + (k + 1) * r->stride;
}

/*
 * The (aggregator, round) segment last found: runs come in file order, so
 * the next one usually starts in it, and looking it up again (a search over
 * the domains and a division per run) was a tenth of an E3SM write.
 */
typedef struct segment {
    int64_t from, end; /* [from, end) is known to be in it */
    int agg;
    int64_t round;
    int whole_to;      /* the list the previous run went to whole, or -1 */
} segment_t;

static void locate(const colio_domains_t *dom, segment_t *seg, int64_t at)
{
    if (at >= seg->from && at < seg->end)
        return;
    dom->ops->locate(dom, at, &seg->agg, &seg->round, &seg->end);
    seg->from = at;
}

/* Deal run r over the (aggregator, round) segments it crosses, skipping segments it has no byte in. */
static inline __attribute__((always_inline)) int split_run(const colio_run_t *r, const colio_domains_t *dom,
                                                          colio_agg_list_t *lists, colio_runs_t *tmp, segment_t *seg)
{
    int64_t end = colio_run_end(r);
    for (int64_t at = r->off; at < end; at = next_byte(r, at)) {
        locate(dom, seg, at);
        int agg = seg->agg;
        int64_t round = seg->round, seg_end = seg->end;
        if (at == r->off && end <= seg_end) { /* the common case: the whole run in one segment */
            /* after the previous run of the access, which did not continue it (the access is merged) */
            int after_whole = seg->whole_to == agg;
            seg->whole_to = agg;
            return after_whole ? list_push(&lists[agg], *r, round) : list_append(&lists[agg], *r, round);
        }
        seg->whole_to = -1;
        tmp->n = 0;
        if (colio_run_slice_file(r, at, seg_end, tmp) != 0)
            return -1;
        for (int64_t i = 0; i < tmp->n; i++)
            if (list_append(&lists[agg], tmp->r[i], round) != 0)
                return -1;
        at = seg_end;
    }
    return 0;
}

/* A strided run's pieces, all inside one segment, into list l: the first may continue the list (may_continue). */
static inline __attribute__((always_inline)) int push_pieces(colio_agg_list_t *l, const colio_run_t *r,
                                                              int64_t round, int may_continue)
{
    colio_run_t first = colio_piece(r->off, r->len, r->pos);
    int rc = may_continue ? list_append(l, first, round) : list_push(l, first, round);
    for (int64_t k = 1; k < r->count && rc == 0; k++) /* (stride apart: none continues the one before) */
        rc = list_push(l, colio_piece(r->off + k * r->stride, r->len, r->pos + k * r->len), round);
    return rc;
}

/*
 * A strided run dealt to two-word lists piece by piece: within one segment
 * only its first piece may continue the list (the others are stride apart),
 * else each piece is split on its own.
 */
static int split_pieces(const colio_run_t *r, const colio_domains_t *dom, colio_agg_list_t *lists, colio_runs_t *tmp,
                        segment_t *seg)
{
    int rc = 0;
    locate(dom, seg, r->off);
    if (colio_run_end(r) <= seg->end) {
        rc = push_pieces(&lists[seg->agg], r, seg->round, 1);
        seg->whole_to = -1;
        return rc;
    }
    for (int64_t k = 0; k < r->count && rc == 0; k++) {
        colio_run_t piece = colio_piece(r->off + k * r->stride, r->len, r->pos + k * r->len);
        seg->whole_to = -1; /* each piece may continue the one before it: list_append */
        rc = split_run(&piece, dom, lists, tmp, seg);
    }
    return rc;
}

/* Run r cut at segment boundaries and dealt: piece by piece into two-word lists where it is strided. */
static int split_one(const colio_run_t *r, const colio_domains_t *dom, colio_agg_list_t *lists, colio_runs_t *tmp,
                     segment_t *seg)
{
    return colio_meta_is_piece(lists[0].words) && r->count > 1 ? split_pieces(r, dom, lists, tmp, seg)
                                                                    : split_run(r, dom, lists, tmp, seg);
}

/*
 * At most how many parts each list gets of run r: a run in one segment is
 * one, a run cut at boundaries three a segment; in two-word lists (dealt
 * piece by piece) its pieces, or those with a byte in each segment it
 * crosses.
 */
static void count_parts(const colio_run_t *r, const colio_domains_t *dom, int words, int64_t *count, segment_t *seg)
{
    int pieces = colio_meta_is_piece(words);
    int64_t end = colio_run_end(r);
    for (int64_t at = r->off; at < end; at = next_byte(r, at)) {
        locate(dom, seg, at);
        if (at == r->off && end <= seg->end) {
            count[seg->agg] += pieces ? r->count : 1;
            return;
        }
        int64_t upto = seg->end < end ? seg->end : end, touched = (upto - at + r->stride - 1) / r->stride + 1;
        count[seg->agg] += !pieces ? 3 : touched < r->count ? touched : r->count;
        at = seg->end;
    }
}

/* The first run in [i, n) that ends after x (n: none); the runs end in file order. */
static int64_t first_ending_after(const colio_run_t *runs, int64_t i, int64_t n, int64_t x)
{
    while (i < n) {
        int64_t mid = i + (n - i) / 2;
        if (colio_run_end(&runs[mid]) > x)
            n = mid;
        else
            i = mid + 1;
    }
    return i;
}

/*
 * count_parts over an access in file order, none overlapping another, a
 * segment at a time: the runs wholly inside a segment are found by a binary
 * search on their ends, so a few hundred segments cost a few thousand
 * looks instead of a pass over every run (a million in the climate maps).
 * In two-word lists a strided run takes a record per piece: a list is
 * given room for as many more pieces as it has runs, at most the access's
 * extra pieces (npieces - n); one whose runs average more than two pieces
 * grows by doubling. (A bound, every extra piece to every list, reserved
 * hundreds of megabytes among many aggregators.)
 */
static void count_by_segments(const colio_access_t *acc, const colio_domains_t *dom, int words, int64_t *count)
{
    segment_t seg = {0, 0, 0, 0, -1};
    for (int64_t i = 0; i < acc->n;) {
        locate(dom, &seg, acc->runs[i].off + acc->shift);
        int64_t j = first_ending_after(acc->runs, i, acc->n, seg.end - acc->shift);
        count[seg.agg] += j - i;
        if (j < acc->n && acc->runs[j].off + acc->shift < seg.end) { /* run j crosses the segment's end */
            colio_run_t r = colio_access_run(acc, j++);
            count_parts(&r, dom, words, count, &seg);
        }
        i = j;
    }
    for (int a = 0; colio_meta_is_piece(words) && a < dom->naggs; a++) {
        int64_t extra = acc->npieces - acc->n; /* pieces beyond one a run: a list's share, as many as its runs */
        count[a] += extra < count[a] ? extra : count[a];
    }
}

void colio_split_count(const colio_access_t *acc, const colio_domains_t *dom, int words, int64_t *count)
{
    segment_t seg = {0, 0, 0, 0, -1};
    if (!acc->overlaps) {
        count_by_segments(acc, dom, words, count);
        return;
    }
    for (int64_t i = 0; i < acc->n; i++) {
        colio_run_t r = colio_access_run(acc, i);
        count_parts(&r, dom, words, count, &seg);
    }
}

/* Each list grown to hold count[a] parts; frees count. */
static int grow_to_counts(int64_t *count, int naggs, colio_agg_list_t *lists)
{
    int rc = 0;
    for (int a = 0; a < naggs && rc == 0; a++)
        rc = count[a] ? list_grow_to(&lists[a], count[a] + 1) : 0;
    free(count);
    return rc;
}

/*
 * Room in each list for all its parts: one list gets about every run; several are counted first (by
 * segments, or a pass with the segment cache where runs may overlap), since growing them by doubling
 * copied and faulted in their memory.
 */
static int size_lists(const colio_access_t *acc, const colio_domains_t *dom, int words, colio_agg_list_t *lists)
{
    if (dom->naggs == 1) /* (in two-word lists a strided run takes a record per piece) */
        return acc->n > 0 ? list_grow_to(&lists[0], (colio_meta_is_piece(words) ? acc->npieces : acc->n) + 16) : 0;
    int64_t *count = calloc((size_t)dom->naggs, sizeof *count);
    if (count == NULL)
        return -1;
    colio_split_count(acc, dom, words, count);
    return grow_to_counts(count, dom->naggs, lists);
}

/*
 * Runs that follow one another in the stream, from run k on, into a list
 * of one-piece records (words each) with implied positions whose last
 * stretch (of this round) they continue: the records and nothing else, a
 * strided run's pieces written out in the same loop, a piece that abuts
 * the one before it (a strided run's first or last piece beside its
 * neighbour) lengthening it. The stretch's sums are kept in registers and
 * stored once (stores through the metadata pointer may alias them). The
 * loop is bound by memory bandwidth: a climate map's 40-byte runs are read
 * once, at 6-7 GB/s a rank here. Returns the first run not taken: one that
 * skips in the stream, or for whose pieces the list has no room.
 */
static inline __attribute__((always_inline)) int64_t push_following_runs(const colio_access_t *acc, int64_t k,
                                                                          int64_t j, colio_agg_list_t *l, int words)
{
    colio_list_stretch_t *t = &l->st[l->nst - 1];
    int64_t n0 = l->n, room = l->cap - l->n, next = t->next_pos, shift = acc->shift;
    int64_t *m = l->meta + words * n0, *m0 = m;
    int64_t last_end = -1;
    if (n0 > 0) {
        colio_run_t last = colio_meta_run(l->meta, words, l->base, n0 - 1, 0);
        last_end = last.off + last.len;
    }
    for (; k < j; k++) {
        const colio_run_t *r = &acc->runs[k];
        int64_t off = r->off + shift, len = r->len, count = r->count, stride = r->stride;
        if (r->pos != next || count > room - (m - m0) / words)
            break;
        next += count * len;
        for (int64_t q = 0; q < count; q++, off += stride) {
            if (off == last_end) {
                colio_meta_grow_piece(m - words, words, len);
            } else {
                colio_meta_put_piece(m, words, l->base, off, len);
                m += words;
            }
            last_end = off + len;
        }
    }
    int64_t taken = (m - m0) / words, bytes = next - t->next_pos;
    l->n = n0 + taken, l->bytes += bytes;
    t->n += taken, t->bytes += bytes, t->pieces += taken, t->next_pos = next;
    return k;
}

/* push_following_runs for the list's record format, each inlined with its record size. */
static int64_t push_following(const colio_access_t *acc, int64_t k, int64_t j, colio_agg_list_t *l)
{
    if (l->words == COLIO_META_PACKED_WORDS)
        return push_following_runs(acc, k, j, l, COLIO_META_PACKED_WORDS);
    return push_following_runs(acc, k, j, l, COLIO_META_PIECE_WORDS);
}

/*
 * Runs [i, j) of an access in file order, every one inside the (list,
 * round) segment: the first may continue the list's last part; a later
 * one is pushed, since the access is merged (a run never continues the
 * one before it), unless it follows a strided run dealt piece by piece,
 * whose last piece it may abut.
 */
static int deal_segment(const colio_access_t *acc, int64_t i, int64_t j, colio_agg_list_t *l, int64_t round)
{
    int pieces = colio_meta_is_piece(l->words), rc = 0, may_continue = 1;
    int tight = pieces && l->implied_pos;
    for (int64_t k = i; k < j && rc == 0; k++) {
        if (tight && !may_continue && l->nst > 0 && (k = push_following(acc, k, j, l)) == j)
            break;
        colio_run_t r = colio_access_run(acc, k);
        if (pieces && r.count > 1) {
            rc = push_pieces(l, &r, round, may_continue);
            may_continue = 1;
            continue;
        }
        rc = may_continue ? list_append(l, r, round) : list_push(l, r, round);
        may_continue = 0;
    }
    return rc;
}

/*
 * The split of an access in file order, none overlapping another, a
 * segment at a time: the runs wholly inside a segment (found by a binary
 * search on their ends) are dealt in one tight loop with no lookup per
 * run; a run across a segment's end is cut as split_run does.
 */
static int split_by_segments(const colio_access_t *acc, const colio_domains_t *dom, colio_agg_list_t *lists,
                             colio_runs_t *tmp)
{
    segment_t seg = {0, 0, 0, 0, -1};
    int rc = 0;
    for (int64_t i = 0; i < acc->n && rc == 0;) {
        colio_run_t r = colio_access_run(acc, i);
        locate(dom, &seg, r.off);
        int64_t j = first_ending_after(acc->runs, i, acc->n, seg.end - acc->shift);
        if (j > i) {
            rc = deal_segment(acc, i, j, &lists[seg.agg], seg.round);
            i = j;
            continue;
        }
        seg.whole_to = -1; /* the part in this segment may continue the list */
        rc = split_one(&r, dom, lists, tmp, &seg);
        seg.whole_to = -1;
        i++;
    }
    return rc;
}

/* ---- the split of a borrowed flattening through its packed pieces (colio_flat_packed) ---------------- */

/* The first of pieces [i, n) that ends after x (n: none); the pieces end in file order. */
static int64_t first_piece_ending_after(const int64_t *pk, int64_t i, int64_t n, int64_t x)
{
    while (i < n) {
        int64_t mid = i + (n - i) / 2;
        if (colio_packed_off(pk[mid]) + colio_packed_len(pk[mid]) > x)
            n = mid;
        else
            i = mid + 1;
    }
    return i;
}

/*
 * Room in each list for the pieces [0, np) moved by shift: the pieces wholly inside a segment (a
 * binary search each) and the parts of those across a segment's end, as colio_split_count.
 */
static int size_packed(const int64_t *pk, int64_t np, int64_t shift, const colio_domains_t *dom,
                       colio_agg_list_t *lists)
{
    int64_t *count = calloc((size_t)dom->naggs, sizeof *count);
    if (count == NULL)
        return -1;
    segment_t seg = {0, 0, 0, 0, -1};
    for (int64_t i = 0; i < np;) {
        locate(dom, &seg, colio_packed_off(pk[i]) + shift);
        int64_t j = first_piece_ending_after(pk, i, np, seg.end - shift);
        count[seg.agg] += j - i;
        if (j < np && colio_packed_off(pk[j]) + shift < seg.end) { /* piece j crosses the segment's end */
            colio_run_t r = colio_piece(colio_packed_off(pk[j]) + shift, colio_packed_len(pk[j]), 0);
            count_parts(&r, dom, COLIO_META_PACKED_WORDS, count, &seg);
            j++;
        }
        i = j;
    }
    return grow_to_counts(count, dom->naggs, lists);
}

/*
 * Pieces [i, j), all inside the (list, round) segment, from stream
 * position *pos: the first as any part (it may continue the list's last
 * one, or open a stretch), the others copied with the shift added to
 * their offset words, their lengths summed: none abuts the one before
 * (the flattening merged those), each follows it in the stream.
 */
static int deal_packed(const int64_t *pk, int64_t i, int64_t j, int64_t shift, int64_t *pos, colio_agg_list_t *l,
                       int64_t round)
{
    colio_run_t first = colio_piece(colio_packed_off(pk[i]) + shift, colio_packed_len(pk[i]), *pos);
    if (list_append(l, first, round) != 0)
        return -1;
    *pos += first.len;
    int64_t n = j - i - 1, bytes = 0;
    uint64_t moved = (uint64_t)(shift - l->base) << 32; /* (modulo 2^64: the sums lie in [0, 4 GiB)) */
    if (n > 0 && l->cap - l->n < n && list_grow_to(l, l->n + n + 1) != 0)
        return -1;
    int64_t *m = l->meta + l->n; /* (after growing: it may move) */
    for (int64_t k = 0; k < n; k++) {
        int64_t w = pk[i + 1 + k];
        m[k] = (int64_t)((uint64_t)w + moved);
        bytes += colio_packed_len(w);
    }
    colio_list_stretch_t *t = &l->st[l->nst - 1];
    l->n += n, l->bytes += bytes;
    t->n += n, t->bytes += bytes, t->pieces += n, t->next_pos += bytes;
    *pos += bytes;
    return 0;
}

/*
 * The split of an access borrowing a flattening whose packed pieces exist
 * (packed records, stream order): split_by_segments over one-word
 * pieces, shift bytes from the access's file offsets, instead of 40-byte
 * runs. A piece across a segment's end is cut as split_one cuts a run.
 */
static int split_packed(const colio_access_t *acc, const int64_t *pk, int64_t np, int64_t shift,
                        const colio_domains_t *dom, colio_agg_list_t *lists, colio_runs_t *tmp)
{
    segment_t seg = {0, 0, 0, 0, -1};
    int64_t pos = acc->runs[0].pos;
    int rc = size_packed(pk, np, shift, dom, lists);
    for (int64_t i = 0; i < np && rc == 0;) {
        colio_run_t r = colio_piece(colio_packed_off(pk[i]) + shift, colio_packed_len(pk[i]), pos);
        locate(dom, &seg, r.off);
        int64_t j = first_piece_ending_after(pk, i, np, seg.end - shift);
        if (j > i) {
            rc = deal_packed(pk, i, j, shift, &pos, &lists[seg.agg], seg.round);
            i = j;
            continue;
        }
        seg.whole_to = -1; /* the part in this segment may continue the list */
        rc = split_one(&r, dom, lists, tmp, &seg);
        seg.whole_to = -1;
        pos += r.len, i++;
    }
    return rc;
}

/*
 * The packed pieces of the flattening acc borrows, where a split into packed records may read them instead,
 * and *shift, what moves them to the access's file offsets (the access's shift and their base).
 */
static const int64_t *borrowed_pieces(const colio_access_t *acc, int words, int64_t *np, int64_t *shift)
{
    if (words != COLIO_META_PACKED_WORDS || acc->borrowed == NULL || acc->overlaps || !acc->stream_order ||
        acc->n == 0)
        return NULL;
    int64_t base = 0;
    const int64_t *pk = colio_flat_packed(acc->borrowed, np, &base);
    *shift = acc->shift + base;
    return pk;
}

int colio_split_by_domain(const colio_access_t *acc, const colio_domains_t *dom, int words,
                          colio_agg_list_t *lists, colio_err_t *err)
{
    memset(lists, 0, sizeof *lists * (size_t)dom->naggs);
    for (int a = 0; a < dom->naggs; a++) { /* packed records count from the call's first byte */
        lists[a].words = words, lists[a].base = dom->lo;
        /* in stream order a (domain, round) segment is one stretch of the stream */
        lists[a].implied_pos = acc->stream_order && !acc->overlaps;
    }
    colio_runs_t tmp = {0};
    segment_t seg = {0, 0, 0, 0, -1};
    int64_t np = 0, shift = 0;
    const int64_t *pk = borrowed_pieces(acc, words, &np, &shift);
    int rc = pk ? split_packed(acc, pk, np, shift, dom, lists, &tmp) : size_lists(acc, dom, words, lists);
    if (rc == 0 && !acc->overlaps && pk == NULL)
        rc = split_by_segments(acc, dom, lists, &tmp);
    for (int64_t i = 0; i < acc->n && rc == 0 && acc->overlaps; i++) {
        colio_run_t r = colio_access_run(acc, i);
        rc = split_one(&r, dom, lists, &tmp, &seg);
    }
    colio_runs_free(&tmp);
    if (rc != 0) {
        colio_agg_lists_free(lists, dom->naggs);
        return colio_err_set(err, COLIO_ERR_NOMEM, "out of memory splitting %lld runs", (long long)acc->n);
    }
    return 0;
}

void colio_agg_lists_free(colio_agg_list_t *lists, int n)
{
    if (lists == NULL)
        return;
    for (int a = 0; a < n; a++) {
        colio_mem_free(lists[a].meta);
        colio_mem_free(lists[a].pos);
        free(lists[a].st);
    }
    memset(lists, 0, sizeof *lists * (size_t)n);
}
