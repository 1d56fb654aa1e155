/*
 * A call path: one way a collective call moves its bytes. The chooser
 * (engine/strategy.c) holds the registry and is the only place that
 * decides; each path is one file (path_staged.c, path_early.c,
 * path_direct.c, path_two_phase.c) with a table of these hooks. Adding a
 * path is its file plus a line in the registry.
 *
 * Paths chosen at START decide from this rank's access alone, before any
 * agreement (a rank's piece staged on its node's first rank, or moved
 * early); the rest of the call then takes part in the SETUP agreement with
 * an empty access. Paths chosen at SETUP decide from the agreed words,
 * the same on every rank, so every rank takes the same one.
 */
#ifndef COLIO_ENGINE_PATH_H
#define COLIO_ENGINE_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/model.h"
#include "engine/op.h"
#include "engine/words.h"

struct colio_file;

typedef enum colio_path_at { COLIO_PATH_AT_START, COLIO_PATH_AT_SETUP } colio_path_at_t;

/* At SETUP: whether a path may serve the agreed call, or must (hints, overlapping pieces). */
typedef enum colio_path_verdict { COLIO_PATH_NO, COLIO_PATH_MAY, COLIO_PATH_MUST } colio_path_verdict_t;

/* What a rank proposes in the SETUP agreement, beside its errors and extent (engine/setup.c). */
typedef struct colio_proposal {
    const struct colio_file *fh;
    const colio_access_t *acc;   /* what is left of this rank's access (empty after a START path) */
    int64_t plan_id, plan_shift; /* the stored plan this rank proposes (engine/plancache.h), 0: none */
    int staged;                  /* this rank's piece waits in node-shared memory */
} colio_proposal_t;

typedef struct colio_path_ops {
    const char *name;            /* the statistics' strategy */
    colio_path_at_t at;
    /* START: 1 when this rank's access takes the path; SETUP: a colio_path_verdict_t from the agreed
       words (NULL: MAY) */
    int (*qualifies)(const colio_op_t *op);
    /* Take the path: its first phase */
    colio_phase_t (*enter)(colio_op_t *op);
    /* SETUP paths: predicted seconds under the cost model, and where the statistics keep it */
    double (*predict)(const colio_call_shape_t *s, const colio_store_figures_t *f, const colio_net_terms_t *net);
    size_t predicted;
    /* SETUP paths without a cost model (colio_storage_model=off): 1 takes the path; NULL: the fallback */
    int (*rule)(const colio_op_t *op);
    /* Fill the path's own SETUP words from this rank's proposal (NULL: it has none); op is NULL for a call
       that moved its piece outside the steps (engine/path_express.c) */
    void (*propose)(colio_op_t *op, const colio_proposal_t *p, colio_setup_words_t *w);
    /* START paths, after SETUP: the phase the call goes on at instead of next (NULL: next) */
    colio_phase_t (*detour)(colio_op_t *op, colio_phase_t next);
} colio_path_ops_t;

extern const colio_path_ops_t colio_path_staged, colio_path_early, colio_path_direct, colio_path_two_phase;

#endif
