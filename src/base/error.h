/* Error codes, messages and collective error agreement. */
#ifndef COLIO_BASE_ERROR_H
#define COLIO_BASE_ERROR_H

#include <stdarg.h>
#include <stdint.h>

#include "colio.h"

#define COLIO_ERRMSG_LEN 512

/* An error as it travels through an operation: the code and its detail. */
typedef struct colio_err {
    int code;                     /* COLIO_SUCCESS or COLIO_ERR_* */
    char msg[COLIO_ERRMSG_LEN];   /* "" when code == 0 */
} colio_err_t;

/* Record the first error only: later failures are usually consequences. */
int colio_err_set(colio_err_t *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* No error: what per-call code uses instead of = {0}, which zeroes all 516 bytes. */
static inline void colio_err_clear(colio_err_t *e) { e->code = 0; e->msg[0] = '\0'; }

/*
 * The calling thread's message of the last call that failed with no handle
 * to keep it (colio_last_error(NULL), colio_last_open_error()): a failed
 * open, a NULL or closed handle, a NULL or completed request.
 */
char *colio_err_thread_msg(void);

/* Map an errno value (positive) to a colio code. */
int colio_err_from_errno(int errnum);
/* Map an MPI error code to a colio code, keeping its text in e. */
int colio_err_from_mpi(colio_err_t *e, int mpi_rc, const char *what);

/*
 * Agreement key: one int64 per rank, reduced with MPI_MIN, selects the most
 * severe (most negative) code and, among ranks with that code, the lowest
 * rank. 0 means no error anywhere.
 */
int64_t colio_err_key(int code, int rank);
int colio_err_key_code(int64_t key);
int colio_err_key_rank(int64_t key);
/* Collective, after an agreement whose MIN of colio_err_key gave min_key != 0: every rank takes that
   rank's code and message (one broadcast). Returns the code. */
int colio_err_adopt_key(MPI_Comm comm, colio_err_t *e, int64_t min_key);

/*
 * Blocking agreement used by open/close/set_view/set_info/sync: every rank
 * returns the same code and, on error, the failing rank's message.
 */
int colio_err_agree(MPI_Comm comm, colio_err_t *e);
/* The same, and in the same reduction: value must be equal on every rank
   (COLIO_ERR_NOT_SAME naming `what` otherwise); when any is given, each of
   its two flags (bits 0 and 1) is set on every rank if it was on some rank. */
int colio_err_agree_same(MPI_Comm comm, colio_err_t *e, int64_t value, const char *what, int *any);
/*
 * colio_err_agree, carrying rank 0's words[0..n) (n <= COLIO_AGREE_ROOT_MAX)
 * to every rank in the same reduction (the others' words are overwritten):
 * an agreement and a broadcast for the price of one collective.
 */
#define COLIO_AGREE_ROOT_MAX 16
int colio_err_agree_root(MPI_Comm comm, colio_err_t *e, int64_t *words, int n);
/*
 * The same, and in the same reduction the smallest and largest of each
 * rank's range[i] (i < nrange <= COLIO_AGREE_RANGE_MAX): lo[i] and hi[i] on
 * every rank. root may be NULL with nroot 0.
 */
#define COLIO_AGREE_RANGE_MAX 4
int colio_err_agree_words(MPI_Comm comm, colio_err_t *e, int64_t *root, int nroot, const int64_t *range, int nrange,
                          int64_t *lo, int64_t *hi);
/*
 * After the agreed key is known and e->msg holds the failing rank's detail
 * (broadcast from it), set e to the agreed code with "rank R: detail".
 */
void colio_err_adopt(colio_err_t *e, int64_t min_key);

#endif
