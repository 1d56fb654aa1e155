/* Hint parsing without MPI traffic: values, units, toggles, plug-in names, COLIO_HINTS. */
#include <stdlib.h>
#include <string.h>

#include "base/hints.h"
#include "store/store.h"
#include "testutil.h"

static int set(colio_hints_t *h, const char *k, const char *v)
{
    colio_err_t e = {0};
    return colio_hints_set(h, k, v, &e);
}

/*
 * The default a key's reference gives (docs/HINTS.md) is the value a file
 * starts with: that text, set on defaults, changes nothing. (colio_lock_writes
 * documented disable while the defaults held automatic, enum value 0.) Three
 * references describe their default in words instead.
 */
static void check_documented_default(const char *key, const char *dflt)
{
    static const char *const prose[] = {"cb_nodes", "colio_meta_exchange", "colio_storage_cache"};
    for (size_t i = 0; i < sizeof prose / sizeof prose[0]; i++)
        if (strcmp(key, prose[i]) == 0)
            return;
    colio_hints_t plain, documented;
    colio_hints_default(&plain);
    colio_hints_default(&documented);
    char got[256] = "", want[256] = "";
    int rc = set(&documented, key, dflt);
    colio_hints_get(&plain, key, got, sizeof got);
    colio_hints_get(&documented, key, want, sizeof want);
    CHECK(rc == 0 && strcmp(got, want) == 0, "%s: documented default \"%s\" (%s), the defaults hold \"%s\"", key,
          dflt, want, got);
}

