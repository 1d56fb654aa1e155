/*
 * The per-call strategy choice as a pure function (src/engine/strategy.c)
 * from given storage figures, and the figures' words, hint and cache file
 * (src/store/cost.c): the choices a demanding user expects on tmpfs-like
 * storage, on slow storage and at scale on a parallel file system.
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "access/packed.h"
#include "engine/model.h"
#include "engine/strategy.h"
#include "store/cost.h"
#include "testutil.h"

/*
 * tmpfs as the probe measured it on the 2-core development machine, ranks
 * bound to cores: sub-microsecond calls, GB/s, writers of one file slowing
 * each other down, readers independent.
 */
static colio_store_figures_t tmpfs(void)
{
    return (colio_store_figures_t){.write_call = 0.53e-6, .write_bw = 4.75e9, .read_call = 0.46e-6,
                                   .read_bw = 12e9, .copy_bw = 12.6e9, .write_streams = 0.6, .read_streams = 2,
                                   .write_call_streams = 0.5, .read_call_streams = 2, .shared = 0};
}

/*
 * n pieces of `piece` bytes interleaved round-robin over p ranks on `nodes`
 * nodes, `aggs` aggregators: one strided run a rank, as a vector view gives
 * (four-word records where runs hold more than two pieces).
 */
static colio_call_shape_t interleaved(int write, int p, int nodes, int aggs, int64_t piece, int64_t total)
{
    int64_t n = total / piece;
    return (colio_call_shape_t){.write = write, .nprocs = p, .nnodes = nodes, .naggs = aggs, .bytes = total,
                                .pieces = n, .runs = p, .extent = total, .extent_sum = (int64_t)p * total,
                                .pieces_max = n / p, .bytes_max = total / p, .extent_max = total,
                                .round_bytes = 16 << 20, .pipelined = 1,
                                .meta_words = n > 2 * p ? COLIO_META_WORDS : COLIO_META_PIECE_WORDS};
}

/* The path the chooser takes by the model (engine/strategy.c), and the model's costs of both. */
typedef enum { PATH_TWO_PHASE, PATH_DIRECT } path_t;

static path_t choose_on(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net,
                        colio_model_costs_t *c)
{
    double costs[COLIO_STRATEGY_PATHS];
    colio_model_costs(s, f, net, c);
    const colio_path_ops_t *p = colio_strategy_cheapest(s, f, net, costs);
    return strcmp(p->name, "direct") == 0 ? PATH_DIRECT : PATH_TWO_PHASE;
}

static path_t choose(const colio_call_shape_t *s, const colio_store_figures_t *f, colio_model_costs_t *c)
{
    colio_net_terms_t net = {1e-6, 10e9};
    return choose_on(s, f, &net, c);
}

static void tmpfs_two_ranks(void)
{
    colio_store_figures_t f = tmpfs();
    colio_model_costs_t c;
    colio_call_shape_t s = interleaved(1, 2, 1, 1, 64, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_TWO_PHASE, "64-byte writes go two-phase (%g vs direct %g)",
          c.two_phase, c.direct);
    s = interleaved(1, 2, 1, 1, 1 << 20, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_DIRECT, "1 MiB writes go direct (%g vs two-phase %g)", c.direct,
          c.two_phase);
    s = interleaved(1, 2, 1, 1, 64 << 10, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_DIRECT, "64 KiB writes go direct (%g vs two-phase %g)", c.direct,
          c.two_phase);
    s = interleaved(1, 2, 1, 1, 4096, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_TWO_PHASE, "4 KiB writes go two-phase (%g vs direct %g; measured "
          "0.034-0.040 s against 0.040-0.047 s)", c.two_phase, c.direct);
    /* the E3SM G case's map at 2 ranks: 2,951 pieces of 2.4 KiB on average, 6.9 MB, every rank's extent the file's */
    s = (colio_call_shape_t){.write = 1, .nprocs = 2, .nnodes = 1, .naggs = 1, .bytes = 7235000, .pieces = 2951,
                             .extent = 7235000, .extent_sum = 2 * 7235000, .pieces_max = 1476,
                             .bytes_max = 3617500, .extent_max = 7235000, .round_bytes = 16 << 20, .pipelined = 1};
    CHECK(choose(&s, &f, &c) == PATH_TWO_PHASE, "E3SM G case writes go two-phase (%g vs direct %g; measured "
          "0.0041 s against 0.0085 s)", c.two_phase, c.direct);
    s = interleaved(0, 2, 1, 1, 4096, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_DIRECT && c.direct_pieces < c.direct_sieved,
          "4 KiB reads go direct, a call per piece (%g) rather than sieved (%g)", c.direct_pieces, c.direct_sieved);
    s = interleaved(0, 2, 1, 1, 256, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_DIRECT && c.direct_sieved < c.direct_pieces,
          "256-byte reads go direct and sieve (%g) rather than a call per piece (%g)", c.direct_sieved,
          c.direct_pieces);
    CHECK(colio_model_sieve(&f, 1024, 1024) && !colio_model_sieve(&f, 65536, 65536),
          "sieving pays for 1 KiB pieces 1 KiB apart, not for 64 KiB ones");
}

