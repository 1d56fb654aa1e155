/*
 * What the network between nodes costs, measured (topo/topo.h,
 * colio_topo_probe_net): the first ranks of the first two nodes ping-pong
 * small messages (latency: half the median round trip) and 1 MiB ones
 * (bandwidth: the bytes over the median half round trip less the latency),
 * the others wait for rank 0's broadcast of the result. The path choice
 * weighs two-phase I/O's exchange with these (engine/strategy.c); colio's
 * defaults (1 us, 10 GB/s) are a fast fabric's, 5x and 7x off over TCP
 * between emulated nodes, 50x at 1 Gbit/s (bench/cross-node.sh,
 * docs/PERFORMANCE.md "Across nodes").
 */
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

#define PROBE_SMALL 8
#define PROBE_SMALL_TRIPS 15
#define PROBE_LARGE (1 << 20)
#define PROBE_LARGE_TRIPS 3
#define PROBE_TAG 7311

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median half round trip of `trips` exchanges of n bytes between me and peer (first: the one who sends first). */
static double half_round_trip(MPI_Comm comm, int peer, int first, char *buf, int n, int trips)
{
    double t[PROBE_SMALL_TRIPS > PROBE_LARGE_TRIPS ? PROBE_SMALL_TRIPS : PROBE_LARGE_TRIPS];
    for (int i = 0; i <= trips; i++) { /* the first trip sets the connection up: not counted */
        double t0 = MPI_Wtime();
        if (first) {
            MPI_Send(buf, n, MPI_BYTE, peer, PROBE_TAG, comm);
            MPI_Recv(buf, n, MPI_BYTE, peer, PROBE_TAG, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, n, MPI_BYTE, peer, PROBE_TAG, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, peer, PROBE_TAG, comm);
        }
        if (i > 0)
            t[i - 1] = (MPI_Wtime() - t0) / 2;
    }
    qsort(t, (size_t)trips, sizeof *t, cmp_double);
    return t[trips / 2];
}

int colio_topo_probe_net(MPI_Comm comm, colio_topo_t *topo)
{
    topo->net_latency = topo->net_bandwidth = 0;
    if (topo->nnodes < 2)
        return COLIO_SUCCESS;
    int rank, a = 0, b = -1;
    MPI_Comm_rank(comm, &rank);
    for (int r = 0; r < topo->nprocs && b < 0; r++)
        if (topo->node_of[r] == 1 && topo->local_rank[r] == 0)
            b = r;
    double figures[2] = {0, 0};
    if (rank == a || rank == b) {
        char *buf = calloc(1, PROBE_LARGE);
        if (buf) { /* both or neither: the peer would wait (a failed calloc of 1 MiB is the end anyway) */
            double lat = half_round_trip(comm, rank == a ? b : a, rank == a, buf, PROBE_SMALL, PROBE_SMALL_TRIPS);
            double big = half_round_trip(comm, rank == a ? b : a, rank == a, buf, PROBE_LARGE, PROBE_LARGE_TRIPS);
            figures[0] = lat;
            figures[1] = big > lat ? PROBE_LARGE / (big - lat) : 0;
            free(buf);
        }
    }
    int rc = MPI_Bcast(figures, 2, MPI_DOUBLE, a, comm);
    if (rc != MPI_SUCCESS)
        return COLIO_ERR_MPI;
    topo->net_latency = figures[0] > 0 ? figures[0] : 0;
    topo->net_bandwidth = figures[1] > 0 ? figures[1] : 0;
    return COLIO_SUCCESS;
}