int main(void)
{
    colio_hints_t h;
    colio_hints_default(&h);
    CHECK(h.cb_buffer_size == 16 << 20 && h.cb_nodes == 0 && h.cb_write == COLIO_AUTOMATIC, "defaults");
    CHECK(strcmp(h.exchange, "auto") == 0 && strcmp(h.backend, "posix") == 0, "default plug-ins");
    CHECK(h.throttle == 32 && strcmp(h.rank_list, "linear") == 0 && strcmp(h.local_aggs, "*:1") == 0,
          "exchange defaults: throttle 32, linear rank list, one local aggregator per node");
    const char *kernels[] = {"romio", "issend", "spread", "balanced", "pairwise", "tam", "auto"};
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        CHECK(set(&h, "colio_exchange", kernels[i]) == 0 && set(&h, "colio_meta_exchange", kernels[i]) == 0,
              "kernel %s accepted", kernels[i]);
    CHECK(set(&h, "colio_exchange", "alltoall") == COLIO_ERR_HINT, "unknown kernel rejected");
    CHECK(set(&h, "colio_throttle", "0") == 0 && h.throttle == 0, "throttle 0 = unlimited");
    CHECK(set(&h, "colio_throttle", "-1") == COLIO_ERR_HINT, "negative throttle rejected");
    CHECK(set(&h, "colio_rank_list", "node") == 0 && set(&h, "colio_rank_list", "random") == COLIO_ERR_HINT,
          "rank lists: linear and node only");
    const char *good_la[] = {"*:1", "*:4", "512", "1"}, *bad_la[] = {"*:0", "0", "*:", "x", "4x", "-2", "*:-1"};
    for (size_t i = 0; i < sizeof good_la / sizeof *good_la; i++)
        CHECK(set(&h, "colio_local_aggregators", good_la[i]) == 0, "local aggregators %s accepted", good_la[i]);
    for (size_t i = 0; i < sizeof bad_la / sizeof *bad_la; i++)
        CHECK(set(&h, "colio_local_aggregators", bad_la[i]) == COLIO_ERR_HINT, "local aggregators %s rejected", bad_la[i]);

    CHECK(set(&h, "cb_buffer_size", "4096") == 0 && h.cb_buffer_size == 4096, "plain bytes");
    CHECK(set(&h, "cb_buffer_size", "16m") == 0 && h.cb_buffer_size == 16 << 20, "16m");
    CHECK(set(&h, "cb_buffer_size", " 2GiB ") == 0 && h.cb_buffer_size == (int64_t)2 << 30, "2GiB with spaces");
    CHECK(set(&h, "cb_buffer_size", "1k") == 0 && h.cb_buffer_size == 1024, "1k");
    const char *bad_sizes[] = {"-5", "0", "abc", "12x", "", "1kk", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; i++) {
        colio_err_t e = {0};
        CHECK(colio_hints_set(&h, "cb_buffer_size", bad_sizes[i], &e) == COLIO_ERR_HINT, "rejects \"%s\"", bad_sizes[i]);
        CHECK(strstr(e.msg, "cb_buffer_size") != NULL, "message names the key: %s", e.msg);
        CHECK(h.cb_buffer_size == 1024, "a rejected value leaves the hint unchanged");
    }
    CHECK(set(&h, "cb_nodes", "3") == 0 && h.cb_nodes == 3, "cb_nodes");
    CHECK(set(&h, "cb_nodes", "0") == COLIO_ERR_HINT && set(&h, "cb_nodes", "2k") == COLIO_ERR_HINT, "cb_nodes range");
    CHECK(set(&h, "romio_cb_write", "Enable") == 0 && h.cb_write == COLIO_ENABLE, "toggle, any case");
    CHECK(set(&h, "romio_cb_read", "disable") == 0 && h.cb_read == COLIO_DISABLE, "toggle disable");
    CHECK(set(&h, "romio_ds_write", "maybe") == COLIO_ERR_HINT, "bad toggle");
    CHECK(set(&h, "romio_no_indep_rw", "true") == 0 && h.no_indep_rw == 1, "bool true");
    CHECK(set(&h, "romio_no_indep_rw", "false") == 0 && h.no_indep_rw == 0, "bool false");
    CHECK(set(&h, "romio_no_indep_rw", "perhaps") == COLIO_ERR_HINT, "bad bool");
    CHECK(set(&h, "colio_exchange", "romio") == 0, "known kernel");
    CHECK(set(&h, "colio_exchange", "warp-drive") == COLIO_ERR_HINT, "unknown kernel");
    CHECK(set(&h, "colio_placement", "nope") == COLIO_ERR_HINT, "unknown placement");
    CHECK(set(&h, "colio_domain", "even") == 0, "known domain layout");
    CHECK(set(&h, "colio_backend", "fault") == 0 && set(&h, "colio_backend", "tape") == COLIO_ERR_HINT, "backends");
    CHECK(set(&h, "colio_fault", "write:2:ENOSPC:1") == 0, "fault spec");
    colio_fault_spec_t f0;
    CHECK(colio_fault_parse("delay:250", &f0) == 0 && f0.op == COLIO_FAULT_DELAY && f0.nth == 250, "delay spec");
    const char *bad_faults[] = {"write", "write:0", "burn:1", "write:1:EWHAT", "write:1:EIO:-1", "a:b:c:d:e",
                                "delay:0", "delay:10:EIO"};
    for (size_t i = 0; i < sizeof bad_faults / sizeof *bad_faults; i++)
        CHECK(set(&h, "colio_fault", bad_faults[i]) == COLIO_ERR_HINT, "fault spec \"%s\"", bad_faults[i]);
    colio_fault_spec_t f;
    CHECK(colio_fault_parse("read:3:EIO:2", &f) == 0 && f.op == COLIO_FAULT_READ && f.nth == 3 && f.rank == 2, "parse");
    CHECK(h.pipeline == 0 && set(&h, "colio_pipeline", "1") == 0 && h.pipeline == 1 &&
              set(&h, "colio_pipeline", "2") == 0 && h.pipeline == 2 && set(&h, "colio_pipeline", "0") == 0 &&
              h.pipeline == 0,
          "colio_pipeline: automatic (0) by default, 1 and 2 forced");
    CHECK(set(&h, "colio_pipeline", "3") == COLIO_ERR_HINT && set(&h, "colio_pipeline", "-1") == COLIO_ERR_HINT,
          "colio_pipeline out of range");
    CHECK(set(&h, "colio_backend", "null") == 0, "null backend");
    CHECK(set(&h, "colio_null_bandwidth", "1g") == 0 && h.null_bandwidth == (int64_t)1 << 30, "null bandwidth");
    CHECK(set(&h, "colio_null_latency", "250") == 0 && h.null_latency_us == 250, "null latency");
    CHECK(set(&h, "colio_null_block", "8m") == 0 && h.null_block == 8 << 20, "null block");
    CHECK(set(&h, "colio_null_latency", "-1") == COLIO_ERR_HINT && set(&h, "colio_null_bandwidth", "fast") == COLIO_ERR_HINT,
          "null model out of range");
    /* the storage route needs SimGrid's network: outside the SMPI build only the empty value is valid */
    CHECK(set(&h, "colio_null_route", "sim/platforms/mira.storage") == COLIO_ERR_HINT &&
              set(&h, "colio_null_route", "") == 0 && h.null_route[0] == '\0', "colio_null_route outside SMPI");
    CHECK(!strcmp(h.agreements, "shm") && set(&h, "colio_agreements", "mpi") == 0 && !strcmp(h.agreements, "mpi") &&
              set(&h, "colio_agreements", "p2p") == 0 && !strcmp(h.agreements, "p2p") &&
              set(&h, "colio_agreements", "ring") == COLIO_ERR_HINT, "colio_agreements");
    CHECK(set(&h, "no_such_key", "x") == 0, "unknown keys are ignored");

    /* COLIO_HINTS on top of an empty info */
    colio_hints_default(&h);
    setenv("COLIO_HINTS", "cb_buffer_size=8k;;romio_cb_write = disable ;", 1);
    colio_err_t e = {0};
    CHECK(colio_hints_apply(&h, MPI_INFO_NULL, &e) == 0 && h.cb_buffer_size == 8192 && h.cb_write == COLIO_DISABLE,
          "COLIO_HINTS applied: %s", e.msg);
    setenv("COLIO_HINTS", "cb_nodes=2;garbage", 1);
    colio_hints_default(&h);
    CHECK(colio_hints_apply(&h, MPI_INFO_NULL, &e) == COLIO_ERR_HINT && h.cb_nodes == 0,
          "a bad COLIO_HINTS item fails and changes nothing");
    unsetenv("COLIO_HINTS");

    char v[64];
    colio_hints_default(&h);
    CHECK(colio_hints_get(&h, "romio_ds_read", v, sizeof v) == 0 && strcmp(v, "automatic") == 0, "get toggle");
    int n = 0;
    for (const char *doc, *dflt; colio_hints_key(n, &doc, &dflt); n++) {
        CHECK(doc[0] != '\0', "key %d documented", n);
        check_documented_default(colio_hints_key(n, NULL, NULL), dflt);
    }
    CHECK(n >= 15, "hint table has %d keys", n);
    return unit_finish("test_hints_unit");
}