/*
 * Two nodes of one machine (bench/cross-node.sh): a local file system serves the two ranks' storage calls
 * as on one node, and the network the probe measured (TCP: 5.5 us, 1.5 GB/s) makes two-phase dearer.
 */
static void emulated_nodes(void)
{
    colio_store_figures_t f = tmpfs();
    colio_model_costs_t one, two;
    colio_call_shape_t s = interleaved(0, 2, 1, 1, 64, 64 << 20);
    choose(&s, &f, &one);
    s = interleaved(0, 2, 2, 2, 64, 64 << 20);
    choose(&s, &f, &two);
    CHECK(one.direct == two.direct, "a local file system's direct path costs the same on two nodes (%g) as on one (%g)",
          two.direct, one.direct);
    colio_net_terms_t tcp = {5.5e-6, 1.5e9}, fast = {1e-6, 10e9};
    colio_model_costs_t slow_net, fast_net;
    choose_on(&s, &f, &fast, &fast_net);
    path_t path = choose_on(&s, &f, &tcp, &slow_net);
    CHECK(slow_net.two_phase > fast_net.two_phase, "two-phase over TCP (%g) costs more than over a fast fabric (%g)",
          slow_net.two_phase, fast_net.two_phase);
    CHECK(path == PATH_DIRECT, "64-byte reads between two TCP nodes sieve direct (%g) rather than go two-phase "
          "(%g; measured 0.018 s against 0.027-0.029 s)", slow_net.direct, slow_net.two_phase);
}

