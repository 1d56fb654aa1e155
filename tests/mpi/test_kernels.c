/*
 * What the exchange kernels promise beyond the bytes (the correctness
 * matrix runs once per kernel elsewhere): the statistics name the kernel
 * that ran, automatic selection follows its thresholds, the throttle bounds
 * the requests in flight, the exchange spread is agreed on every rank, and
 * colio_node_size emulates nodes for placement. Every call's bytes are
 * checked against the ownership formula.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define BLOCK 16

/* Every rank owns every p-th BLOCK-byte block: each aggregator hears from every rank. */
static void all_to_all(const char *path, const char *hints, colio_op_stats *out)
{
    int64_t nblocks = 8 * (int64_t)t_nprocs, size = nblocks * BLOCK;
    test_prefill(path, size);
    MPI_Info info = test_info(hints);
    MPI_Info_set(info, "romio_cb_write", "enable");
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    MPI_Datatype blk, ftype;
    MPI_Type_contiguous(BLOCK, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)BLOCK * t_nprocs, &ftype);
    MPI_Type_commit(&ftype);
    colio_set_view(fh, (MPI_Offset)t_rank * BLOCK, MPI_BYTE, ftype, MPI_INFO_NULL);
    int64_t n = 8 * BLOCK;
    unsigned char *buf = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++)
        buf[i] = pattern_new(t_rank, i, 3);
    CHECK_RC(tu_write_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    colio_stats st;
    colio_get_stats(fh, &st);
    *out = st.last;
    colio_close(&fh);
    MPI_Type_free(&blk);
    MPI_Type_free(&ftype);
    free(buf);
    if (t_rank == 0) {
        unsigned char *f = malloc((size_t)size);
        test_read_file(path, f, size);
        int bad = 0;
        for (int64_t x = 0; x < size; x++) {
            int64_t b = x / BLOCK;
            int owner = (int)(b % t_nprocs);
            bad += f[x] != pattern_new(owner, (b / t_nprocs) * BLOCK + x % BLOCK, 3);
        }
        CHECK(bad == 0, "%s: %d wrong bytes", hints, bad);
        free(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A statistic that must be the same on every rank. */
static int same_everywhere(int64_t v)
{
    int64_t lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

static void kernels_and_counts(const char *path)
{
    const char *kernels[] = {"romio", "issend", "spread", "balanced", "pairwise"};
    int p = t_nprocs;
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        char hints[256];
        snprintf(hints, sizeof hints, "colio_exchange=%s;cb_nodes=%d;colio_throttle=1", kernels[k], p);
        colio_op_stats s;
        all_to_all(path, hints, &s);
        CHECK(strcmp(s.data_kernel, kernels[k]) == 0 && strcmp(s.meta_kernel, kernels[k]) == 0,
              "%s: stats name %s/%s", kernels[k], s.meta_kernel, s.data_kernel);
        /* every rank is an aggregator and hears from every other: one round, one message per pair and phase */
        CHECK(s.max_fanin == p - 1, "%s: fan-in %lld, expected %d", kernels[k], (long long)s.max_fanin, p - 1);
        CHECK(s.messages == 4 * (p - 1), "%s: %lld messages, expected %d", kernels[k], (long long)s.messages, 4 * (p - 1));
        int64_t bound = k < 2 ? 2 * (p - 1) : (p > 1 ? 2 : 0); /* post-all kernels: everything; stepped: one step */
        CHECK(k < 2 ? s.max_requests == bound : s.max_requests <= bound, "%s: %lld requests in flight, bound %lld",
              kernels[k], (long long)s.max_requests, (long long)bound);
        CHECK(s.exchange_min >= 0 && s.exchange_min <= s.exchange_max, "%s: exchange spread %g..%g", kernels[k],
              s.exchange_min, s.exchange_max);
        CHECK(same_everywhere((int64_t)(s.exchange_max * 1e9)) && same_everywhere((int64_t)(s.exchange_min * 1e9)),
              "%s: the exchange spread is agreed", kernels[k]);
    }
}

/*
 * auto: all-to-many with small messages -> issend below colio_auto_throttle_from peers, balanced from it;
 * below the fan-in threshold or with large messages -> romio.
 */
static void automatic(const char *path)
{
    int p = t_nprocs;
    char hints[256];
    colio_op_stats s;
    for (int from = 0; from < 2; from++) {
        snprintf(hints, sizeof hints, "cb_nodes=%d;colio_auto_fanin=1;colio_auto_msg_max=1m;colio_auto_throttle_from=%s",
                 p, from ? "1" : "100000");
        all_to_all(path, hints, &s);
        const char *want = p == 1 ? "romio" : from ? "balanced" : "issend"; /* one rank: no peers at all */
        CHECK(strcmp(s.data_kernel, want) == 0 && strcmp(s.meta_kernel, want) == 0,
              "auto with fan-in 1, throttle from %s: %s/%s, expected %s", from ? "1" : "100000", s.meta_kernel,
              s.data_kernel, want);
    }
    snprintf(hints, sizeof hints, "cb_nodes=%d;colio_auto_fanin=1;colio_auto_msg_max=0", p);
    all_to_all(path, hints, &s);
    CHECK(strcmp(s.data_kernel, "romio") == 0, "auto with large messages: %s", s.data_kernel);
    snprintf(hints, sizeof hints, "cb_nodes=%d;colio_auto_fanin=100000", p);
    all_to_all(path, hints, &s);
    CHECK(strcmp(s.data_kernel, "romio") == 0 && strcmp(s.meta_kernel, "romio") == 0, "auto with a small fan-in: %s/%s",
          s.meta_kernel, s.data_kernel);
}

/*
 * colio_node_size: one aggregator per emulated node by default; on a job of
 * one node this write of 16-byte pieces takes every rank (the wide set).
 */
static void emulated_nodes(const char *path)
{
    for (int size = 1; size <= 3; size++) {
        char hints[128];
        snprintf(hints, sizeof hints, "colio_node_size=%d;colio_rank_list=node;colio_exchange=balanced", size);
        colio_op_stats s;
        all_to_all(path, hints, &s);
        int nodes = (t_nprocs + size - 1) / size, want = nodes > 1 ? nodes : t_nprocs;
        CHECK(s.aggregators == want, "node size %d: %d aggregators, expected %d", size, s.aggregators, want);
    }
}

/*
 * The work counters the simulator's compute model charges (base/charge.h):
 * with one aggregator, every rank's 8 blocks arrive there (8 p pieces on
 * the aggregator's side) and every other rank sends its 8 (8 (p - 1) on the
 * requesters' side); each rank walked at least its request's one strided
 * run twice (built, split); the aggregator copied at least its own 8 blocks.
 * (On one rank the blocks touch: one piece.)
 */
static void work_counters(const char *path)
{
    if (t_nprocs < 2)
        return;
    colio_op_stats s;
    all_to_all(path, "cb_nodes=1", &s);
    int64_t pieces = s.work_pieces, sum = 0, aggs_copied = s.is_aggregator ? s.work_bytes : 0, copied = 0;
    MPI_Allreduce(&pieces, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&aggs_copied, &copied, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == 16 * (int64_t)t_nprocs - 8, "work_pieces over all ranks %lld, expected %lld", (long long)sum,
          (long long)(16 * (int64_t)t_nprocs - 8));
    CHECK(s.work_runs >= 2, "work_runs %lld: the request is built and split", (long long)s.work_runs);
    CHECK(copied >= 8 * BLOCK, "the aggregator copied %lld bytes, at least its own %d", (long long)copied, 8 * BLOCK);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "kernels");
    unsetenv("COLIO_HINTS"); /* this test sets its own */
    kernels_and_counts(path);
    automatic(path);
    emulated_nodes(path);
    work_counters(path);
    test_unlink(path);
    return test_finish("test_kernels");
}
