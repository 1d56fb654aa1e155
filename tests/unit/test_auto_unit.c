/*
 * The automatic exchange-kernel choice (src/exchange/auto.c) as the pure
 * function it is: ROMIO's post-all kernel below the fan-in or above the
 * message size, issend for an all-to-many exchange below
 * colio_auto_throttle_from peers, balanced from it; the boundaries exactly
 * at the hints' values; every kernel it returns is among the candidates the
 * engine reserves for; and the kernel table's optional needs (NULL-safe
 * helpers, TAM's own).
 */
#include <string.h>

#include "exchange/kernels.h"
#include "testutil.h"

static const char *choose(int64_t peers, int64_t msg)
{
    colio_xchg_auto_in_t in = {.peers = peers, .msg_bytes = msg, .fanin = 16, .msg_max = 65536, .throttle_from = 2048};
    return colio_xchg_auto(&in)->name;
}

static void check_rule(void)
{
    static const struct {
        int64_t peers, msg;
        const char *want;
    } cases[] = {
        {15, 64, "romio"},         /* fan-in one short of the hint */
        {16, 64, "issend"},        /* at the hint: all-to-many, below the throttle threshold */
        {16, 65536, "issend"},     /* message size at the hint still counts as small */
        {16, 65537, "romio"},      /* one byte more: large messages */
        {511, 4096, "issend"},     /* 512 ranks all writing to one aggregator */
        {1023, 4096, "issend"},    /* 1,024 ranks: issend was the fastest kernel in the simulations (SCALE.md) */
        {2047, 4096, "issend"},    /* one short of colio_auto_throttle_from */
        {2048, 4096, "balanced"},  /* at it: windows of colio_throttle */
        {4095, 8, "balanced"},     /* Kang et al.'s scale, 4,096 ranks */
        {4096, 1 << 20, "romio"},  /* many peers, large messages: nothing to throttle */
        {0, 0, "romio"},           /* no exchange at all */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = choose(cases[i].peers, cases[i].msg);
        CHECK(strcmp(got, cases[i].want) == 0, "case %zu: peers %lld msg %lld: got %s, want %s", i,
              (long long)cases[i].peers, (long long)cases[i].msg, got, cases[i].want);
    }
}

static int is_candidate(const colio_xchg_ops_t *k)
{
    for (const colio_xchg_ops_t *const *c = colio_xchg_auto_candidates(); *c; c++)
        if (*c == k)
            return 1;
    return 0;
}

static void check_candidates(void)
{
    for (int64_t peers = 0; peers <= 2048; peers = peers ? 2 * peers : 1)
        for (int64_t msg = 1; msg <= (1 << 20); msg *= 8)
            for (int64_t from = 1; from <= 4096; from *= 4) {
                colio_xchg_auto_in_t in = {.peers = peers, .msg_bytes = msg, .fanin = 16, .msg_max = 65536,
                                           .throttle_from = from};
                const colio_xchg_ops_t *k = colio_xchg_auto(&in);
                CHECK(is_candidate(k), "auto chose %s, not among the candidates", k->name);
            }
}

static void check_needs(void)
{
    CHECK(colio_xchg_extra_requests(NULL, NULL, 0) == 0, "no kernel: no extra requests");
    CHECK(colio_xchg_scratch_bytes(&colio_xchg_romio, NULL, 0) == 0, "romio: no scratch");
    CHECK(!colio_xchg_every_round(&colio_xchg_balanced, NULL, 0), "balanced: only its own rounds");
    /* TAM on 4 ranks in 2 groups of 2 (0 leads 1, 2 leads 3), aggregators 0 and 2 */
    int la_of[4] = {0, 0, 2, 2}, group_size[4] = {2, 0, 2, 0};
    colio_xchg_ctx_t c = {.nprocs = 4, .naggs = 2, .la_of = la_of, .nla = 2, .group_size = group_size};
    for (int r = 0; r < 4; r++)
        CHECK(colio_xchg_every_round(&colio_xchg_tam, &c, r), "tam: rank %d is grouped", r);
    CHECK(colio_xchg_extra_requests(&colio_xchg_tam, &c, 0) > 0, "tam: a local aggregator needs requests");
    CHECK(colio_xchg_scratch_bytes(&colio_xchg_tam, &c, 0) > 0, "tam: a local aggregator needs scratch");
    int alone_la[4] = {0, 1, 2, 3}, alone_size[4] = {1, 1, 1, 1};
    c.la_of = alone_la, c.group_size = alone_size, c.nla = 4;
    CHECK(!colio_xchg_every_round(&colio_xchg_tam, &c, 1), "tam: a rank alone keeps to its own rounds");
}

int main(void)
{
    check_rule();
    check_candidates();
    check_needs();
    return unit_finish("test_auto_unit");
}