/* Every call sleeps a millisecond (colio_fault=delay:1000): few large calls win. */
static void slow_storage(void)
{
    colio_store_figures_t f = tmpfs();
    f.write_call += 1e-3, f.read_call += 1e-3, f.write_call_streams = f.read_call_streams = 2;
    f.write_streams = 1; /* as the probe sets them where calls wait (store/cost.c) */
    colio_model_costs_t c;
    int64_t sizes[] = {64, 4096, 65536, 1 << 20}; /* 1 MiB behind 1 ms calls: 0.037 s two-phase, 0.051 s direct */
    for (int i = 0; i < 4; i++) {
        colio_call_shape_t s = interleaved(1, 2, 1, 1, sizes[i], 64 << 20);
        CHECK(choose(&s, &f, &c) == PATH_TWO_PHASE, "slow storage: %lld-byte writes go two-phase (%g vs %g)",
              (long long)sizes[i], c.two_phase, c.direct);
    }
    /* one rank's wait before its call lets the other's bytes through the file's lock: large pieces go direct
       (2 MiB writes behind 1 ms calls, Open MPI: 0.033 s direct against 0.039 s two-phase) */
    for (int64_t piece = 2 << 20; piece <= 4 << 20; piece *= 2) {
        colio_call_shape_t s = interleaved(1, 2, 1, 1, piece, 64 << 20);
        CHECK(choose(&s, &f, &c) == PATH_DIRECT, "slow storage: %lld MiB writes go direct (%g vs %g)",
              (long long)(piece >> 20), c.direct, c.two_phase);
    }
    colio_call_shape_t s = interleaved(0, 2, 1, 1, 4096, 64 << 20);
    choose(&s, &f, &c);
    CHECK(c.direct_sieved < c.direct_pieces, "slow storage: 4 KiB reads sieve rather than a call per piece");
    colio_store_figures_t fast = tmpfs();
    CHECK(!colio_model_sieve(&fast, 4096, 4096) && colio_model_sieve(&f, 4096, 4096),
          "4 KiB pieces 4 KiB apart: a call each on tmpfs, sieved on slow storage");
    /* reads whose calls wait run four at once on the direct path (colio_model_reads_at_once) */
    CHECK(colio_model_reads_at_once(&f) == COLIO_DIRECT_JOBS && colio_model_reads_at_once(&fast) == 1,
          "reads at once: %d behind 1 ms calls, %d on tmpfs", colio_model_reads_at_once(&f),
          colio_model_reads_at_once(&fast));
    CHECK(!colio_model_sieve(&f, 2 << 20, 2 << 20) && colio_model_sieve(&f, 256 << 10, 256 << 10),
          "behind 1 ms calls, four at once: a call each for 2 MiB pieces 2 MiB apart, sieved at 256 KiB");
    s = interleaved(0, 2, 1, 1, 2 << 20, 64 << 20);
    CHECK(choose(&s, &f, &c) == PATH_DIRECT && c.direct_pieces <= c.direct_sieved,
          "slow storage: 2 MiB reads go direct, a call a piece (%g against two-phase %g)", c.direct, c.two_phase);
    s = interleaved(0, 2, 1, 1, 256 << 10, 64 << 20);
    choose(&s, &f, &c);
    CHECK(c.direct_pieces > c.two_phase, "slow storage: 256 KiB reads, a call a piece even four at once (%g) costs "
          "more than two-phase (%g)", c.direct_pieces, c.two_phase);
    /* 64- and 256-byte reads behind 1 ms calls: each rank's extent read whole took 0.017-0.019 s, two-phase
       0.013-0.015 */
    for (int64_t piece = 64; piece <= 256; piece *= 4) {
        s = interleaved(0, 2, 1, 2, piece, 64 << 20); /* both ranks aggregate, as colio places them here */
        s.round_bytes = s.sieve_bytes = 16 << 20; /* cb_buffer_size behind such calls */
        CHECK(choose(&s, &f, &c) == PATH_TWO_PHASE, "slow storage: %lld-byte reads go two-phase (%g vs "
              "sieved %g)", (long long)piece, c.two_phase, c.direct_sieved);
    }
    colio_store_figures_t off = f;
    off.fixed = 1;
    CHECK(colio_model_reads_at_once(&off) == 1, "colio_storage_model=off: reads one at a time");
    /* pipelined rounds (colio_pipeline automatic) where calls wait: behind the delay and on the default
       figures (a parallel file system, and the model off), not on a page cache */
    colio_store_figures_t pfs;
    colio_figures_default(&pfs);
    for (int w = 0; w <= 1; w++)
        CHECK(colio_model_pipelines(&f, w) && colio_model_pipelines(&pfs, w) && !colio_model_pipelines(&fast, w),
              "%s rounds pipelined behind 1 ms calls and on the default figures, not on tmpfs", w ? "write" : "read");
}

/* 1,024 ranks on 64 nodes of a parallel file system (the defaults): small pieces aggregate. */
static void at_scale(void)
{
    colio_store_figures_t f;
    colio_figures_default(&f);
    colio_model_costs_t c;
    colio_call_shape_t s = interleaved(1, 1024, 64, 64, 4096, (int64_t)4 << 30);
    CHECK(choose(&s, &f, &c) == PATH_TWO_PHASE, "1,024 ranks, 4 KiB pieces: two-phase (%g vs %g)",
          c.two_phase, c.direct);
    s = interleaved(1, 1024, 64, 64, 64 << 20, (int64_t)64 << 30);
    CHECK(choose(&s, &f, &c) == PATH_DIRECT, "1,024 ranks, 64 MiB pieces: direct (%g vs %g)", c.direct,
          c.two_phase);
}

