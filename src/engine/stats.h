/* Per-operation statistics: kept on the handle, optionally appended as JSON lines. */
#ifndef COLIO_ENGINE_STATS_H
#define COLIO_ENGINE_STATS_H

#include "colio.h"

/*
 * The handle's `last` statistics, zeroed, for a call to fill in place and
 * record (a 64-byte call then builds them once instead of building and
 * copying ~360 bytes). Under the progress lock, as colio_stats_record.
 */
colio_op_stats *colio_stats_fresh(struct colio_file *fh);
/* Record one finished operation on fh (last + totals) and append its JSON line; op may be colio_stats_fresh's. */
void colio_stats_record(colio_file *fh, const colio_op_stats *op, const char *api);

/* Format one operation as a JSON object (no newline). Returns the length. */
int colio_stats_json(char *out, int outlen, const colio_op_stats *s, const char *api, int rank,
                     const char *path);

#endif
