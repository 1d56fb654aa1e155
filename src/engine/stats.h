/* Per-operation statistics: kept on the handle, optionally appended as JSON lines. */
#ifndef COLIO_ENGINE_STATS_H
#define COLIO_ENGINE_STATS_H

#include "colio.h"

/* Record one finished operation on fh (last + totals) and append its JSON line. */
void colio_stats_record(colio_file *fh, const colio_op_stats *op, const char *api);

/* Format one operation as a JSON object (no newline). Returns the length. */
int colio_stats_json(char *out, int outlen, const colio_op_stats *s, const char *api, int rank,
                     const char *path);

#endif
