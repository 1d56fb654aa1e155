/* File domains, placement and splitting without MPI traffic, against brute force. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "access/split.h"
#include "place/place.h"
#include "testutil.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void) { return test_xorshift(&rng); }

/* A random extent: small, or near INT64_MAX (overflow), with random alignments. */
static colio_domain_input_t random_input(int round)
{
    colio_domain_input_t in = {.naggs = 1 + (int)(next() % 7), .lo = (int64_t)(next() % 1000),
                               .round_size = 1 + (int64_t)(next() % 300),
                               .striping_unit = round % 2 ? (int64_t)(1 + next() % 128) : 0,
                               .block_size = round % 3 ? (int64_t)(1 + next() % 100) : 0};
    if (round % 5 == 4)
        in.lo = INT64_MAX - 4000 + (int64_t)(next() % 500);
    in.hi = in.lo + 1 + (int64_t)(next() % 3000);
    return in;
}

/* The unit a layout aligns to, as documented in its file. */
static int64_t layout_unit(const char *name, const colio_domain_input_t *in)
{
    if (strcmp(name, "stripe") == 0)
        return in->striping_unit > 0 ? in->striping_unit : (int64_t)1 << 20;
    if (strcmp(name, "block") == 0)
        return in->block_size > 0 ? in->block_size : in->striping_unit > 0 ? in->striping_unit : 4096;
    return in->striping_unit;
}

/*
 * Every byte of [lo, hi) has one owner and round, consistent with
 * round_extent and the run end; rounds ascend with the offset within an
 * aggregator and stay within cb_buffer_size; plus each layout's own rule:
 * even and block shares are contiguous in aggregator order with interior
 * boundaries aligned; stripes belong to aggregator k mod naggs; block rounds
 * end on block boundaries.
 */
static int check_layout(const colio_domain_ops_t *ops, const colio_domain_input_t *in)
{
    colio_domains_t d = {.ops = ops, .naggs = in->naggs, .lo = in->lo, .hi = in->hi, .round_size = in->round_size};
    CHECK(ops->plan(in, &d) == 0, "plan");
    int bad = 0, n = in->naggs;
    int64_t last_off[8], last_round[8], unit = layout_unit(ops->name, in), max_round = -1;
    for (int a = 0; a < n; a++)
        last_off[a] = INT64_MIN, last_round[a] = -1;
    for (int64_t x = in->lo; x < in->hi; x++) {
        int a;
        int64_t r, end, s, e;
        ops->locate(&d, x, &a, &r, &end);
        ops->round_extent(&d, a, r, &s, &e);
        bad += !(a >= 0 && a < n && r >= 0 && s <= x && x < e && end == e && e - s <= in->round_size);
        bad += r < last_round[a] || x < last_off[a]; /* rounds ascend with the offset */
        last_round[a] = r, last_off[a] = x;
        max_round = r > max_round ? r : max_round;
        if (strcmp(ops->name, "stripe") == 0)
            bad += a != (int)((x / unit) % n);
        if (d.start && unit > 0 && a > 0 && x == d.start[a])
            bad += x % unit != 0; /* interior share boundaries aligned */
        if (strcmp(ops->name, "block") == 0 && unit <= in->round_size && e != in->hi && e != d.end[a])
            bad += e % unit != 0; /* rounds end on block boundaries */
    }
    for (int a = 1; d.start && a < n; a++)
        bad += d.start[a] != d.end[a - 1];
    if (d.start)
        bad += d.start[0] != in->lo || d.end[n - 1] != in->hi;
    bad += max_round + 1 > d.nrounds;
    for (int a = 0; a < n; a++) { /* rounds past the last one of an aggregator are empty */
        int64_t s, e;
        ops->round_extent(&d, a, d.nrounds, &s, &e);
        bad += s < e;
    }
    colio_domains_free(&d);
    return bad;
}

