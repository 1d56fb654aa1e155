/*
 * Subfiling without MPI traffic: the layout arithmetic against brute force,
 * the metadata format (round trip and every refusal), the hint, the groups,
 * the subfile file-domain layout (every byte's aggregator is one of its
 * subfile's group) and every placement strategy under groups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "place/place.h"
#include "place/registry.h"
#include "subfile/groups.h"
#include "subfile/layout.h"
#include "topo/net.h"
#include "testutil.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void) { return test_xorshift(&rng); }

/* ---- arithmetic ------------------------------------------------------------------ */

/* Brute force: walk the logical bytes, deal stripes round-robin, count each subfile's bytes. */
static void arithmetic(void)
{
    for (int round = 0; round < 300; round++) {
        colio_subfile_layout_t l = {.nsub = 1 + (int)(next() % 7), .stripe = 1 + (int64_t)(next() % 50)};
        int64_t size = (int64_t)(next() % 2000), have[8] = {0};
        int bad = 0;
        for (int64_t x = 0; x < size; x++) {
            int k;
            int64_t phys, end;
            colio_subfile_locate(&l, x, &k, &phys, &end);
            int64_t stripe = x / l.stripe;
            bad += k != (int)(stripe % l.nsub) || end != (stripe + 1) * l.stripe;
            bad += phys != have[k]++; /* each subfile fills densely, in logical order */
            bad += colio_subfile_logical(&l, k, phys) != x;
        }
        int64_t furthest = 0;
        for (int k = 0; k < l.nsub; k++) {
            bad += colio_subfile_expected(&l, k, size) != have[k];
            int64_t end = colio_subfile_logical_end(&l, k, have[k]);
            furthest = end > furthest ? end : furthest;
        }
        bad += furthest != size;
        CHECK(bad == 0, "layout n=%d stripe=%lld size=%lld: %d problems", l.nsub, (long long)l.stripe,
              (long long)size, bad);
    }
    colio_subfile_layout_t l = {.nsub = 3, .stripe = 10};
    int k0;
    int64_t phys0, end0;
    colio_subfile_layout_t big = {.nsub = 3, .stripe = 1000};
    colio_subfile_locate(&big, INT64_MAX - 3, &k0, &phys0, &end0);
    CHECK(end0 == INT64_MAX && colio_subfile_logical(&big, k0, phys0) == INT64_MAX - 3,
          "the last stripe before INT64_MAX: end %lld", (long long)end0);
    CHECK(colio_subfile_expected(&l, 2, 25) == 5 && colio_subfile_expected(&l, 0, 25) == 10 && colio_subfile_expected(&l, 1, 9) == 0 &&
              colio_subfile_expected(&l, 0, 31) == 11 && colio_subfile_expected(&l, 1, 31) == 10,
          "worked example: 3 subfiles of stripe 10");
}

/* ---- metadata ------------------------------------------------------------------------- */

