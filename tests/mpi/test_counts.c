/*
 * The sparse counts step (src/engine/counts.c) against the dense one: for
 * random patterns (each rank sends to a random subset of the aggregators,
 * some ranks to none, one to all), with 1 to p aggregators at random ranks,
 * under colio's p2p agreements, its shm ones (slots in node-shared memory
 * on the communicator, nodes of two ranks) and MPI's, the counts every aggregator
 * learns equal an MPI_Alltoall of the same words, and each rank posts
 * messages only to and from the aggregators that concern it. Drives the
 * engine's steps directly on a minimal file and operation.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/file.h"
#include "engine/arrays.h"
#include "engine/counts.h"
#include "engine/op.h"
#include "testutil.h"

static void run_case(const char *agreements, colio_coll_shm_t *seg, int naggs, uint64_t seed, int round)
{
    colio_file fh;
    memset(&fh, 0, sizeof fh);
    fh.comm = MPI_COMM_WORLD, fh.rank = t_rank, fh.nprocs = t_nprocs;
    colio_hints_default(&fh.hints);
    strcpy(fh.hints.counts, "sparse");
    colio_op_t *op = calloc(1, sizeof *op);
    op->fh = &fh, op->comm = MPI_COMM_WORLD, op->seq = round;
    op->tag_counts = 30000 + round % 1000;
    colio_coll_init(&op->coll, colio_coll_find(agreements), 29000 + round % 1000, seg);
    /* aggregators: naggs distinct ranks, the same on every rank */
    int *aggs = malloc(sizeof(int) * (size_t)naggs), my_agg = -1;
    uint64_t st = seed | 1;
    for (int i = 0; i < naggs; i++)
        aggs[i] = (int)((i * t_nprocs / naggs + test_xorshift(&st) % 2) % t_nprocs);
    for (int i = 1; i < naggs; i++) /* keep them distinct: take the next free rank on a clash */
        for (int j = 0; j < i; j++)
            if (aggs[j] == aggs[i])
                aggs[i] = (aggs[i] + 1) % t_nprocs, j = -1;
    for (int i = 0; i < naggs; i++)
        if (aggs[i] == t_rank)
            my_agg = i;
    colio_plan_t *p = &op->plan;
    p->naggs = naggs, p->aggs = aggs, p->my_agg = my_agg;
    p->to_agg = calloc((size_t)naggs, sizeof *p->to_agg);
    p->send_counts = calloc((size_t)(COLIO_COUNT_WORDS * t_nprocs), sizeof(int64_t));
    p->recv_counts = calloc((size_t)(COLIO_COUNT_WORDS * t_nprocs), sizeof(int64_t));
    uint64_t mine = (seed ^ (uint64_t)(t_rank + 1) * 0x9E3779B97F4A7C15ULL) | 1;
    int everything = t_rank == t_nprocs - 1, nothing = t_nprocs > 2 && t_rank == 1;
    for (int i = 0; i < naggs; i++) {
        int64_t runs = nothing ? 0 : everything ? 1 + (int64_t)(test_xorshift(&mine) % 9)
                                                : (int64_t)(test_xorshift(&mine) % 3) * 5;
        p->to_agg[i].n = runs; /* only the count matters to the step */
        int64_t *w = p->send_counts + COLIO_COUNT_WORDS * aggs[i];
        w[COLIO_CW_RUNS] = runs, w[COLIO_CW_BYTES] = runs * 37 + t_rank, w[COLIO_CW_META] = 1000 * t_rank + i;
    }
    int64_t *want = calloc((size_t)(COLIO_COUNT_WORDS * t_nprocs), sizeof(int64_t));
    MPI_Alltoall(p->send_counts, COLIO_COUNT_WORDS, MPI_INT64_T, want, COLIO_COUNT_WORDS, MPI_INT64_T, MPI_COMM_WORLD);
    CHECK(colio_counts_sparse(op), "colio_counts=sparse makes the step sparse");
    /* the step's arrays, as INIT takes them (sized by ranks and aggregators) */
    op->counts.senders = colio_pool_array_take(&fh.bufs, COLIO_ARR_CNT_SENDERS, sizeof(int64_t) * (size_t)(2 * naggs));
    op->counts.msg = colio_pool_array_take(&fh.bufs, COLIO_ARR_CNT_MSG,
                                      sizeof(int64_t) * (size_t)(COLIO_COUNTS_MSG_WORDS * (t_nprocs + naggs)));
    op->counts.reqs = colio_pool_array_take(&fh.bufs, COLIO_ARR_CNT_REQS, sizeof(MPI_Request) * (size_t)(t_nprocs + naggs));
    op->arr_naggs = naggs;
    colio_counts_start(op);
    while (op->phase == COLIO_PH_COUNTS_SENDERS || op->phase == COLIO_PH_COUNTS_MSGS)
        colio_op_step(op);
    CHECK(op->phase == COLIO_PH_COUNTS && op->err.code == 0, "%s, %d aggregators: the step ended in phase %d (%s)",
          agreements, naggs, (int)op->phase, op->err.msg);
    int64_t bad = 0;
    for (int s = 0; my_agg >= 0 && s < t_nprocs; s++)
        if (s == t_rank || want[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS] > 0)
            bad += memcmp(p->recv_counts + COLIO_COUNT_WORDS * s, want + COLIO_COUNT_WORDS * s,
                          sizeof(int64_t) * COLIO_COUNT_WORDS) != 0;
    CHECK(bad == 0, "%s, %d aggregators, round %d: %lld sources' counts differ from the alltoall's", agreements,
          naggs, round, (long long)bad);
    /* messages: my sends to aggregators I have runs for, my receives from my senders */
    int64_t sends = 0, recvs = 0;
    for (int i = 0; i < naggs; i++)
        sends += aggs[i] != t_rank && p->to_agg[i].n > 0;
    for (int s = 0; my_agg >= 0 && s < t_nprocs; s++)
        recvs += s != t_rank && want[COLIO_COUNT_WORDS * s + COLIO_CW_RUNS] > 0;
    CHECK(op->stats.meta_messages == sends + recvs, "%s: %lld messages posted, %lld expected", agreements,
          (long long)op->stats.meta_messages, (long long)(sends + recvs));
    colio_counts_free(op);
    colio_pool_free(&fh.bufs);
    free(want), free(p->to_agg), free(p->send_counts), free(p->recv_counts), free(aggs), free(op);
}