static void domain_layouts(void)
{
    for (int i = 0; colio_domain_name(i); i++) {
        const colio_domain_ops_t *ops = colio_domain_find(colio_domain_name(i));
        for (int round = 0; round < 400; round++) {
            colio_domain_input_t in = random_input(round);
            int bad = check_layout(ops, &in);
            CHECK(bad == 0, "%s domains case %d (naggs %d lo %lld hi-lo %lld rs %lld su %lld bs %lld): %d problems",
                  ops->name, round, in.naggs, (long long)in.lo, (long long)(in.hi - in.lo), (long long)in.round_size,
                  (long long)in.striping_unit, (long long)in.block_size, bad);
        }
    }
    CHECK(colio_domain_find("stripe") && colio_domain_find("block"), "stripe and block layouts registered");
}

/* Stripes dealt round-robin, one per round (ROMIO's Lustre driver): a worked example. */
static void stripe_example(void)
{
    const colio_domain_ops_t *ops = colio_domain_find("stripe");
    colio_domain_input_t in = {.naggs = 2, .lo = 150, .hi = 1000, .round_size = 1000, .striping_unit = 100};
    colio_domains_t d = {.ops = ops, .naggs = 2, .lo = 150, .hi = 1000, .round_size = 1000};
    ops->plan(&in, &d);
    int64_t s, e;
    ops->round_extent(&d, 1, 0, &s, &e);
    CHECK(s == 150 && e == 200, "stripe 1 (clipped at lo) is aggregator 1's round 0: [%lld, %lld)", (long long)s, (long long)e);
    ops->round_extent(&d, 0, 0, &s, &e);
    CHECK(s == 200 && e == 300, "stripe 2 is aggregator 0's round 0: [%lld, %lld)", (long long)s, (long long)e);
    ops->round_extent(&d, 0, 3, &s, &e);
    CHECK(s == 800 && e == 900, "stripe 8 is aggregator 0's round 3: [%lld, %lld)", (long long)s, (long long)e);
    CHECK(d.nrounds == 5 && d.round_size == 100, "5 rounds of one stripe: %lld of %lld", (long long)d.nrounds,
          (long long)d.round_size);
    colio_domains_free(&d);
}

/* The round's size of a layout with a unit of its own, for a chosen round and cb_buffer_size (round_max). */
static int64_t planned_round(const char *layout, int64_t unit, int64_t chosen, int64_t max)
{
    const colio_domain_ops_t *ops = colio_domain_find(layout);
    colio_domain_input_t in = {.naggs = 2, .lo = 0, .hi = 10000, .round_size = chosen, .round_max = max,
                               .striping_unit = unit, .block_size = unit};
    colio_domains_t d = {.ops = ops, .naggs = 2, .lo = 0, .hi = 10000, .round_size = chosen};
    ops->plan(&in, &d);
    int64_t r = d.round_size;
    colio_domains_free(&d);
    return r;
}

/*
 * A chosen round smaller than cb_buffer_size (colio_model_round_bytes)
 * keeps the layouts' own units: block rounds stay whole blocks (at least
 * one, at most cb_buffer_size), stripe rounds one stripe each; the even
 * layout takes the chosen size.
 */
static void chosen_rounds_keep_units(void)
{
    CHECK(planned_round("block", 100, 30, 1000) == 100, "block: a round of at least one block (%lld)",
          (long long)planned_round("block", 100, 30, 1000));
    CHECK(planned_round("block", 100, 250, 1000) == 200, "block: whole blocks of the chosen round (%lld)",
          (long long)planned_round("block", 100, 250, 1000));
    CHECK(planned_round("block", 100, 30, 50) == 50, "block: a block above cb_buffer_size cannot align (%lld)",
          (long long)planned_round("block", 100, 30, 50));
    CHECK(planned_round("stripe", 100, 30, 1000) == 100 && planned_round("stripe", 100, 30, 40) == 40,
          "stripe: one stripe a round, cut at cb_buffer_size");
    CHECK(planned_round("even", 100, 30, 1000) == 30, "even: the chosen round");
}

