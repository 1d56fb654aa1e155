/*
 * Network models against hand-computed distances and brute force: TATP's
 * tree (Liu et al. Fig. 4: 2 hops under one switch, 4 across), fat-tree
 * hop classes, dragonfly bounds, torus distances against a breadth-first
 * search over the torus graph, BG/Q psets and bridges, topology files
 * (names, errors with line numbers), routes consistent with hops, the
 * scattered allocation, and malformed specs rejected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "topo/net.h"

static colio_net_t *make(const char *spec, int nnodes, uint64_t seed)
{
    colio_err_t e = {0};
    colio_net_opts_t o = {.nnodes = nnodes, .scatter_seed = seed};
    colio_net_t *net = NULL;
    CHECK(colio_net_create(spec, &o, &net, &e) == 0, "%s: %s", spec, e.msg);
    return net;
}

/* Routes: as long as the hops, ids in range (and the same links both ways when routing is symmetric:
   not d-mod-k fat-trees nor dimension-ordered tori); hops symmetric, triangle inequality. */
static void routes_consistent(const char *spec, int nnodes, int symmetric)
{
    colio_net_t *net = make(spec, nnodes, 0);
    if (net == NULL)
        return;
    int bad = 0;
    int64_t nl = colio_net_nlinks(net), ab[64], ba[64];
    for (int a = 0; a < nnodes; a++) {
        int io = colio_net_io_route(net, a, ab, 64);
        bad += io != colio_net_io_hops(net, a) || io < 1;
        for (int k = 0; k < io && k < 64; k++)
            bad += ab[k] < 0 || ab[k] >= nl;
        bad += colio_net_io_target(net, a) < 0 || colio_net_io_target(net, a) >= colio_net_ntargets(net);
        for (int b = 0; b < nnodes; b++) {
            int h = colio_net_hops(net, a, b), n1 = colio_net_route(net, a, b, ab, 64), n2 = colio_net_route(net, b, a, ba, 64);
            bad += h != n1 || h != n2 || h != colio_net_hops(net, b, a) || (h == 0) != (a == b);
            int64_t sum = 0;
            for (int k = 0; k < n1 && k < 64; k++) {
                bad += ab[k] < 0 || ab[k] >= nl;
                sum += ab[k] - ba[k];
            }
            bad += symmetric && sum != 0; /* same links both ways (sums as a cheap check) */
            for (int c = 0; c < nnodes && nnodes <= 40; c++)
                bad += colio_net_hops(net, a, c) > h + colio_net_hops(net, b, c);
        }
    }
    CHECK(bad == 0, "%s: %d inconsistencies", spec, bad);
    colio_net_free(net);
}

static void tatp_tree(void)
{
    colio_net_t *net = make("tree:fanout=2x2", 3, 0);
    CHECK(colio_net_hops(net, 0, 1) == 2 && colio_net_hops(net, 0, 2) == 4 && colio_net_hops(net, 1, 2) == 4,
          "TATP's D: 2 under one switch, 4 across");
    CHECK(colio_net_io_hops(net, 0) == 3 && colio_net_machine_nodes(net) == 4, "storage at the root");
    colio_net_free(net);
}

static void fattree(void)
{
    colio_net_t *net = make("fattree:k=4", 16, 0);
    CHECK(colio_net_machine_nodes(net) == 16, "k=4: 16 hosts");
    CHECK(colio_net_hops(net, 0, 1) == 2 && colio_net_hops(net, 0, 2) == 4 && colio_net_hops(net, 0, 4) == 6,
          "same edge 2, same pod 4, other pod 6");
    CHECK(colio_net_io_hops(net, 5) == 4, "storage behind the core");
    colio_net_free(net);
}

static void dragonfly(void)
{
    colio_net_t *net = make("dragonfly:groups=4,routers=3,nodes=2", 24, 0);
    int lo = 9, hi = 0;
    for (int a = 0; a < 24; a++)
        for (int b = 0; b < 24; b++)
            if (a / 6 != b / 6) {
                int h = colio_net_hops(net, a, b);
                lo = h < lo ? h : lo, hi = h > hi ? h : hi;
            }
    CHECK(colio_net_hops(net, 0, 1) == 2 && colio_net_hops(net, 0, 2) == 3, "same router 2, same group 3");
    CHECK(lo == 3 && hi == 5, "across groups 3..5, got %d..%d", lo, hi);
    CHECK(colio_net_ntargets(net) == 4 && colio_net_io_target(net, 7) == 1 && colio_net_io_hops(net, 0) == 2 &&
              colio_net_io_hops(net, 2) == 3,
          "one target per group on router 0");
    colio_net_free(net);
}

/* Distances in the torus graph by breadth-first search from a. */
static void bfs(const int *dims, int nd, int n, int a, int *dist)
{
    int *queue = malloc(sizeof(int) * (size_t)n), head = 0, tail = 0;
    for (int i = 0; i < n; i++)
        dist[i] = -1;
    dist[a] = 0, queue[tail++] = a;
    while (head < tail) {
        int u = queue[head++], stride = 1;
        for (int d = nd - 1; d >= 0; stride *= dims[d], d--) {
            int x = u / stride % dims[d];
            for (int s = -1; s <= 1; s += 2) {
                int v = u + ((x + s + dims[d]) % dims[d] - x) * stride;
                if (dist[v] < 0)
                    dist[v] = dist[u] + 1, queue[tail++] = v;
            }
        }
    }
    free(queue);
}