static void metadata(void)
{
    colio_subfile_layout_t l, back;
    char msg[256];
    CHECK(colio_subfile_layout_new(&l, "/data/run/out.nc", 3, 4096) == 0, "new layout");
    l.size = 123456789;
    char *text = colio_subfile_meta_format(&l, "/data/run/out.nc");
    CHECK(text && colio_subfile_meta_is(text, strlen(text)), "formatted text is metadata");
    CHECK(text && strstr(text, "subfile 2 out.nc.sub.2\n"), "names written relative to the directory:\n%s", text);
    /* read back from a moved directory: names follow the metadata file */
    CHECK(colio_subfile_meta_parse(text, strlen(text), "/moved/out.nc", &back, msg, sizeof msg) == 0, "parse: %s", msg);
    CHECK(back.nsub == 3 && back.stripe == 4096 && back.size == 123456789, "round trip of the numbers");
    CHECK(back.names && strcmp(back.names[1], "/moved/out.nc.sub.1") == 0, "resolved name %s",
          back.names ? back.names[1] : "");
    colio_subfile_layout_free(&back);
    CHECK(colio_subfile_meta_parse(text, strlen(text), "out.nc", &back, msg, sizeof msg) == 0 &&
              strcmp(back.names[0], "out.nc.sub.0") == 0,
          "a path without a directory");
    colio_subfile_layout_free(&back);
    free(text);
    colio_subfile_layout_free(&l);

    /* names as written survive a rewrite: absolute, in a subdirectory, with spaces */
    const char *kept = "colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 3\nsubfile 0 /elsewhere/x\n"
                       "subfile 1 ost1/f.sub.1\nsubfile 2 my data.sub.2\r\n";
    CHECK(colio_subfile_meta_parse(kept, strlen(kept), "/d/f", &back, msg, sizeof msg) == 0, "parse: %s", msg);
    CHECK(back.names && strcmp(back.names[0], "/elsewhere/x") == 0 && strcmp(back.names[1], "/d/ost1/f.sub.1") == 0 &&
              strcmp(back.names[2], "/d/my data.sub.2") == 0,
          "absolute, subdirectory and spaced names resolved");
    back.size = 77;
    char *again = back.names ? colio_subfile_meta_format(&back, "/d/f") : NULL;
    colio_subfile_layout_t twice;
    CHECK(again && colio_subfile_meta_parse(again, strlen(again), "/d/f", &twice, msg, sizeof msg) == 0 &&
              twice.size == 77 && strcmp(twice.names[1], "/d/ost1/f.sub.1") == 0 &&
              strcmp(twice.names[2], "/d/my data.sub.2") == 0,
          "a rewritten metadata file names the same subfiles");
    colio_subfile_layout_free(&twice);
    free(again);
    colio_subfile_layout_free(&back);
    /* a path with a space: every subfile its own file */
    CHECK(colio_subfile_layout_new(&l, "/tmp/my data", 3, 10) == 0, "new layout");
    text = colio_subfile_meta_format(&l, "/tmp/my data");
    CHECK(text && colio_subfile_meta_parse(text, strlen(text), "/tmp/my data", &back, msg, sizeof msg) == 0 &&
              strcmp(back.names[2], "/tmp/my data.sub.2") == 0,
          "spaces in the path: %s", msg);
    colio_subfile_layout_free(&back);
    colio_subfile_layout_free(&l);
    free(text);
    char *longline = malloc(6000);
    int at = snprintf(longline, 6000, "colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 1\nsubfile 0 ");
    memset(longline + at, 'n', 5000);
    CHECK(colio_subfile_meta_parse(longline, (size_t)at + 5000, "/d/f", &back, msg, sizeof msg) != 0 &&
              strstr(msg, "longer than"),
          "a line longer than the buffer is refused, not cut: %s", msg);
    free(longline);

    struct {
        const char *text, *says;
    } refused[] = {
        {"colio-subfile 2\nstripe 8\nlogical_size 0\nsubfiles 1\nsubfile 0 a\n", "version 2"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfile 0 a\n", "before the subfile count"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 2\nsubfile 0 a\n", "subfile 1 is not named"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 2\nsubfile 2 a\nsubfile 0 b\n", "out of range"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 1\nsubfile 0 a\nsubfile 0 b\n", "named twice"},
        {"colio-subfile 1\nstripe 0\nlogical_size 0\nsubfiles 1\nsubfile 0 a\n", "stripe must be"},
        {"colio-subfile 1\nlogical_size 0\nsubfiles 1\nsubfile 0 a\n", "no stripe line"},
        {"colio-subfile 1\nstripe 8\nsubfiles 1\nsubfile 0 a\n", "no logical_size line"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 0\n", "subfile count"},
        {"colio-subfile 1\nstripe x\nlogical_size 0\nsubfiles 1\nsubfile 0 a\n", "whole number"},
        {"colio-subfile 1\nstripe 4m\nlogical_size 0\nsubfiles 1\nsubfile 0 a\n", "whole number"},
        {"colio-subfile 1\nstripe 8\nlogical_size -5\nsubfiles 1\nsubfile 0 a\n", "negative"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 2\nsubfile 0 a\nsubfile 1 a\n", "used twice"},
        {"colio-subfile 1\nstripe 8\nlogical_size 0\nsubfiles 1\nsubfile 0 f\n", "metadata file"},
        {"colio-subfile\n", "line 1"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        int rc = colio_subfile_meta_parse(refused[i].text, strlen(refused[i].text), "/d/f", &back, msg, sizeof msg);
        CHECK(rc != 0 && strstr(msg, refused[i].says), "refused case %zu: rc %d, message \"%s\"", i, rc, msg);
        CHECK(back.names == NULL && back.nsub == 0, "refused case %zu leaves no layout", i);
    }
    CHECK(!colio_subfile_meta_is("colio-subfiles 1", 16) && !colio_subfile_meta_is("data", 4) &&
              colio_subfile_meta_is("colio-subfile 1\n", 16),
          "metadata recognised by its first word only");
}

static void hint_values(void)
{
    colio_subfiles_spec_t s;
    CHECK(colio_subfiles_parse("none", &s) == 0 && s.mode == COLIO_SUBFILES_NONE, "none");
    CHECK(colio_subfiles_parse("4", &s) == 0 && s.mode == COLIO_SUBFILES_COUNT && s.n == 4, "count");
    CHECK(colio_subfiles_parse("node", &s) == 0 && s.mode == COLIO_SUBFILES_NODE, "node");
    CHECK(colio_subfiles_parse("group:3", &s) == 0 && s.mode == COLIO_SUBFILES_GROUP && s.n == 3, "group:3");
    CHECK(colio_subfiles_parse("ionode", &s) == 0 && s.mode == COLIO_SUBFILES_IONODE, "ionode");
    const char *bad[] = {"0", "-1", "group:", "group:0", "nodes", "3x", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(colio_subfiles_parse(bad[i], &s) != 0, "%s refused", bad[i]);
}

/* ---- groups, domains, placement ---------------------------------------------------------- */

static int random_topo(colio_topo_t *t, int *nprocs_p)
{
    int np = 1 + (int)(next() % 24), node_size = 1 + (int)(next() % 5);
    int *node_of = malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++)
        node_of[r] = next() % 4 ? r / node_size : (r % 3) % ((np + node_size - 1) / node_size); /* some mixed */
    int rc = colio_topo_from_nodes(np, node_of, t);
    free(node_of);
    *nprocs_p = np;
    return rc;
}

static void groups(void)
{
    for (int round = 0; round < 300; round++) {
        colio_topo_t t;
        int np, bad = 0;
        CHECK(random_topo(&t, &np) == 0, "topology");
        int nsub = 1 + (int)(next() % (np + 2)), cb = next() % 2 ? (int)(next() % 9) : 0;
        int *g = malloc(sizeof(int) * (size_t)np), *first = malloc(sizeof(int) * ((size_t)nsub + 1));
        int naggs = colio_subfile_groups(&t, nsub, cb, 1, g, first);
        if (nsub > np) {
            CHECK(naggs == 0, "more subfiles than ranks: no groups");
        } else {
            int *ranks = calloc((size_t)nsub, sizeof(int));
            for (int r = 0; r < np; r++)
                bad += g[r] < 0 || g[r] >= nsub || (g[r] >= 0 && g[r] < nsub && ranks[g[r]]++ < 0);
            for (int k = 0; k < nsub; k++) {
                int m = first[k + 1] - first[k];
                bad += ranks[k] == 0 || m < 1 || m > ranks[k];
            }
            bad += first[0] != 0 || naggs != first[nsub];
            int occupied = 0;
            for (int n = 0; n < t.nnodes; n++)
                for (int r = 0; r < np; r++)
                    if (t.node_of[r] == n) {
                        occupied++;
                        break;
                    }
            for (int r = 0; r < np; r++) /* a node in one group when there are no more subfiles than nodes */
                for (int q = 0; q < np && nsub <= occupied; q++)
                    bad += t.node_of[r] == t.node_of[q] && g[r] != g[q];
            free(ranks);
        }
        CHECK(bad == 0, "groups case %d (np %d nodes %d nsub %d cb %d): %d problems", round, np, t.nnodes, nsub, cb,
              bad);
        free(g), free(first);
        colio_topo_free(&t);
    }
}

/* ionode: one group per storage target of the network model (a torus of 16 nodes, psets of 4, 1 bridge each). */
static void target_groups(void)
{
    int node_of[32];
    for (int r = 0; r < 32; r++)
        node_of[r] = r / 2; /* 16 nodes of 2 ranks */
    colio_topo_t t;
    CHECK(colio_topo_from_nodes(32, node_of, &t) == 0, "topology");
    colio_net_opts_t o = {.nnodes = t.nnodes};
    colio_err_t e = {0};
    CHECK(colio_net_create("torus:dims=4x4,psets=4,bridges=1", &o, &t.net, &e) == 0, "torus: %s", e.msg);
    int ntargets = colio_net_ntargets(t.net), node_group[16], g[32], first[64];
    CHECK(colio_subfile_target_groups(&t, ntargets, node_group) == 0, "%d targets make %d groups", ntargets, ntargets);
    CHECK(colio_subfile_target_groups(&t, ntargets + 1, node_group) != 0, "a count that is not the targets' is refused");
    colio_subfile_target_groups(&t, ntargets, node_group);
    int naggs = colio_subfile_groups_by_node(&t, ntargets, node_group, 0, 1, g, first), bad = 0;
    for (int a = 0; a < 32; a++)
        for (int b = 0; b < 32; b++) /* same group exactly when the same storage target */
            bad += (g[a] == g[b]) != (colio_net_io_target(t.net, t.node_of[a]) == colio_net_io_target(t.net, t.node_of[b]));
    CHECK(ntargets == 4 && bad == 0 && naggs == 16, "groups by target: %d targets, %d mismatches, %d aggregators",
          ntargets, bad, naggs);
    colio_topo_free(&t);
}

/* Every byte: one aggregator of its subfile's group, one round inside one stripe, rounds ascending. */
static void subfile_domains(void)
{
    const colio_domain_ops_t *ops = &colio_domain_subfile;
    for (int round = 0; round < 400; round++) {
        int nsub = 1 + (int)(next() % 5), first[6] = {0};
        for (int k = 0; k < nsub; k++)
            first[k + 1] = first[k] + 1 + (int)(next() % 3);
        int naggs = first[nsub], bad = 0;
        colio_domain_input_t in = {.naggs = naggs, .lo = (int64_t)(next() % 500), .round_size = 1 + (int64_t)(next() % 40),
                                   .striping_unit = 1 + (int64_t)(next() % 60), .nsub = nsub, .sub_first = first};
        if (round % 5 == 4) /* extents ending near INT64_MAX: no overflow */
            in.lo = INT64_MAX - 4000 + (int64_t)(next() % 500);
        in.hi = in.lo + 1 + (int64_t)(next() % 3000);
        colio_domains_t d = {.ops = ops, .naggs = naggs, .lo = in.lo, .hi = in.hi, .round_size = in.round_size};
        ops->plan(&in, &d);
        int64_t last_off[16], last_round[16], max_round = -1;
        for (int a = 0; a < naggs; a++)
            last_off[a] = INT64_MIN, last_round[a] = -1;
        for (int64_t x = in.lo; x < in.hi; x++) {
            int a;
            int64_t r, end, s, e, stripe = x / in.striping_unit;
            ops->locate(&d, x, &a, &r, &end);
            ops->round_extent(&d, a, r, &s, &e);
            int sub = (int)(stripe % nsub);
            bad += !(a >= first[sub] && a < first[sub + 1]); /* its own group's aggregator */
            bad += !(r >= 0 && s <= x && x < e && end == e && e - s <= in.round_size);
            bad += s / in.striping_unit != stripe || (e - 1) / in.striping_unit != stripe; /* one stripe */
            bad += r < last_round[a] || x < last_off[a];
            last_round[a] = r, last_off[a] = x;
            max_round = r > max_round ? r : max_round;
        }
        bad += max_round + 1 > d.nrounds;
        for (int a = 0; a < naggs; a++) {
            int64_t s, e;
            ops->round_extent(&d, a, d.nrounds, &s, &e);
            bad += s < e;
        }
        CHECK(bad == 0, "subfile domains case %d (nsub %d naggs %d lo %lld len %lld rs %lld stripe %lld): %d problems",
              round, nsub, naggs, (long long)in.lo, (long long)(in.hi - in.lo), (long long)in.round_size,
              (long long)in.striping_unit, bad);
        colio_domains_free(&d);
    }
}

/* A pattern where every rank has bytes in every domain (so pattern strategies have candidates everywhere). */
static void full_pattern(int np, int ndom, colio_pattern_t *p)
{
    memset(p, 0, sizeof *p);
    p->nprocs = np, p->ndom = ndom;
    p->row_start = malloc(sizeof(int64_t) * ((size_t)np + 1));
    p->dom = malloc(sizeof(int) * (size_t)np * (size_t)ndom);
    p->bytes = malloc(sizeof(int64_t) * (size_t)np * (size_t)ndom);
    int64_t k = 0;
    for (int r = 0; r < np; r++) {
        p->row_start[r] = k;
        for (int j = 0; j < ndom; j++, k++)
            p->dom[k] = j, p->bytes[k] = 1 + (int64_t)(next() % 1000);
    }
    p->row_start[np] = k;
    colio_pattern_index(p);
}

static void grouped_placement(void)
{
    for (int i = 0; colio_place_name(i); i++) {
        const colio_place_ops_t *ops = colio_place_find(colio_place_name(i));
        for (int round = 0; round < 60; round++) {
            colio_topo_t t;
            int np, bad = 0;
            random_topo(&t, &np);
            int nsub = 1 + (int)(next() % np);
            int *g = malloc(sizeof(int) * (size_t)np), *first = malloc(sizeof(int) * ((size_t)nsub + 1));
            int naggs = colio_subfile_groups(&t, nsub, 0, 1 + (int)(next() % 2), g, first);
            int *aggs = malloc(sizeof(int) * (size_t)naggs);
            colio_pattern_t pat;
            full_pattern(np, naggs, &pat);
            colio_place_input_t in = {.topo = &t, .naggs = naggs, .per_node = 1, .pat = &pat,
                                      .group_of_rank = g, .group_first = first, .ngroups = nsub};
            int rc = colio_place_select(ops, &in, aggs);
            char *seen = calloc((size_t)np, 1);
            for (int k = 0; rc == 0 && k < nsub; k++)
                for (int j = first[k]; j < first[k + 1]; j++)
                    bad += aggs[j] < 0 || aggs[j] >= np || g[aggs[j]] != k || seen[aggs[j]]++;
            CHECK(rc == 0 && bad == 0, "%s under groups, case %d (np %d nsub %d naggs %d): rc %d, %d problems",
                  ops->name, round, np, nsub, naggs, rc, bad);
            free(seen), free(aggs), free(g), free(first);
            colio_pattern_free(&pat);
            colio_topo_free(&t);
        }
    }
}

int main(void)
{
    arithmetic();
    metadata();
    hint_values();
    groups();
    target_groups();
    subfile_domains();
    grouped_placement();
    return unit_finish("test_subfile_unit");
}
