/*
 * The progress engine that runs blocking and nonblocking collective
 * operations alike (after Seo et al., "Nonblocking collective I/O",
 * seeds/002: an operation is a state machine over nonblocking steps, many
 * may be outstanding on one file). progress.c steps operations and runs
 * the progress thread; progress_file.c keeps each file's registration and
 * runs blocking calls; lanes.c forms the lanes (a communicator for each
 * nonblocking operation in flight). The request objects of the nonblocking
 * API live above it
 * (api/request.c) and get their operations back through op->on_done.
 *
 * Every operation in flight, blocking or not, is driven by the same engine:
 *   - colio calls that wait (colio_wait, colio_test, the blocking calls, and
 *     the file calls that must see every operation completed) step every
 *     operation in flight in the process, so waits in any order never
 *     deadlock;
 *   - with colio_progress=thread a progress thread steps the operations of
 *     the files in that mode, so I/O moves while the program computes.
 * One process-wide mutex guards all of it; it is never held while blocking
 * in MPI. A thread blocks in MPI only on one operation's own requests,
 * which it claims first (nobody else steps a claimed operation), and only
 * when no other operation needs it to be stepped.
 *
 * Each nonblocking operation runs on a communicator of its own: a file has
 * colio_max_outstanding lanes, duplicated one after the other from the
 * file's own duplicate once its first nonblocking call starts (lanes.c);
 * the n-th nonblocking operation takes lane n mod colio_max_outstanding
 * once the lane's previous operation has completed, and starts talking
 * (START) once its lane has formed. Blocking calls use the file's
 * communicator.
 */
#ifndef COLIO_ENGINE_PROGRESS_H
#define COLIO_ENGINE_PROGRESS_H

#include <mpi.h>

#include "base/error.h"
#include "engine/lanes.h"
#include "engine/op.h"

struct colio_file;
struct colio_hints;


/* The process-wide lock of the engine. */
void colio_progress_lock(void);
void colio_progress_unlock(void);

/* Whether hints asking for colio_progress=thread can be met (MPI_THREAD_MULTIPLE). */
int colio_progress_check_hints(const struct colio_hints *h, colio_err_t *err);
/* At open, after the hints: register the file with the engine. */
int colio_progress_file_open(struct colio_file *fh, colio_err_t *err);
/* After new hints were adopted: follow colio_progress. */
void colio_progress_file_rehint(struct colio_file *fh);
/* At close, after colio_progress_complete_file: free the lanes (collective: every rank closes). */
void colio_progress_file_close(struct colio_file *fh);

/* Run a blocking operation (already colio_op_init'ed, lock held) to completion. */
void colio_progress_run(colio_op_t *op);
/* Whether an operation in flight only a caller steps (its file has no progress thread) waits (lock held). */
int colio_progress_caller_needed(void);
/* Complete every operation in flight on fh (lock held). */
void colio_progress_complete_file(struct colio_file *fh);

/* progress.c: step every operation in flight (lock held); returns phases passed. */
int colio_progress_all(int threaded_only);
/* Progress until done(arg) holds (lock held). */
void colio_progress_until(int (*done)(void *), void *arg, colio_op_t *target);
/* The progress thread: started when a file first has colio_progress=thread, stopped at MPI_Finalize. */
void colio_progress_thread_need(void);
int colio_progress_thread_running(void);
/* Tell the thread new work arrived. */
void colio_progress_thread_kick(void);
/* The open files (progress.c keeps the list). */
colio_progress_file_t *colio_progress_files(void);
void colio_progress_files_add(colio_progress_file_t *f);
void colio_progress_files_remove(colio_progress_file_t *f);
/* progress_file.c: the lane of the next nonblocking operation on fh (lock held; may progress until it is free); NULL on failure. */
colio_lane_t *colio_lane_take(struct colio_file *fh);

#endif
