/*
 * Datatype flattening: any MPI datatype, decoded with MPI_Type_get_envelope /
 * MPI_Type_get_contents, becomes a list of strided runs in typemap order
 * (adjacent blocks merged, regularly repeated blocks folded into one run).
 * Extents come from MPI itself.
 */
#ifndef COLIO_ACCESS_FLATTEN_H
#define COLIO_ACCESS_FLATTEN_H

#include <mpi.h>
#include <stdint.h>

#include "access/run.h"
#include "base/error.h"

typedef struct colio_flat {
    colio_runs_t runs; /* typemap order; pos: stream position within one instance */
    int64_t size;      /* MPI_Type_size */
    int64_t npieces;   /* the runs' counts summed (colio_flat_create) */
    int64_t lb;        /* MPI lower bound */
    int64_t extent;    /* MPI extent: instance k starts at k * extent */
    int monotonic;     /* pieces of one instance in increasing, non-overlapping order */
    int ordered;       /* pieces start at non-decreasing offsets (may overlap: MPI allows it for reading) */
    int spills;        /* data outside [0, extent) of its instance's span: consecutive instances overlap */
    int nonneg;        /* every displacement >= 0 */
    int refs;          /* datatypes, views and operations holding it (atomic; 0: not counted) */
    int64_t *packed;   /* NULL, or made once (colio_flat_packed): [0] the count, [1] their base, the pieces */
} colio_flat_t;

/* Flatten one instance of type. Caller frees with colio_flat_free. */
int colio_flat_create(MPI_Datatype type, colio_flat_t **flat_p, colio_err_t *err);
void colio_flat_free(colio_flat_t *flat);

/*
 * Flattening of a type, cached on the type itself as an MPI attribute: its
 * duplicates (MPI_Type_dup) share it, counted, and it is freed with the last
 * of them; named (predefined) types are flattened once and kept for the
 * life of the process. The result is the caller's until colio_flat_release
 * (owned: freed then; cached: held until then, so the user may free the
 * type while an operation or a view still uses it).
 */
int colio_flat_get(MPI_Datatype type, colio_flat_t **flat_p, int *owned_p, colio_err_t *err);
/* The kept flat of a named type already flattened once (colio_flat_get), or NULL; a type found is valid. */
colio_flat_t *colio_flat_named(MPI_Datatype type);
/* Release a result of colio_flat_get: free an owned one, let a cached one go (colio_flat_drop). */
void colio_flat_release(colio_flat_t *flat, int owned);
/*
 * Hold a cached flattening and let it go (atomic count; the last holder, the
 * type's attribute among them, frees it). A file's view and an operation's
 * memtype hold theirs this way (colio_flat_get), so the user may free the
 * type at once, without colio duplicating it (Open MPI's MPI_Type_dup copies
 * the whole type: 10 ms a view for the E3SM F map). No-ops for named types'
 * flats, which live for the process.
 */
void colio_flat_hold(colio_flat_t *flat);
void colio_flat_drop(colio_flat_t *flat);

/*
 * The pieces of one instance of a monotonic flattening whose pieces lie
 * within 4 GiB, in file (and stream) order, a piece abutting the one
 * before merged into it, each one word: its offset from the first piece's
 * (*base) << 32 | its length, the format of packed metadata records
 * (access/split.h). Made at the first ask and kept with the flattening (8
 * bytes a piece: a fifth of its runs' 40 where pieces are single), so that
 * a call's split of a borrowed flattening reads a fifth of the bytes. NULL
 * where the flattening does not qualify or memory is short; *n the count.
 */
const int64_t *colio_flat_packed(colio_flat_t *flat, int64_t *n, int64_t *base);
/* Run holding stream byte s (0 <= s < size) of one instance: the last run starting at or before s. */
int64_t colio_flat_find(const colio_flat_t *flat, int64_t s);
/* One block as long as the extent: instances abut into one contiguous stretch. */
int colio_flat_dense(const colio_flat_t *flat);

/* Predefined (named) types are never duplicated or freed. */
int colio_type_is_predefined(MPI_Datatype type);

/*
 * A datatype must be committed (and not MPI_DATATYPE_NULL) to be used; MPI
 * has no query for that, so this asks MPI_Pack, which checks it, on comm
 * (whose error handler must return errors).
 */
int colio_type_check(MPI_Datatype type, MPI_Comm comm, const char *what, colio_err_t *err);

#endif
