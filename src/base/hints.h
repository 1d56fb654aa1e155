/*
 * Hints: parsed once from MPI_Info (and the COLIO_HINTS environment variable,
 * which wins) into a typed struct. Every key has one definition
 * (colio_hint_def_t): the shared ones in api/hints.c, a plug-in's own in its
 * file; the merged table drives parsing, validation, colio_get_info and the
 * HINTS.md reference.
 */
#ifndef COLIO_BASE_HINTS_H
#define COLIO_BASE_HINTS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define COLIO_NAME_LEN 32
#define COLIO_PATH_LEN 1024

typedef enum colio_toggle {
    COLIO_AUTOMATIC = 0,
    COLIO_ENABLE = 1,
    COLIO_DISABLE = 2,
} colio_toggle_t;

typedef struct colio_hints {
    int64_t cb_buffer_size;  /* bytes an aggregator handles per round, at most */
    int64_t round_size;      /* colio_round_size: bytes per round; 0: chosen (colio_file_choose_rounds) */
    int cb_nodes;            /* aggregators; 0 = one per node */
    colio_toggle_t cb_write; /* romio_cb_write */
    colio_toggle_t cb_read;  /* romio_cb_read */
    colio_toggle_t ds_write; /* romio_ds_write: read-modify-write of holes at aggregators */
    colio_toggle_t ds_read;  /* romio_ds_read: read whole extents at aggregators */
    colio_toggle_t place_metrics; /* colio_place_metrics: gather the pattern to measure the placement */
    int64_t striping_unit;   /* 0 = unknown; aligns file domains */
    int striping_factor;     /* recorded and reported; colio does not set striping */
    int no_indep_rw;         /* romio_no_indep_rw: never take the direct path */
    int express;             /* colio_express: one-piece blocking calls without the step machine (engine/path_express.h) */
    int network_probe;       /* colio_network_probe: measure the network between nodes at the first open (topo/probe.c) */
    colio_toggle_t lock_writes; /* colio_lock_writes: byte-range lock around each storage write (store/posix.c);
                                   automatic: while some rank's view is not one contiguous stretch (api/file.c) */
    colio_toggle_t direct_write; /* direct_write: storage writes of whole blocks with O_DIRECT (store/posix.c) */
    colio_toggle_t direct_read;  /* direct_read: ... reads */
    int64_t direct_min;      /* colio_direct_min: contiguous bytes per rank for the direct path */
    int64_t stage_bytes;     /* colio_stage_bytes: a blocking write's one piece up to this size goes to the
                                node's first rank through shared memory (engine/stage.c); 0: never */
    int64_t typed_min;       /* colio_typed_min: average piece size for derived-datatype messages */
    int read_sieve_ratio;    /* colio_read_sieve_ratio: automatic reads go independent below it (0: never) */
    int throttle;            /* colio_throttle: steps (receives) per window of the stepped kernels; 0 = unlimited */
    int node_size;           /* colio_node_size: emulate nodes of this many consecutive ranks; 0 = MPI's nodes */
    int auto_fanin;          /* colio_auto_fanin: auto sees all-to-many from this many peers per aggregator */
    int64_t auto_msg_max;    /* colio_auto_msg_max: ... when messages average at most this many bytes */
    int auto_throttle_from;  /* colio_auto_throttle_from: auto windows its sends from this many peers */
    int plan_cache;          /* colio_plan_cache: exchange plans kept for reuse; 0 = none */
    int64_t block_size;      /* colio_block_size: block of the block layout; 0 = st_blksize */
    int aggs_per_node;       /* colio_aggregators_per_node: default count per node and the placements' cap */
    int max_outstanding;     /* colio_max_outstanding: nonblocking operations in flight per file */
    int io_threads;          /* colio_io_threads: storage job threads per process */
    int pipeline;            /* colio_pipeline: collective buffers per aggregator, 2 overlaps storage I/O with the exchange */
    int null_latency_us;     /* colio_null_latency: null backend, microseconds per access */
    int64_t null_bandwidth;  /* colio_null_bandwidth: null backend, bytes per second; 0 = unlimited */
    int64_t null_block;      /* colio_null_block: null backend, block whose partial writes cost extra; 0 = none */
    int64_t subfile_stripe;  /* colio_subfile_stripe: bytes dealt to each subfile in turn; 0 = striping_unit or 1 MiB */
    char rank_list[COLIO_NAME_LEN];     /* colio_rank_list: linear or node */
    char local_aggs[COLIO_NAME_LEN];    /* colio_local_aggregators: "*:N" per node or "N" in all */
    char exchange[COLIO_NAME_LEN];      /* data exchange kernel */
    char meta_exchange[COLIO_NAME_LEN]; /* metadata exchange kernel; "" = same as exchange */
    char placement[COLIO_NAME_LEN];     /* aggregator placement strategy */
    char domain[COLIO_NAME_LEN];        /* file-domain layout */
    char backend[COLIO_NAME_LEN];       /* storage backend */
    char progress[COLIO_NAME_LEN];      /* colio_progress: auto, none or thread */
    char io_executor[COLIO_NAME_LEN];   /* colio_io_executor: threads, uring or inline (exec/exec.h) */
    char agreements[COLIO_NAME_LEN];    /* colio_agreements: mpi or p2p (coll/coll.h) */
    char counts[COLIO_NAME_LEN];        /* colio_counts: auto, dense or sparse (engine/counts.c) */
    char subfiles[COLIO_NAME_LEN];      /* colio_subfiles: none, N, node, group:K, ionode (subfile/layout.h) */
    char fault[COLIO_NAME_LEN * 2];     /* fault-injection spec for the "fault" backend */
    char stats_path[COLIO_PATH_LEN];    /* colio_stats: JSON lines appended per operation */
    char storage_model[256];            /* colio_storage_model: probe, off, or figures (store/cost.h) */
    char storage_cache[COLIO_PATH_LEN]; /* colio_storage_cache: the probe's cache file; "" default, "none" */
    char null_route[COLIO_PATH_LEN];    /* colio_null_route: null backend under SMPI, host -> storage host map */
    char topology[COLIO_PATH_LEN];      /* colio_topology: network model spec (topo/net.h) */
} colio_hints_t;

