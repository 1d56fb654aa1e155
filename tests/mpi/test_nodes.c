/*
 * colio sees the nodes the machine has. The expected node count comes from
 * outside colio: COLIO_TEST_NODES (the emulated cluster's runner,
 * tests/cluster/run.sh), else the number of distinct processor names. MPI
 * must agree (MPI_Comm_split_type(SHARED) groups, processor names), then:
 * a file created with colio_subfiles=node has exactly that many subfiles,
 * and a write of small interleaved pieces under default hints runs
 * two-phase with, across nodes, one aggregator per node, each on its own. Every byte
 * is checked against the same writes computed here. Hints that give colio
 * another node count (colio_node_size) fail it.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { PIECE = 16, PIECES = 512 }; /* per rank: interleaved, so that two-phase I/O pays */

/* Which node each rank is on (the lowest world rank of its SHARED group), and the node count. */
static int mpi_nodes(int *node_of)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lowest = t_rank;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    MPI_Allgather(&lowest, 1, MPI_INT, node_of, 1, MPI_INT, MPI_COMM_WORLD);
    int n = 0;
    for (int r = 0; r < t_nprocs; r++)
        n += node_of[r] == r;
    return n;
}

/* Distinct processor names (the hostnames of the emulated nodes). */
static int name_count(void)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(mine, &len);
    char *all = calloc((size_t)t_nprocs, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    int n = 0;
    for (int r = 0; r < t_nprocs; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0;
        n += !seen;
    }
    free(all);
    return n;
}

/* This rank's pieces: piece i of rank r at (i * nprocs + r) * PIECE; bytes by formula. */
static unsigned char byte_at(int64_t off) { return (unsigned char)(off * 13 + 7); }

static void my_pieces(MPI_Offset *off, MPI_Offset *len, unsigned char *data)
{
    for (int i = 0; i < PIECES; i++) {
        off[i] = ((int64_t)i * t_nprocs + t_rank) * PIECE;
        len[i] = PIECE;
        for (int k = 0; k < PIECE; k++)
            data[i * PIECE + k] = byte_at(off[i] + k);
    }
}

/* The whole file must be byte_at everywhere (every piece written by some rank). */
static void check_bytes(const char *path, const char *what)
{
    int64_t size = (int64_t)PIECES * t_nprocs * PIECE;
    unsigned char *img = malloc((size_t)size);
    for (int64_t x = 0; x < size; x++)
        img[x] = byte_at(x);
    CHECK(test_check_file(path, img, size, what) == 0, "%s: wrong bytes", what);
    free(img);
}

static int write_pieces(colio_file *fh, colio_stats *st)
{
    MPI_Offset *off = malloc(sizeof *off * PIECES), *len = malloc(sizeof *len * PIECES);
    unsigned char *data = malloc(PIECES * PIECE);
    my_pieces(off, len, data);
    int rc = colio_write_list_all(fh, PIECES, off, len, data);
    colio_get_stats(fh, st);
    free(off), free(len), free(data);
    return rc;
}

/* colio_subfiles=node: one subfile per node. */
static void subfiles_per_node(const char *path, int nodes)
{
    test_unlink(path);
    MPI_Info info = test_info("colio_subfiles=node");
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    expect_all(rc, COLIO_SUCCESS, fh, "open with colio_subfiles=node", NULL);
    colio_stats st;
    rc = write_pieces(fh, &st);
    expect_all(rc, COLIO_SUCCESS, fh, "write into the subfiles", NULL);
    expect_all(colio_close(&fh), COLIO_SUCCESS, NULL, "close", NULL);
    int n = t_rank == 0 ? test_subfile_count(path) : 0;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(n == nodes, "colio_subfiles=node made %d subfiles on %d nodes", n, nodes);
    check_bytes(path, "subfiled by node");
    test_unlink(path);
}

/* Two-phase I/O places one aggregator on each node. The path is forced: automatic mode weighs the
 * network it measured at the open (colio_network_probe), which a loaded machine can make slow enough
 * for the direct path to win; tests/unit/test_model_unit.c checks that choice on fixed figures. */
static void aggregators_per_node(const char *path, int nodes, const int *node_of)
{
    test_unlink(path);
    colio_file *fh = NULL;
    MPI_Info info = test_info("romio_cb_write=enable");
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    expect_all(rc, COLIO_SUCCESS, fh, "open", NULL);
    colio_stats st;
    rc = write_pieces(fh, &st);
    expect_all(rc, COLIO_SUCCESS, fh, "interleaved write", NULL);
    CHECK(t_nprocs == 1 || strcmp(st.last.strategy, "two-phase") == 0, "the write ran %s, expected two-phase",
          st.last.strategy); /* one rank's pieces are one piece */
    if (nodes == 1) { /* one node takes several (docs/PLACEMENT.md); subfiles_per_node tells a wrong count */
        expect_all(colio_close(&fh), COLIO_SUCCESS, NULL, "close", NULL);
        check_bytes(path, "two-phase write");
        test_unlink(path);
        return;
    }
    CHECK(st.last.aggregators == nodes, "%d aggregators on %d nodes", st.last.aggregators, nodes);
    int *agg = calloc((size_t)t_nprocs, sizeof *agg);
    MPI_Allgather(&st.last.is_aggregator, 1, MPI_INT, agg, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < t_nprocs; r++) {
        if (node_of[r] != r) /* one check per node */
            continue;
        int here = 0;
        for (int q = 0; q < t_nprocs; q++)
            here += agg[q] && node_of[q] == r;
        CHECK(here == 1, "node of rank %d holds %d aggregators, expected 1", r, here);
    }
    free(agg);
    expect_all(colio_close(&fh), COLIO_SUCCESS, NULL, "close", NULL);
    check_bytes(path, "two-phase write");
    test_unlink(path);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    const char *given = getenv("COLIO_TEST_NODES");
    int *node_of = malloc(sizeof *node_of * (size_t)t_nprocs);
    int nodes = mpi_nodes(node_of), names = name_count();
    int expected = given && *given ? atoi(given) : names;
    CHECK(nodes == expected, "MPI_Comm_split_type(SHARED) gives %d nodes, expected %d", nodes, expected);
    CHECK(names == expected, "%d distinct processor names, expected %d nodes", names, expected);
    if (t_rank == 0)
        printf("test_nodes: %d ranks on %d nodes\n", t_nprocs, nodes);
    char path[512];
    test_path(path, sizeof path, "nodes");
    subfiles_per_node(path, expected);
    aggregators_per_node(path, expected, node_of);
    free(node_of);
    return test_finish("test_nodes");
}
