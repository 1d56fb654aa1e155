/*
 * Reusable exchange plans. Applications write the same decomposition again
 * and again (a checkpoint every step); when a collective call accesses
 * exactly the same runs as an earlier one on the file, with the same hints,
 * the file domains, the per-aggregator run lists, the piece counts and the
 * metadata the aggregators received are all the same, so the call skips
 * splitting, the counts Ialltoall and the metadata exchange. Sameness is
 * decided locally (hash, then exact comparison of the run lists) and agreed
 * in the SETUP reduction, which already runs: every rank proposes the id of
 * its matching plan, and a plan is reused only when the minimum and the
 * maximum proposal are the same id. A plan's id is the sequence number of
 * the operation that made it (the same on every rank), so equal ids mean the
 * same plan everywhere even when operations in flight finish in different
 * orders on different ranks; a rank that evicted or never stored it simply
 * proposes something else. A plan in use by one operation is not offered to
 * another.
 *
 * Moved plans: a call whose access is a stored one moved by d bytes on
 * every rank (IOR's segments, a record appended per time step) reuses that
 * plan moved by d, where the file-domain layout allows it (domain ops
 * `shifts`: even domains, d a multiple of striping_unit), for reads only
 * when neither call reached the end of file (it clips a read's plan). Each rank finds its own d
 * (entries of the same kind, size and run count, compared run by run);
 * the SETUP reduction carries d's minimum and maximum
 * beside the plan id, so all agree on one d or nobody reuses. The entry is
 * moved in place (domains, both sides' metadata, its key), so the next
 * call compares against the latest access.
 */
#ifndef COLIO_ENGINE_PLANCACHE_H
#define COLIO_ENGINE_PLANCACHE_H

#include <stdint.h>

#include "access/access.h"
#include "base/pool.h"
#include "engine/op.h"
#include "engine/plan_state.h"

/* Whether plans are stored and reused: colio_plan_cache > 0 and the data kernel is not one-sided (its
   puts target each call's own collective buffers, whose addresses travel with the counts). */
int colio_plancache_enabled(int plan_cache, const colio_xchg_ops_t *data_kernel);
/*
 * A hash of a key's runs, the same wherever in the file they are (offsets
 * from the first run's) and however the key holds them (own runs or a
 * borrowed flattening moved by a shift): a quick filter before the exact
 * comparison.
 */
uint64_t colio_plan_hash(const colio_access_key_t *key);
/*
 * Id of a stored plan for exactly this access (key: its runs, borrowed
 * from the access), or 0: the first stored of those that match, which
 * every rank whose access did not change since finds too; for an empty
 * access, which matches every plan in which this rank had no pieces, the
 * most recently used, which is what ranks with pieces find when the access
 * moved (colio_plancache_find_moved). Either rule only decides how often
 * plans are reused: a rank that proposes another plan makes everyone plan
 * afresh. A key borrowing the same flattening as an entry is compared by
 * its shift alone; otherwise the key's hash is computed once (*hash_p,
 * *hashed_p) where an entry of its size needs it, then runs are compared.
 */
int64_t colio_plancache_find(colio_plancache_t *c, const colio_access_key_t *key, int kind, int64_t nbytes,
                             uint64_t *hash_p, int *hashed_p);
/* Whether some stored plan has this size (kind, bytes, runs): else no exact match exists and no hash is needed. */
int colio_plancache_may_match(const colio_plancache_t *c, int64_t n, int kind, int64_t nbytes);
/* Id of the most recently used stored plan whose access moved by *delta_p, a multiple of unit (0: any), is
   this one (n > 0), or 0; never a read's plan clipped at the end of file. Entries of another size are skipped
   at once; a comparison stops at the first run that differs, so a miss costs little and a hit as much as one
   pass over the runs (none for a key borrowing the same flattening). */
int64_t colio_plancache_find_moved(const colio_plancache_t *c, const colio_access_key_t *key, int kind,
                                   int64_t nbytes, int64_t unit, int64_t *delta_p);
/* Move a stored plan and its key by delta bytes (its borrower's access). */
void colio_plan_move(colio_plan_entry_t *e, int64_t delta, int nprocs, int my_rank);
colio_plan_entry_t *colio_plancache_get(colio_plancache_t *c, int64_t id);
/* An entry was borrowed: the most recently used now. Only agreed borrows count, so the order of use,
   which picks among matches and evictions, is the same on every rank. */
void colio_plancache_touch(colio_plancache_t *c, colio_plan_entry_t *e);
/* Keep op's plan and key runs (moved out of op) as a new entry with id op->seq + 1, cap entries
   at most (nothing is stored when every entry is in use). */
void colio_plancache_store(colio_plancache_t *c, int cap, colio_op_t *op, colio_pool_t *bufs);
/* Drop every entry (hints changed, file closed). */
void colio_plancache_clear(colio_plancache_t *c, colio_pool_t *bufs);
/* Free the parts of a plan an entry owns. */
void colio_plan_release(colio_plan_t *p, colio_pool_t *bufs);

/*
 * An operation's side. PROPOSE: the id of a stored plan for op's access,
 * exactly or moved by *shift_p bytes (0: none, or reuse is off or this rank
 * failed), pinned until the agreement says whether every rank proposed it
 * with the same shift. SETUP: borrow it where every rank did (op->reuse),
 * and unpin the proposal. A read cut at the end of file keeps its access as
 * asked first (the key of a plan to store). At the end: a borrowed plan goes
 * back, a new one that completed everywhere is stored.
 */
int64_t colio_plancache_propose(colio_op_t *op, int64_t *shift_p);
void colio_plancache_unpin(colio_op_t *op);
void colio_plancache_keep_read_key(colio_op_t *op);
void colio_plancache_adopt(colio_op_t *op);
void colio_plancache_keep(colio_op_t *op);
/* A call that borrowed a plan and does not plan after all (the direct path): the plan back to the cache. */
void colio_plancache_give_back(colio_op_t *op);

#endif
