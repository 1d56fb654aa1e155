/*
 * What a round does for writes (round_write.c) and for reads
 * (round_read.c), between the round's plan and its exchange (round.c):
 * begin before the exchange starts (it may leave a storage read in flight:
 * rnd.fetch), fetched once that read is done, end after the exchange
 * completed. The aggregator's own pieces move while the exchange runs
 * (colio_round_own_runs).
 */
#ifndef COLIO_ENGINE_ROUND_KIND_H
#define COLIO_ENGINE_ROUND_KIND_H

#include "engine/op.h"

void colio_round_write_begin(colio_op_t *op);
void colio_round_write_end(colio_op_t *op);
void colio_round_read_begin(colio_op_t *op);
void colio_round_read_fetched(colio_op_t *op);
void colio_round_read_end(colio_op_t *op);

#endif