static void romio_placement(void)
{
    const colio_place_ops_t *ops = colio_place_find("romio");
    int node_of[9] = {0, 0, 0, 0, 1, 1, 2, 2, 2}; /* nodes of 4, 2 and 3 ranks */
    colio_topo_t t;
    CHECK(colio_topo_from_nodes(9, node_of, &t) == 0 && t.nnodes == 3, "topology");
    int aggs[9], n = colio_place_count(&t, 0, 1);
    colio_place_input_t in = {.topo = &t, .naggs = n, .per_node = 1};
    ops->select(&in, aggs);
    CHECK(n == 3 && aggs[0] == 0 && aggs[1] == 4 && aggs[2] == 6, "one per node: %d %d %d", aggs[0], aggs[1], aggs[2]);
    in.naggs = n = colio_place_count(&t, 5, 1);
    ops->select(&in, aggs);
    CHECK(n == 5 && aggs[3] == 1 && aggs[4] == 5, "round-robin over nodes: %d %d", aggs[3], aggs[4]);
    in.naggs = n = colio_place_count(&t, 100, 1);
    ops->select(&in, aggs);
    int seen[9] = {0}, dup = 0;
    for (int i = 0; i < n; i++)
        dup += seen[aggs[i]]++;
    CHECK(n == 9 && dup == 0, "capped at nprocs, distinct");
    colio_topo_free(&t);
}

/*
 * A list's stretches against its runs: they cover runs [0, n) in order,
 * the next of another round than the one before (or, where positions are
 * implied, of the same round where the stream does not go on), with the
 * bytes, pieces and stream contiguity of their runs (positions walked).
 */
static int stretch_problems(const colio_agg_list_t *l)
{
    int bad = l->implied_pos ? l->pos != NULL : l->n > 0 && l->pos == NULL;
    int64_t k = 0;
    colio_list_walk_t w = colio_list_walk_from(l, 0);
    for (int64_t t = 0; t < l->nst; t++) {
        const colio_list_stretch_t *st = &l->st[t];
        int64_t bytes = 0, pieces = 0, next = st->pos0;
        int contig = 1;
        bad += st->first != k || st->n <= 0;
        if (t > 0 && st->round == l->st[t - 1].round)
            bad += !l->implied_pos || st->pos0 == l->st[t - 1].next_pos;
        for (int64_t q = st->first; q < st->first + st->n && q < l->n; q++) {
            colio_run_t r = colio_list_next(l, &w, l->words);
            contig &= r.pos == next;
            next = r.pos + colio_run_bytes(&r);
            bytes += colio_run_bytes(&r), pieces += r.count;
        }
        bad += bytes != st->bytes || pieces != st->pieces || contig != st->contig || next != st->next_pos;
        bad += l->implied_pos && !st->contig;
        k += st->n;
    }
    return bad + (k != l->n);
}

static int count_problems(const colio_access_t *acc, const colio_domains_t *d, int words,
                          const colio_agg_list_t *lists)
{
    int64_t by_segment[8] = {0}, by_run[8] = {0};
    colio_access_t overlapping = *acc;
    overlapping.overlaps = 1;
    colio_split_count(acc, d, words, by_segment);
    colio_split_count(&overlapping, d, words, by_run);
    int bad = 0;
    for (int a = 0; a < d->naggs; a++) /* (two-word lists: by segment an estimate of the strided runs' pieces) */
        bad += (words == COLIO_META_WORDS && (by_segment[a] != by_run[a] || lists[a].n > by_segment[a])) ||
               (colio_meta_is_piece(words) && acc->npieces == acc->n && lists[a].n > by_segment[a]) ||
               lists[a].n > by_run[a];
    return bad;
}

/* Splitting runs by domain keeps every byte once, in order, inside one round, with its stream position. */
/*
 * How many aggregators by default: one per node across nodes; on one node
 * ceil(sqrt(ranks)), at least two, and every rank for writes of pieces under
 * 2 KiB on average (the wide set); hints turn both off.
 */
