/*
 * The words of an operation's agreements (int64_t each). Every agreement
 * starts with the error key (colio_err_key: MIN gives the most severe error
 * of the lowest rank). A maximum travels as the MIN of its negation (*_neg).
 *
 * SETUP's words are records, each filled by the part of the engine that
 * reads it (engine/path.h, "propose"): the call's own, one per call path
 * that needs words, and the chooser's description of the call. The records
 * reduced by MIN come first, then those reduced by saturating SUM
 * (setup_reduce, engine/step.c). READY and FINAL are MIN throughout.
 */
#ifndef COLIO_ENGINE_WORDS_H
#define COLIO_ENGINE_WORDS_H

#include <stdint.h>

/* A rank with no pieces fits a stored plan at any offset: it leaves the agreed shift to the others. */
#define COLIO_PLAN_SHIFT_ANY INT64_MAX

/* The call (engine/setup.c): errors, the global extent, the end of file. MIN. */
typedef struct colio_setup_call {
    int64_t err_key;
    int64_t lo, hi_neg;           /* my extent [lo, hi) -> the global extent (INT64_MAX: no pieces) */
    int64_t eof_neg;              /* reads: -(file size) from rank 0, INT64_MAX elsewhere */
} colio_setup_call_t;

/* The direct path (engine/path_direct.c). MIN. */
typedef struct colio_setup_direct {
    int64_t eligible;             /* -1 pieces overlap (direct only), 0 no, 1 large pieces or none */
} colio_setup_direct_t;

/* Two-phase I/O (engine/path_two_phase.c): the stored plan proposed, the lists' records. MIN. */
typedef struct colio_setup_two_phase {
    int64_t plan_id, plan_id_neg; /* the stored plan proposed (plancache.h): the same everywhere when equal */
    int64_t plan_shift, plan_shift_neg; /* ... at this offset from it (COLIO_PLAN_SHIFT_ANY both: no pieces) */
    int64_t piece_meta;           /* 1: my pieces as two words each take no more room than my runs as four
                                     -> a record per piece when so on every rank, two words or one packed
                                     (access/split.h) */
} colio_setup_two_phase_t;

/* The chooser (engine/strategy.c): the busiest rank's share, MIN of negations. */
typedef struct colio_setup_busiest {
    int64_t pieces_neg, bytes_neg, extent_neg;
} colio_setup_busiest_t;

/* The chooser: every rank's extent, bytes, pieces and runs (a strided run holds several pieces). SUM. */
typedef struct colio_setup_totals {
    int64_t extent, bytes, pieces, runs;
} colio_setup_totals_t;

/* Staged small writes (engine/path_staged.c): ranks whose piece waits in node-shared memory. SUM. */
typedef struct colio_setup_staged {
    int64_t ranks;
} colio_setup_staged_t;

typedef struct colio_setup_words {
    /* reduced by MIN */
    colio_setup_call_t call;
    colio_setup_direct_t direct;
    colio_setup_two_phase_t two_phase;
    colio_setup_busiest_t busiest;
    /* reduced by SUM */
    colio_setup_totals_t totals;
    colio_setup_staged_t staged;
} colio_setup_words_t;

#define COLIO_WORDS(type) ((int)(sizeof(type) / sizeof(int64_t)))
#define COLIO_SETUP_WORDS COLIO_WORDS(colio_setup_words_t)
#define COLIO_SETUP_MIN ((int)(__builtin_offsetof(colio_setup_words_t, totals) / sizeof(int64_t)))

typedef struct colio_ready_words {
    int64_t err_key;
    int64_t peers_neg;            /* the most peers one aggregator hears from */
    int64_t meta_bytes_neg;       /* the largest average metadata message */
    int64_t data_bytes_neg;       /* the largest average data message per round */
} colio_ready_words_t;

typedef struct colio_final_words {
    int64_t err_key;
    int64_t exchange_ns, exchange_ns_neg; /* the fastest and slowest rank's exchange time */
} colio_final_words_t;

typedef union colio_agree_words {
    int64_t err_key;              /* the first word of each */
    colio_setup_words_t setup;
    colio_ready_words_t ready;
    colio_final_words_t final;
} colio_agree_words_t;

#endif