/* colio_counts=auto: dense below 16 ranks, sparse from 16 (where the aggregators allow: colio_counts_sparse). */
static void auto_threshold(void)
{
    colio_file fh;
    memset(&fh, 0, sizeof fh);
    colio_hints_default(&fh.hints);
    CHECK(strcmp(fh.hints.counts, "auto") == 0, "colio_counts defaults to auto");
    fh.nprocs = 15;
    CHECK(!colio_counts_may_be_sparse(&fh), "auto keeps the alltoall at 15 ranks");
    fh.nprocs = 16;
#ifdef COLIO_SMPI
    CHECK(!colio_counts_may_be_sparse(&fh), "SMPI keeps the alltoall at 16 ranks");
#else
    CHECK(colio_counts_may_be_sparse(&fh), "auto may go sparse from 16 ranks");
#endif
    strcpy(fh.hints.counts, "dense");
    CHECK(!colio_counts_may_be_sparse(&fh), "colio_counts=dense keeps the alltoall at 16 ranks");
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    auto_threshold();
    const char *agreements[] = {"p2p", "mpi", "shm"};
    static colio_coll_shm_t slots;
    colio_coll_shm_t *seg = &slots;
    CHECK(colio_coll_shm_create(MPI_COMM_WORLD, 2, seg) == MPI_SUCCESS, "slots in node-shared memory");
    MPI_Barrier(MPI_COMM_WORLD);
    int round = 0;
    for (int a = 0; a < 3; a++)
        for (int naggs = 1; naggs <= t_nprocs; naggs++)
            for (int k = 0; k < 4; k++, round++)
                run_case(agreements[a], a == 2 ? seg : NULL, naggs, 0x5EED0000u + (uint64_t)(100 * naggs + k), round);
    CHECK(seg->started > 0, "no allreduce of the counts step went through the slots");
    colio_coll_shm_free(seg);
    return test_finish("test_counts");
}