/*
 * One hint key: its kind, the field of colio_hints_t it fills, its bounds
 * or validator, its default (as text a plug-in's default is parsed from)
 * and its reference line. The shared keys are in api/hints.c; a key that
 * one plug-in alone reads is declared in the plug-in's file and named by
 * its ops table (hints), and the registry merges them all into the one
 * table colio parses, reports and documents (docs/HINTS.md).
 */
typedef enum colio_hint_kind {
    COLIO_HINT_BYTES,
    COLIO_HINT_INT,
    COLIO_HINT_TOGGLE,
    COLIO_HINT_BOOL,
    COLIO_HINT_NAME,
    COLIO_HINT_PATH,
} colio_hint_kind_t;

typedef struct colio_hint_def {
    const char *key;        /* NULL ends a plug-in's list */
    colio_hint_kind_t kind;
    size_t offset;          /* into colio_hints_t */
    size_t size;            /* for names and paths */
    int64_t min, max;       /* for numbers */
    int (*valid)(const char *text); /* for names and paths: is the text acceptable? (NULL: any that fits) */
    const char *dflt;       /* default, as text, for the reference */
    const char *doc;
} colio_hint_def_t;

#define COLIO_HINT_FIELD(field) __builtin_offsetof(colio_hints_t, field), sizeof(((colio_hints_t *)0)->field)

/* Defaults for every key. */
void colio_hints_default(colio_hints_t *h);

/*
 * Apply MPI_Info (may be MPI_INFO_NULL) then COLIO_HINTS on top of *h.
 * Unknown keys are ignored; a known key with a bad value leaves *h unchanged
 * and returns COLIO_ERR_HINT with a message naming the key.
 */
int colio_hints_apply(colio_hints_t *h, MPI_Info info, colio_err_t *err);

/* Apply one key=value (used by both sources). */
int colio_hints_set(colio_hints_t *h, const char *key, const char *value, colio_err_t *err);

/*
 * The value reported for key (MPI_File_get_info style): cb_nodes is the
 * aggregator count in effect (naggs), an unset colio_meta_exchange is
 * colio_exchange's. COLIO_ERR_ARG for an unknown key.
 */
int colio_hints_report(const colio_hints_t *h, int naggs, const char *key, char *out, int outlen);

/* Value of one key as text (for get_info and diagnostics). */
int colio_hints_get(const colio_hints_t *h, const char *key, char *out, int outlen);

/* Iterate the table: key and documentation of entry i, NULL past the end. */
const char *colio_hints_key(int i, const char **doc, const char **dflt);

#endif