/*
 * The lists' share of two-phase follows the record format the plan takes:
 * packed records (8 bytes a piece, written and read once each) cost half
 * of two-word ones, and a shape that does not say counts two words. Strided
 * runs cost 32 bytes and a record's CPU a run, and little for each further
 * piece (one loop copies them); a four-word call whose runs the shape does
 * not count is taken as two words, one whose runs are single pieces costs
 * more than two words.
 */
static void record_formats(void)
{
    colio_store_figures_t f = tmpfs();
    colio_model_costs_t unsaid, two_words, packed, runs, uncounted, single;
    colio_call_shape_t s = interleaved(1, 2, 1, 1, 64, 64 << 20);
    choose(&s, &f, &runs); /* one strided run a rank */
    s.meta_words = 0;
    choose(&s, &f, &unsaid);
    s.meta_words = COLIO_META_PIECE_WORDS;
    choose(&s, &f, &two_words);
    s.meta_words = COLIO_META_PACKED_WORDS;
    choose(&s, &f, &packed);
    s.meta_words = COLIO_META_WORDS, s.runs = 0;
    choose(&s, &f, &uncounted);
    /* the two runs over 64 MiB in 16 MiB rounds: their extents cross 2 x 4 round edges, and one more each,
       three records at each: 32 records */
    double pieces_agg = (double)s.pieces / s.naggs, handled = pieces_agg * 2 + (double)s.pieces_max;
    double saved = pieces_agg * 8 * 2 / f.copy_bw, share = 32.0 / (double)s.pieces;
    double runs_saved = pieces_agg * (16 - 32 * share) * 2 / f.copy_bw +
                        handled * (1 - share) * (COLIO_COST_PER_RECORD - COLIO_COST_PER_PIECE_IN_RUN);
    CHECK(unsaid.two_phase == two_words.two_phase && uncounted.two_phase == two_words.two_phase,
          "no record size, or runs not counted: two words (%g, %g, %g)", unsaid.two_phase, uncounted.two_phase,
          two_words.two_phase);
    CHECK(two_words.two_phase - packed.two_phase > 0.99 * saved && two_words.two_phase - packed.two_phase < 1.01 * saved,
          "packed records save 8 bytes a piece twice: %g - %g, expected %g", two_words.two_phase, packed.two_phase,
          saved);
    CHECK(two_words.two_phase - runs.two_phase > 0.99 * runs_saved &&
              two_words.two_phase - runs.two_phase < 1.01 * runs_saved,
          "one strided run a rank: %g - %g, expected %g", two_words.two_phase, runs.two_phase, runs_saved);
    s.runs = s.pieces; /* four-word records of one piece each */
    choose(&s, &f, &single);
    CHECK(single.two_phase > two_words.two_phase, "runs of one piece cost more than two words (%g, %g)",
          single.two_phase, two_words.two_phase);
    s.runs = 2, s.round_bytes = 256; /* rounds shorter than the stride: the split makes a record a piece */
    colio_model_costs_t cut;
    choose(&s, &f, &cut);
    s.runs = s.pieces;
    choose(&s, &f, &single);
    CHECK(cut.two_phase == single.two_phase, "runs cut at every round cost as runs of one piece (%g, %g)",
          cut.two_phase, single.two_phase);
    CHECK(packed.direct == two_words.direct && runs.direct == two_words.direct,
          "the direct path sends no records (%g, %g, %g)", packed.direct, two_words.direct, runs.direct);
}

/* Bytes per round (colio_model_round_bytes): s's kind on p ranks over `nodes` nodes, at most 16 MiB. */
static int64_t round_for(int write, int p, int nodes, const colio_store_figures_t *f, double net_latency)
{
    colio_call_shape_t s = {.write = write, .nprocs = p, .nnodes = nodes, .round_bytes = 16 << 20};
    colio_net_terms_t net = {net_latency, 10e9};
    return colio_model_round_bytes(&s, f, &net);
}

/*
 * Round sizes: a core's cache where storage calls and messages cost little
 * (tmpfs, a few ranks), cb_buffer_size where they cost much (slow storage,
 * a thousand ranks over a network), in between by the 5% rule, never above
 * cb_buffer_size; and on tmpfs the path chosen with those rounds is the
 * one chosen with 16 MiB rounds for every interleaved block of the sweep.
 */
