/* File domains, placement and splitting without MPI traffic, against brute force. */
#include <stdlib.h>
#include <string.h>

#include "access/split.h"
#include "place/place.h"
#include "testutil.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Every byte of [lo, hi) has one owner and round, consistent with round_extent. */
static void even_domains(void)
{
    const colio_domain_ops_t *ops = colio_domain_find("even");
    CHECK(ops != NULL, "even layout registered");
    for (int round = 0; round < 300; round++) {
        colio_domain_input_t in = {.naggs = 1 + (int)(next() % 7), .lo = (int64_t)(next() % 1000),
                                   .round_size = 1 + (int64_t)(next() % 300),
                                   .striping_unit = round % 2 ? (int64_t)(1 + next() % 128) : 0};
        in.hi = in.lo + 1 + (int64_t)(next() % 3000);
        colio_domains_t d = {.ops = ops, .naggs = in.naggs, .lo = in.lo, .hi = in.hi, .round_size = in.round_size};
        CHECK(ops->plan(&in, &d) == 0, "plan");
        int bad = 0;
        int64_t max_round = -1;
        for (int64_t x = in.lo; x < in.hi; x++) {
            int a;
            int64_t r, end, s, e;
            ops->locate(&d, x, &a, &r, &end);
            ops->round_extent(&d, a, r, &s, &e);
            bad += !(s <= x && x < e && end == e && e - s <= in.round_size);
            max_round = r > max_round ? r : max_round;
            if (in.striping_unit && x == d.start[a] && a > 0)
                bad += x % in.striping_unit != 0; /* interior boundaries are stripe-aligned */
        }
        for (int a = 1; a < in.naggs; a++)
            bad += d.start[a] != d.end[a - 1];
        bad += d.start[0] != in.lo || d.end[in.naggs - 1] != in.hi || max_round + 1 > d.nrounds;
        CHECK(bad == 0, "even domains case %d (naggs %d su %lld): %d problems", round, in.naggs,
              (long long)in.striping_unit, bad);
        colio_domains_free(&d);
    }
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

/* Splitting runs by domain keeps every byte once, in order, inside one round, with its stream position. */
static void split(void)
{
    const colio_domain_ops_t *ops = colio_domain_find("even");
    for (int round = 0; round < 200; round++) {
        colio_runs_t v = {0};
        int64_t at = (int64_t)(next() % 50), first = -1;
        for (int i = 0, n = 1 + (int)(next() % 30); i < n; i++) {
            colio_run_t r = {at, 1 + (int64_t)(next() % 40), 0, 1 + (int64_t)(next() % 8), at + 7777};
            r.stride = r.count > 1 ? r.len + 1 + (int64_t)(next() % 30) : r.len;
            r.pos = -1; /* set below: stream = file + 7777 only holds piece by piece, so one piece per run */
            r.count = 1, r.stride = r.len, r.pos = at + 7777;
            if (round % 2) { /* strided runs: stream positions follow the pieces */
                r.count = 1 + (int64_t)(next() % 8);
                r.stride = r.len + 1 + (int64_t)(next() % 30);
            }
            colio_runs_append(&v, r);
            first = first < 0 ? at : first;
            at = colio_run_end(&r) + (int64_t)(next() % 20);
        }
        colio_access_t acc = {.runs = v.r, .n = v.n};
        colio_domain_input_t in = {.naggs = 1 + (int)(next() % 5), .lo = first, .hi = at,
                                   .round_size = 1 + (int64_t)(next() % 64)};
        colio_domains_t d = {.ops = ops, .naggs = in.naggs, .lo = in.lo, .hi = in.hi, .round_size = in.round_size};
        ops->plan(&in, &d);
        colio_agg_list_t lists[8];
        colio_err_t e = {0};
        CHECK(colio_split_by_domain(&acc, &d, lists, &e) == 0, "split");
        /* expected: every byte of every run, with its stream position */
        int64_t want = 0, got = 0, bad = 0;
        for (int64_t i = 0; i < v.n; i++)
            want += colio_run_bytes(&v.r[i]);
        for (int a = 0; a < in.naggs; a++)
            for (int64_t k = 0; k < lists[a].n; k++) {
                colio_run_t r = colio_meta_run(lists[a].meta, k, lists[a].pos[k]);
                int64_t s, en;
                ops->round_extent(&d, a, lists[a].round[k], &s, &en);
                bad += !(r.off >= s && colio_run_end(&r) <= en);
                if (k > 0) {
                    colio_run_t p = colio_meta_run(lists[a].meta, k - 1, lists[a].pos[k - 1]);
                    bad += r.off < colio_run_end(&p);
                }
                for (int64_t q = 0; q < r.count; q++)
                    for (int64_t b = 0; b < r.len; b++, got++) {
                        int64_t off = r.off + q * r.stride + b, pos = r.pos + q * r.len + b, found = 0;
                        for (int64_t i = 0; i < v.n && !found; i++) /* which original byte is it? */
                            for (int64_t t = 0; t < v.r[i].count && !found; t++) {
                                int64_t po = v.r[i].off + t * v.r[i].stride;
                                if (off >= po && off < po + v.r[i].len)
                                    found = 1, bad += pos != v.r[i].pos + t * v.r[i].len + (off - po);
                            }
                        bad += !found;
                    }
            }
        CHECK(bad == 0 && got == want, "split case %d: %lld problems, %lld of %lld bytes", round, (long long)bad,
              (long long)got, (long long)want);
        colio_agg_lists_free(lists, in.naggs);
        colio_domains_free(&d);
        colio_runs_free(&v);
    }
}

int main(void)
{
    even_domains();
    romio_placement();
    split();
    return unit_finish("test_domains_unit");
}