static void default_counts(void)
{
    static const int ranks[] = {1, 2, 3, 4, 5, 9, 10, 16, 17, 64}, want[] = {1, 2, 2, 2, 3, 3, 4, 4, 5, 8};
    int node_of[64] = {0};
    for (int i = 0; i < 10; i++) {
        colio_topo_t t;
        CHECK(colio_topo_from_nodes(ranks[i], node_of, &t) == 0, "topology of %d", ranks[i]);
        int n = colio_place_count(&t, 0, 0), wide = colio_place_wide_count(&t, 0, 0);
        CHECK(n == want[i], "%d ranks on one node: %d aggregators, expected %d", ranks[i], n, want[i]);
        CHECK(wide == ranks[i], "%d ranks on one node: wide set of %d", ranks[i], wide);
        CHECK(colio_place_wide_count(&t, 3, 0) == 0 && colio_place_wide_count(&t, 0, 1) == 0, "hints: no wide set");
        colio_topo_free(&t);
    }
    int two_nodes[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    colio_topo_t t;
    CHECK(colio_topo_from_nodes(8, two_nodes, &t) == 0, "topology of two nodes");
    CHECK(colio_place_count(&t, 0, 0) == 2 && colio_place_wide_count(&t, 0, 0) == 0, "two nodes: one each, no wide set");
    colio_topo_free(&t);
    CHECK(colio_place_wide_call(1, 8 * 1000, 1000) && colio_place_wide_call(1, 2047, 1), "small pieces written: wide");
    CHECK(!colio_place_wide_call(1, 2048, 1) && !colio_place_wide_call(1, 4096 * 10, 10), "2 KiB pieces and up: not wide");
    CHECK(!colio_place_wide_call(0, 8, 1) && !colio_place_wide_call(1, 0, 0), "reads and empty calls: not wide");
}

static void split(void)
{
    for (int round = 0; round < 400; round++) {
        const colio_domain_ops_t *ops = colio_domain_find(round % 4 == 3 || round % 8 == 6 ? "stripe" : "even");
        colio_runs_t v = {0};
        int64_t at = (int64_t)(next() % 50), first = -1, stream = 0;
        int dense = round % 3 == 0 && round % 9 != 0; /* the stream in file order without gaps, as a view's */
        for (int i = 0, n = 1 + (int)(next() % 30); i < n; i++) {
            colio_run_t r = {at, 1 + (int64_t)(next() % 40), 0, 1 + (int64_t)(next() % 8), at + 7777};
            r.stride = r.count > 1 ? r.len + 1 + (int64_t)(next() % 30) : r.len;
            r.pos = -1; /* set below: stream = file + 7777 only holds piece by piece, so one piece per run */
            r.count = 1, r.stride = r.len, r.pos = at + 7777;
            if (round % 2) { /* strided runs: stream positions follow the pieces */
                r.count = 1 + (int64_t)(next() % 8);
                r.stride = r.len + 1 + (int64_t)(next() % 30);
            }
            if (dense)
                r.pos = stream, stream += colio_run_bytes(&r);
            colio_runs_append(&v, r);
            first = first < 0 ? at : first;
            at = colio_run_end(&r) + (int64_t)(next() % 20);
        }
        /* in stream order (rounds 0 mod 3) the lists keep positions by stretch: here with gaps in the stream */
        colio_access_t acc = {.runs = v.r, .n = v.n, .stream_order = round % 3 == 0};
        int64_t shift = round % 5 == 1 ? 1000 : 0; /* the runs moved, as a borrowed flattening's tile */
        acc.shift = shift;
        for (int64_t i = 0; i < v.n; i++)
            acc.npieces += v.r[i].count;
        colio_domain_input_t in = {.naggs = 1 + (int)(next() % 5), .lo = first + shift, .hi = at + shift,
                                   .round_size = 1 + (int64_t)(next() % (round % 3 ? 64 : 4096)),
                                   .striping_unit = 1 + (int64_t)(next() % 24)};
        colio_domains_t d = {.ops = ops, .naggs = in.naggs, .lo = in.lo, .hi = in.hi, .round_size = in.round_size};
        ops->plan(&in, &d);
        colio_agg_list_t lists[8];
        colio_err_t e = {0};
        /* a record per piece: single pieces (rounds 2 mod 4; 6 mod 8 in stripes), and strided runs dealt piece by
           piece (5 mod 8; 3 mod 8 in stripes); two words in half of them, packed in one in the other half */
        int per_piece = round % 4 == 2 || round % 8 == 5 || round % 8 == 3;
        int words = !per_piece ? COLIO_META_WORDS : round % 16 < 8 ? COLIO_META_PIECE_WORDS : COLIO_META_PACKED_WORDS;
        /* a view's access borrowing its flattening: split through the flattening's packed pieces */
        colio_flat_t flat = {.runs = v, .npieces = acc.npieces, .monotonic = 1, .nonneg = 1};
        if (words == COLIO_META_PACKED_WORDS && dense && acc.stream_order && round % 5 != 4)
            acc.borrowed = &flat;
        CHECK(colio_split_by_domain(&acc, &d, words, lists, &e) == 0, "split");
        CHECK(acc.borrowed == NULL || flat.packed != NULL, "split case %d: the packed pieces made", round);
        CHECK(count_problems(&acc, &d, words, lists) == 0, "split case %d: the lists' sizing", round);
        /* expected: every byte of every run, with its stream position */
        int64_t want = 0, got = 0, bad = 0;
        for (int64_t i = 0; i < v.n; i++)
            want += colio_run_bytes(&v.r[i]);
        for (int a = 0; a < in.naggs; a++) {
            int64_t list_bytes = 0;
            for (int64_t k = 0; k < lists[a].n; k++) {
                colio_run_t r = colio_meta_run(lists[a].meta, words, lists[a].base, k, 0);
                list_bytes += colio_run_bytes(&r);
            }
            bad += list_bytes != lists[a].bytes; /* the sum kept while dealing */
            bad += stretch_problems(&lists[a]);
        }
        for (int a = 0; a < in.naggs; a++) {
            colio_list_walk_t w = colio_list_walk_from(&lists[a], 0);
            colio_run_t p = {0};
            for (int64_t k = 0; k < lists[a].n; p = colio_meta_run(lists[a].meta, words, lists[a].base, k++, 0)) {
                colio_run_t r = colio_list_next(&lists[a], &w, words);
                int64_t s, en;
                ops->round_extent(&d, a, colio_agg_list_round(&lists[a], k), &s, &en);
                bad += !(r.off >= s && colio_run_end(&r) <= en);
                bad += k > 0 && r.off < colio_run_end(&p);
                for (int64_t q = 0; q < r.count; q++)
                    for (int64_t b = 0; b < r.len; b++, got++) {
                        int64_t off = r.off + q * r.stride + b, pos = r.pos + q * r.len + b, found = 0;
                        for (int64_t i = 0; i < v.n && !found; i++) /* which original byte is it? */
                            for (int64_t t = 0; t < v.r[i].count && !found; t++) {
                                int64_t po = v.r[i].off + shift + t * v.r[i].stride;
                                if (off >= po && off < po + v.r[i].len)
                                    found = 1, bad += pos != v.r[i].pos + t * v.r[i].len + (off - po);
                            }
                        bad += !found;
                    }
            }
        }
        CHECK(bad == 0 && got == want, "split case %d: %lld problems, %lld of %lld bytes", round, (long long)bad,
              (long long)got, (long long)want);
        colio_agg_lists_free(lists, in.naggs);
        colio_domains_free(&d);
        colio_runs_free(&v);
        free(flat.packed);
    }
}

int main(void)
{
    domain_layouts();
    stripe_example();
    chosen_rounds_keep_units();
    romio_placement();
    default_counts();
    split();
    return unit_finish("test_domains_unit");
}