static void round_sizes(void)
{
    colio_store_figures_t f = tmpfs(), slow = tmpfs(), mid = tmpfs(), pfs;
    slow.write_call += 1e-3, slow.read_call += 1e-3;
    colio_figures_default(&pfs);
    const int64_t mib = 1 << 20;
    CHECK(round_for(1, 2, 1, &f, 1e-6) == mib && round_for(0, 2, 1, &f, 1e-6) == mib &&
              round_for(0, 1, 1, &f, 1e-6) == mib && round_for(1, 16, 1, &f, 1e-6) == mib,
          "tmpfs, 1-16 ranks: 1 MiB rounds (%lld)", (long long)round_for(1, 2, 1, &f, 1e-6));
    CHECK(round_for(1, 2, 1, &slow, 1e-6) == 16 * mib && round_for(0, 1, 1, &slow, 1e-6) == 16 * mib,
          "1 ms storage calls: cb_buffer_size rounds");
    CHECK(round_for(1, 1024, 64, &pfs, 2e-6) == 16 * mib, "1,024 ranks on 64 nodes: cb_buffer_size rounds");
    mid.write_call = 100e-6, mid.write_bw = 1e9, mid.copy_bw = 5e9; /* one rank: 100 us against 1.2 ns a byte */
    int64_t r = round_for(1, 1, 1, &mid, 1e-6);
    double fixed_share = 100e-6 / (100e-6 + (double)r * (1 / 1e9 + 1 / 5e9));
    CHECK(r > mib && r < 16 * mib && r % (64 << 10) == 0 && fixed_share <= 0.05 && fixed_share > 0.045,
          "100 us calls: %lld-byte rounds, whole 64 KiB, the call %.3f of a round", (long long)r, fixed_share);
    mid.write_call = 200e-6;
    CHECK(round_for(1, 1, 1, &mid, 1e-6) > r, "dearer calls, larger rounds");
    colio_call_shape_t small = {.write = 1, .nprocs = 2, .nnodes = 1, .round_bytes = 256 << 10};
    colio_net_terms_t net = {1e-6, 10e9};
    CHECK(colio_model_round_bytes(&small, &slow, &net) == 256 << 10 &&
              colio_model_round_bytes(&small, &f, &net) == 256 << 10,
          "cb_buffer_size below 1 MiB is the round");
    int64_t blocks[] = {64, 256, 1024, 4096, 65536, 1 << 20, 4 << 20};
    for (int op = 0; op < 2; op++)
        for (int i = 0; i < 7; i++) {
            colio_call_shape_t s = interleaved(op, 2, 1, 1, blocks[i], 64 << 20);
            colio_model_costs_t c16, c;
            path_t with16 = choose(&s, &f, &c16);
            s.round_bytes = round_for(op, 2, 1, &f, 1e-6);
            CHECK(choose(&s, &f, &c) == with16, "tmpfs %s of %lld-byte blocks: the same path with %lld-byte rounds "
                  "(two-phase %g against %g)", op ? "writes" : "reads", (long long)blocks[i],
                  (long long)s.round_bytes, c.two_phase, c16.two_phase);
        }
}

static void figures_words_and_hint(void)
{
    colio_store_figures_t f = tmpfs(), g;
    int64_t w[COLIO_FIGURES_WORDS];
    colio_figures_pack(&f, w);
    colio_figures_unpack(w, &g);
    CHECK(g.write_call > 0.52e-6 && g.write_call < 0.54e-6 && g.read_bw == 12e9 && g.write_streams == 0.6 &&
              g.shared == 0,
          "figures survive their words");
    int given = -1;
    CHECK(colio_figures_parse("probe", &g, &given) == 0 && !given, "probe");
    CHECK(colio_figures_parse("off", &g, &given) == 0 && !given, "off");
    CHECK(colio_figures_parse("write_call=2e-6,write_bw=1.5G,read_streams=2,shared=1", &g, &given) == 0 && given &&
              g.write_call == 2e-6 && g.write_bw == 1.5e9 && g.read_streams == 2 && g.shared == 1 &&
              g.read_call == 50e-6,
          "figures given by the hint, the rest defaults");
    const char *bad[] = {"fast",       "write_bw=0",   "write_call=-1", "read_streams=3", "shared=2",
                         "speed=1",    "write_bw",     "",              "write_call=1e8", "write_bw=inf",
                         "write_bw=0.4", "copy_bw=nan", "date=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(colio_figures_parse(bad[i], &g, &given) != 0, "\"%s\" refused", bad[i]);
}

