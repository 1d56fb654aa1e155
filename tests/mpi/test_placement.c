/*
 * What placement promises beyond the bytes (the correctness matrix runs once
 * per strategy elsewhere): the statistics name the strategy and report the
 * shuffle's hop-bytes and domain balance, computed here independently for a
 * pattern where the answer is known; strategies that read the pattern put
 * each file domain where its data is; plans are reused with the
 * aggregators they chose; bad topology hints fail collectively.
 *
 * The pattern: rank r writes one chunk of S bytes at chunk position
 * p-1-r, so with one aggregator per rank (emulated nodes of one rank, even
 * domains of S bytes) domain j is all rank p-1-j's. ROMIO's placement puts
 * domain j on rank j: every chunk but the middle one travels one hop (flat
 * network). The others put it on rank p-1-j: nothing travels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define S 4096

/* Write (twice: the second call may reuse the plan) and read back the reversed chunks. */
static void reversed(const char *path, const char *hints, colio_op_stats *first, colio_op_stats *second)
{
    int64_t size = (int64_t)S * t_nprocs, off = (int64_t)(t_nprocs - 1 - t_rank) * S;
    test_prefill(path, size + 100);
    MPI_Info info = test_info(hints);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    unsigned char *buf = malloc(S), *back = malloc(S);
    for (int i = 0; i < S; i++)
        buf[i] = pattern_new(t_rank, i, 5);
    colio_stats st;
    for (int k = 0; k < 2; k++) {
        CHECK_RC(tu_write_at_all(fh, off, buf, S, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
        colio_get_stats(fh, &st);
        *(k == 0 ? first : second) = st.last;
    }
    memset(back, 0, S);
    CHECK_RC(tu_read_at_all(fh, off, back, S, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(memcmp(back, buf, S) == 0, "%s: read back differs", hints);
    colio_close(&fh);
    MPI_Info_free(&info);
    free(buf), free(back);
    if (t_rank == 0) {
        unsigned char *f = malloc((size_t)size + 100);
        test_read_file(path, f, size + 100);
        int64_t bad = 0;
        for (int64_t x = 0; x < size; x++)
            bad += f[x] != pattern_new(t_nprocs - 1 - (int)(x / S), x % S, 5);
        for (int64_t x = size; x < size + 100; x++)
            bad += f[x] != pattern_old(x); /* past the data: untouched */
        CHECK(bad == 0, "%s: %lld wrong bytes", hints, (long long)bad);
        free(f);
    }
}

static void one_rank_per_node(const char *path)
{
    static const char *const names[] = {"romio", "greedy", "shortest", "longest", "topology", "lap"};
    int64_t moved = (int64_t)S * (t_nprocs - t_nprocs % 2); /* all but the middle chunk of an odd count */
    for (int i = 0; i < 6; i++) {
        char hints[256];
        snprintf(hints, sizeof hints,
                 "colio_placement=%s;colio_place_metrics=enable;colio_node_size=1;romio_cb_write=enable;romio_cb_read=enable",
                 names[i]);
        colio_op_stats a, b;
        reversed(path, hints, &a, &b);
        int64_t want = i == 0 ? moved : 0;
        CHECK(strcmp(a.placement, names[i]) == 0, "statistics name %s, got '%s'", names[i], a.placement);
        CHECK(a.hop_bytes == want, "%s: hop-bytes %lld, expected %lld", names[i], (long long)a.hop_bytes,
              (long long)want);
        CHECK(a.agg_bytes_max == S && a.agg_bytes_min == S, "%s: domains of %d bytes, got %lld..%lld", names[i], S,
              (long long)a.agg_bytes_min, (long long)a.agg_bytes_max);
        CHECK(a.aggregators == t_nprocs, "%s: %d aggregators", names[i], a.aggregators);
        CHECK(t_nprocs == 1 || b.plans_reused == 1, "%s: the second identical write reuses its plan", names[i]);
        CHECK(b.hop_bytes == a.hop_bytes && strcmp(b.placement, a.placement) == 0, "%s: a reused plan keeps its metrics",
              names[i]);
        /* romio: ranks j and p-1-j send each other a chunk over the same crossbar link */
        CHECK(a.max_link_bytes == (i == 0 && t_nprocs > 1 ? 2 * S : 0), "%s: busiest link %lld", names[i],
              (long long)a.max_link_bytes);
    }
}

/*
 * Four ranks on two emulated nodes, one aggregator per node, even domains of
 * 2S: domain 0 holds ranks 3 and 2 (node 1), domain 1 ranks 1 and 0 (node
 * 0). lap puts each domain on its own node (one chunk travels 1 hop within
 * the node: 2S in all); romio puts domain 0 on rank 0 and domain 1 on rank
 * 2, so every byte crosses the network (4S); romio measures only when asked
 * (colio_place_metrics).
 */
static void two_per_node(const char *path)
{
    if (t_nprocs != 4)
        return;
    colio_op_stats a, b;
    reversed(path, "colio_placement=lap;colio_node_size=2;romio_cb_write=enable;romio_cb_read=enable", &a, &b);
    CHECK(a.hop_bytes == 2 * S && a.aggregators == 2, "lap on 2 nodes: hop-bytes %lld, expected %d", (long long)a.hop_bytes,
          2 * S);
    reversed(path, "colio_placement=romio;colio_place_metrics=enable;colio_node_size=2;romio_cb_write=enable;romio_cb_read=enable",
             &a, &b);
    CHECK(a.hop_bytes == 4 * S, "romio on 2 nodes: hop-bytes %lld, expected %d", (long long)a.hop_bytes, 4 * S);
    reversed(path, "colio_placement=romio;colio_node_size=2;romio_cb_write=enable;romio_cb_read=enable", &a, &b);
    CHECK(a.hop_bytes == 0 && a.agg_bytes_max == 0, "romio without colio_place_metrics: not measured");
}

static void bad_topology(const char *path)
{
    static const char *const bad[] = {"colio_topology=hypercube:d=3", "colio_topology=fattree:k=3",
                                      "colio_topology=torus:dims=0", "colio_aggregators_per_node=-1"};
    for (int i = 0; i < 4; i++) {
        MPI_Info info = test_info(bad[i]);
        colio_file *fh = NULL;
        int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
        CHECK(rc == COLIO_ERR_HINT && fh == NULL, "%s: got %d", bad[i], rc);
        MPI_Info_free(&info);
    }
    /* a machine smaller than the job: a clear error at open, on every rank */
    if (t_nprocs > 1) {
        MPI_Info info = test_info("colio_topology=torus:dims=1;colio_node_size=1");
        colio_file *fh = NULL;
        int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
        CHECK(rc == COLIO_ERR_HINT && fh == NULL, "job larger than the torus: got %d (%s)", rc, colio_last_open_error());
        MPI_Info_free(&info);
    }
}

/* A topology file naming the emulated nodes: loaded at open, and a missing node is an error. */
static void topology_file(const char *path)
{
    char topo[600];
    snprintf(topo, sizeof topo, "%s.topo", path);
    int nodes = t_nprocs;
    if (t_rank == 0) {
        FILE *f = fopen(topo, "w");
        fprintf(f, "colio-topology 1\n# one switch per two nodes\n");
        for (int n = 0; n < nodes; n++)
            fprintf(f, "node node%d root/sw%d\n", n, n / 2);
        fprintf(f, "ionode io0 root\n");
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char hints[800];
    snprintf(hints, sizeof hints, "colio_topology=%s;colio_node_size=1;colio_placement=topology;romio_cb_write=enable", topo);
    colio_op_stats a, b;
    reversed(path, hints, &a, &b);
    CHECK(a.hop_bytes == 0 && strcmp(a.placement, "topology") == 0, "topology file: hop-bytes %lld", (long long)a.hop_bytes);
    if (t_rank == 0) { /* drop the last node */
        FILE *f = fopen(topo, "w");
        fprintf(f, "colio-topology 1\n");
        for (int n = 0; n + 1 < nodes; n++)
            fprintf(f, "node node%d root/sw0\n", n);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = test_info(hints);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    CHECK(rc == COLIO_ERR_HINT && fh == NULL, "a node missing from the topology file: got %d", rc);
    if (rc == COLIO_ERR_HINT)
        CHECK(strstr(colio_last_open_error(), "node") != NULL, "the message names the node: %s", colio_last_open_error());
    MPI_Info_free(&info);
    if (t_rank == 0)
        remove(topo);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "placement");
    one_rank_per_node(path);
    two_per_node(path);
    bad_topology(path);
    topology_file(path);
    test_unlink(path);
    return test_finish("test_placement");
}