static void torus(void)
{
    static const int dims[3] = {3, 4, 5};
    colio_net_t *net = make("torus:dims=3x4x5", 60, 0);
    int dist[60], bad = 0;
    for (int a = 0; a < 60; a++) {
        bfs(dims, 3, 60, a, dist);
        for (int b = 0; b < 60; b++)
            bad += colio_net_hops(net, a, b) != dist[b];
    }
    CHECK(bad == 0, "torus hops equal BFS distances (%d differ)", bad);
    colio_net_free(net);
    /* 8 nodes in a ring, psets of 4 with 2 bridges: bridges at 0, 2 and 4, 6 */
    net = make("torus:dims=8,psets=4,bridges=2", 8, 0);
    CHECK(colio_net_ntargets(net) == 4 && colio_net_io_hops(net, 0) == 1 && colio_net_io_hops(net, 1) == 2 &&
              colio_net_io_hops(net, 3) == 2 && colio_net_io_target(net, 1) == 0 && colio_net_io_target(net, 3) == 1 &&
              colio_net_io_target(net, 5) == 2,
          "psets and bridges");
    colio_net_free(net);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void topology_file(void)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/colio-net-unit-%d.topo", (int)getpid());
    write_file(path, "colio-topology 1\n# a tree\nlatency 2e-6\nbandwidth 1e9\nnode a r/s1\nnode b r/s1\n"
                     "node c r/s2/t\nionode io1 r/s2\nionode io0 r\n");
    const char *names[3] = {"c", "a", "b"};
    colio_net_opts_t o = {.nnodes = 3, .names = names};
    colio_err_t e = {0};
    colio_net_t *net = NULL;
    CHECK(colio_net_create(path, &o, &net, &e) == 0, "file: %s", e.msg);
    if (net) { /* job nodes: c, a, b */
        CHECK(colio_net_hops(net, 1, 2) == 2 && colio_net_hops(net, 0, 1) == 5, "file hops %d %d",
              colio_net_hops(net, 1, 2), colio_net_hops(net, 0, 1));
        CHECK(colio_net_io_target(net, 0) == 0 && colio_net_io_hops(net, 0) == 3, "c's target io1, 3 hops");
        CHECK(colio_net_io_target(net, 1) == 1 && colio_net_io_hops(net, 1) == 3, "a's target io0, 3 hops");
        CHECK(colio_net_latency(net) == 2e-6 && colio_net_bandwidth(net) == 1e9, "parameters");
        colio_net_free(net);
    }
    const char *missing[1] = {"zz"};
    o = (colio_net_opts_t){.nnodes = 1, .names = missing};
    CHECK(colio_net_create(path, &o, &net, &e) == COLIO_ERR_HINT && strstr(e.msg, "zz"), "unlisted node named: %s",
          e.msg);
    write_file(path, "colio-topology 1\nnode a r/s1\nswitch x\n");
    e = (colio_err_t){0};
    CHECK(colio_net_create(path, &o, &net, &e) == COLIO_ERR_HINT && strstr(e.msg, "line 3"), "bad line named: %s",
          e.msg);
    remove(path);
}

static void allocation(void)
{
    colio_net_t *a = make("torus:dims=8x8", 10, 42), *b = make("torus:dims=8x8", 10, 42);
    int seen[64] = {0}, bad = 0;
    for (int i = 0; i < 10; i++) {
        bad += colio_net_machine_node(a, i) != colio_net_machine_node(b, i);
        bad += seen[colio_net_machine_node(a, i)]++;
    }
    CHECK(bad == 0, "scattered allocation reproducible and injective");
    colio_net_free(a), colio_net_free(b);
    colio_err_t e = {0};
    colio_net_opts_t o = {.nnodes = 5};
    colio_net_t *net = NULL;
    CHECK(colio_net_create("fattree:k=2", &o, &net, &e) == COLIO_ERR_HINT && net == NULL, "job larger than machine");
}

static void bad_specs(void)
{
    static const char *const bad[] = {"", "mesh", "fattree", "fattree:k=3", "fattree:k=x", "torus:dims=0",
                                      "torus:dims=4x", "torus:dims=8,psets=3", "torus:dims=4,bridges=5",
                                      "tree:fanout=", "dragonfly:groups=2", "flat:latency=-1", "flat:foo=1",
                                      "fattree:k=4,latency", "file:"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(colio_net_spec_valid(bad[i]) != 0, "'%s' rejected", bad[i]);
    static const char *const good[] = {"flat", "tree:fanout=20x4", "fattree:k=8,latency=2e-6",
                                       "dragonfly:groups=9,routers=4,nodes=4,bandwidth=1e9",
                                       "torus:dims=4x4x4x4x2,psets=128,bridges=2", "/some/file"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK(colio_net_spec_valid(good[i]) == 0, "'%s' accepted", good[i]);
}

int main(void)
{
    tatp_tree();
    fattree();
    dragonfly();
    torus();
    topology_file();
    allocation();
    bad_specs();
    routes_consistent("flat", 7, 1);
    routes_consistent("tree:fanout=3x2x2", 12, 1);
    routes_consistent("fattree:k=4", 16, 0);
    routes_consistent("dragonfly:groups=5,routers=3,nodes=2", 30, 1);
    routes_consistent("torus:dims=3x4x2,psets=8,bridges=2", 24, 0);
    return unit_finish("test_net_unit");
}