/*
 * direct_write / direct_read automatic (colio_figures_direct): the bytes
 * from which a direct call costs less than a buffered one and its flush,
 * none unless direct calls were measured clearly faster. The disk here
 * (probe): buffered 0.4 us a call, 5.6 GB/s into the page cache, 0.35 GB/s
 * with its fdatasync; O_DIRECT 85 us a call and 2.1 GB/s: writes of 100 KB
 * and more go direct; its cached reads (6.4 GB/s) never.
 */
static void direct_choice(void)
{
    colio_store_figures_t f;
    int64_t w, r;
    colio_figures_default(&f);
    colio_figures_direct(&f, &w, &r);
    CHECK(w == INT64_MAX && r == INT64_MAX, "figures without direct ones: buffered");
    f.write_call = 0.4e-6, f.write_bw = 5.6e9, f.flushed_write_bw = 0.35e9, f.read_call = 0.3e-6, f.read_bw = 6.4e9;
    f.direct_write_bw = 2.1e9, f.direct_read_bw = 2.3e9, f.direct_write_call = 85e-6, f.direct_read_call = 88e-6;
    colio_figures_direct(&f, &w, &r);
    int64_t want = (int64_t)((85e-6 - 0.4e-6) / (1 / 0.35e9 - 1 / 2.1e9));
    CHECK(w >= want && w <= want + 1 && r == INT64_MAX, "the disk: writes from %lld bytes (%lld), reads never",
          (long long)want, (long long)w);
    f.flushed_write_bw = 0; /* not measured (cannot sync): the page cache's speed decides, and wins */
    colio_figures_direct(&f, &w, &r);
    CHECK(w == INT64_MAX, "no flush figure: buffered (%lld)", (long long)w);
    f.flushed_write_bw = 1.8e9; /* within the noise of a page cache serving O_DIRECT */
    colio_figures_direct(&f, &w, &r);
    CHECK(w == INT64_MAX, "direct calls not clearly faster: buffered");
    f.direct_write_bw = 1e12, f.direct_write_call = 0;
    colio_figures_direct(&f, &w, &r);
    CHECK(w == 0, "direct calls no dearer and faster: every write");
    colio_store_figures_t g = f;
    colio_figures_as_direct(&g, 1, 0);
    CHECK(g.write_bw == 1e12 && g.write_call == 0 && g.read_bw == f.read_bw, "every write direct: costed so");
    f.direct_write_bw = f.direct_read_bw = 0;
    colio_figures_direct(&f, &w, &r);
    CHECK(w == INT64_MAX && r == INT64_MAX, "no direct I/O on the file system: buffered");
    g = f;
    colio_figures_as_direct(&g, 1, 1);
    CHECK(g.write_bw == f.write_bw && g.read_call == f.read_call, "no direct figures: the buffered ones stay");
}

/* Equal to the 6 digits a cache line keeps. */
static int near(double a, double b)
{
    double d = a - b, m = b < 0 ? -b : b;
    return (d < 0 ? -d : d) <= 1e-5 * m;
}

static void cache_file(void)
{
    char dir[] = "/tmp/colio-figures-XXXXXX", file[128], buf[256];
    CHECK(mkdtemp(dir) != NULL, "scratch directory");
    snprintf(file, sizeof file, "%s/sub/dir/figures", dir);
    colio_store_figures_t a = tmpfs(), b = tmpfs(), got;
    b.write_call = 3e-3, b.shared = 1;
    CHECK(colio_figures_cache_get(file, "fs=a", &got) != 0, "nothing kept yet");
    CHECK(colio_figures_cache_put(file, "fs=a", &a) == 0 && colio_figures_cache_put(file, "fs=b", &b) == 0,
          "kept (the directories made)");
    CHECK(colio_figures_cache_put(file, "fs=a", &b) == 0, "replaced");
    CHECK(colio_figures_cache_get(file, "fs=a", &got) == 0 && got.write_call == 3e-3 && got.shared == 1,
          "the replaced line read back");
    CHECK(colio_figures_cache_get(file, "fs=b", &got) == 0 && got.write_call == 3e-3 && got.read_bw == 12e9,
          "the other file system's line kept");
    CHECK(colio_figures_cache_get(file, "fs=", &got) != 0, "a key's prefix is not a key");
    FILE *old = fopen(file, "a"); /* figures measured 31 days ago are measured again */
    fprintf(old, "fs=old write_call=1e-6 write_bw=1e9 flushed_write_bw=3e8 direct_write_bw=0 direct_read_bw=0 date=%lld\n", (long long)time(NULL) - 31 * 24 * 3600);
    fprintf(old, "fs=new write_call=1e-6 write_bw=1e9 flushed_write_bw=3e8 direct_write_bw=0 direct_read_bw=0 date=%lld\n", (long long)time(NULL) - 3600);
    fprintf(old, "fs=cached write_bw=9e9 read_bw=20e9 copy_bw=6e9 flushed_write_bw=3e8 direct_write_bw=0 direct_read_bw=0 date=%lld\n", (long long)time(NULL) - 3600);
    fprintf(old, "fs=waits write_streams=0.6 write_call_streams=2 shared=0 flushed_write_bw=3e8 direct_write_bw=0 direct_read_bw=0 date=%lld\n", (long long)time(NULL) - 60);
    fprintf(old, "fs=locks write_streams=0.6 write_call_streams=0.5 shared=0 flushed_write_bw=3e8 direct_write_bw=0 direct_read_bw=0 date=%lld\n", (long long)time(NULL) - 60);
    fprintf(old, "fs=nodirect write_call=1e-6 write_bw=1e9 date=%lld\n", (long long)time(NULL) - 60);
    fclose(old);
    CHECK(colio_figures_cache_get(file, "fs=nodirect", &got) != 0, "a line without the direct figures: measured again");
    CHECK(colio_figures_cache_get(file, "fs=waits", &got) == 0 && got.write_streams == 1,
          "a local file system whose calls wait: writers in turn (%g), as the probe now assumes", got.write_streams);
    CHECK(colio_figures_cache_get(file, "fs=locks", &got) == 0 && got.write_streams == 0.6,
          "a local file system whose calls do not wait: writers slow each other down (%g)", got.write_streams);
    CHECK(colio_figures_cache_get(file, "fs=cached", &got) == 0 && got.read_bw == 6e9 && got.write_bw == 6e9 &&
              got.copy_bw == 6e9,
          "a page cache's bandwidths no higher than a memory copy's (read %g, write %g)", got.read_bw, got.write_bw);
    CHECK(colio_figures_cache_get(file, "fs=old", &got) != 0, "a stale line is ignored");
    CHECK(colio_figures_cache_get(file, "fs=new", &got) == 0 && got.write_bw == 1e9, "a recent line is read");
    CHECK(colio_figures_cache_file("none", buf, sizeof buf) == NULL, "none: no file");
    CHECK(strcmp(colio_figures_cache_file("/x/y", buf, sizeof buf), "/x/y") == 0, "a hint names the file");
    setenv("COLIO_STORAGE_CACHE", file, 1);
    CHECK(strcmp(colio_figures_cache_file("", buf, sizeof buf), file) == 0, "COLIO_STORAGE_CACHE names it");
    unsetenv("COLIO_STORAGE_CACHE");
    /* the probe, on this machine's /tmp: sane figures, then the kept ones */
    char target[128];
    snprintf(target, sizeof target, "%s/target", dir);
    FILE *t = fopen(target, "w");
    fclose(t);
    colio_store_figures_t p1, p2;
    int rc = colio_figures_of_path(target, "none", &p1);
    CHECK(rc == 0 && p1.write_bw > 0 && p1.read_bw > 0 && p1.copy_bw > 0 && p1.write_streams >= 0.25 &&
              p1.read_call_streams <= 2 && p1.read_bw <= p1.copy_bw && p1.write_bw <= p1.copy_bw &&
              p1.direct_write_bw >= 0 && p1.direct_read_bw >= 0 && p1.flushed_write_bw >= 0,
          "the probe measured sane figures, direct I/O's among them (rc %d)", rc);
    CHECK(colio_figures_of_path(target, "none", &p2) == 0 && memcmp(&p1, &p2, sizeof p1) == 0,
          "the second ask gets the kept figures");
    CHECK(colio_figures_cache_put(file, "fs=probed", &p1) == 0 && colio_figures_cache_get(file, "fs=probed", &p2) == 0 &&
              near(p2.write_bw, p1.write_bw) && near(p2.direct_write_bw, p1.direct_write_bw) &&
              near(p2.flushed_write_bw, p1.flushed_write_bw),
          "the probe's figures come back from the cache file (else every process probes again)");
    /* and on a file system without direct I/O of its own (tmpfs), where the direct figures are none */
    char shm[64];
    snprintf(shm, sizeof shm, "/dev/shm/colio-figures-%ld", (long)getpid());
    FILE *s = fopen(shm, "w");
    if (s != NULL) {
        fclose(s);
        colio_store_figures_t q1, q2;
        CHECK(colio_figures_of_path(shm, "none", &q1) == 0 && colio_figures_cache_put(file, "fs=shm", &q1) == 0 &&
                  colio_figures_cache_get(file, "fs=shm", &q2) == 0 && near(q2.read_bw, q1.read_bw) &&
                  q1.direct_write_bw == 0 && q2.direct_write_bw == 0,
              "tmpfs's figures come back from the cache file, direct I/O none (direct: %g GB/s)",
              q1.direct_write_bw * 1e-9);
        unlink(shm);
    }
    char probe_left[160];
    snprintf(probe_left, sizeof probe_left, "%s/.colio-probe.%ld", dir, (long)getpid());
    CHECK(access(probe_left, F_OK) != 0, "the probe left no scratch file");
    unlink(target);
    unlink(file);
    snprintf(buf, sizeof buf, "rm -rf %s", dir);
    CHECK(system(buf) == 0, "clean up");
}

/*
 * A write round with holes (colio_model_sieve_write): on tmpfs a 1 MiB
 * round of a few runs is written around its holes, one of thousands of
 * small runs read and rewritten whole; where a call costs a millisecond,
 * even a few runs are sieved; the two-phase figure of a call with one hole
 * per round no longer charges a read of every round.
 */
static void write_holes(void)
{
    colio_store_figures_t f = tmpfs(), slow = tmpfs();
    slow.write_call += 1e-3, slow.read_call += 1e-3;
    double mib = 1 << 20;
    CHECK(!colio_model_sieve_write(&f, mib, mib - 15, 2), "tmpfs: one 15-byte hole in 1 MiB: two writes");
    CHECK(!colio_model_sieve_write(&f, mib, mib / 2, 16), "tmpfs: 16 runs of 32 KiB: a write each");
    CHECK(colio_model_sieve_write(&f, mib, mib / 2, 4096), "tmpfs: 4,096 runs of 128 B: read-modify-write");
    CHECK(colio_model_sieve_write(&slow, mib, mib / 2, 4), "1 ms calls: 4 runs: read-modify-write");
    colio_model_costs_t whole, holed;
    colio_call_shape_t s = interleaved(1, 2, 1, 1, 4096, 64 << 20);
    choose(&s, &f, &whole);
    s.extent += 64; /* one hole of 64 bytes, 4 KiB pieces */
    choose(&s, &f, &holed);
    CHECK(holed.two_phase < whole.two_phase * 1.05, "one hole: two-phase %g, %g without (no read of every round)",
          holed.two_phase, whole.two_phase);
    s = interleaved(1, 2, 1, 1, 128, 64 << 20);
    choose(&s, &f, &whole);
    s.extent *= 2; /* a hole as large as each piece */
    choose(&s, &f, &holed);
    CHECK(holed.two_phase > whole.two_phase * 1.2, "128-byte pieces, as many holes: two-phase %g, %g without",
          holed.two_phase, whole.two_phase);
}

int main(void)
{
    tmpfs_two_ranks();
    emulated_nodes();
    write_holes();
    slow_storage();
    at_scale();
    record_formats();
    round_sizes();
    figures_words_and_hint();
    direct_choice();
    cache_file();
    return unit_finish("test_model_unit");
}
