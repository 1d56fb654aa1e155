/* Exchange kernels known to the registry (exchange/xchg.c). */
#ifndef COLIO_EXCHANGE_KERNELS_H
#define COLIO_EXCHANGE_KERNELS_H

#include "exchange/xchg.h"

extern const colio_xchg_ops_t colio_xchg_romio;
extern const colio_xchg_ops_t colio_xchg_issend;
extern const colio_xchg_ops_t colio_xchg_spread;
extern const colio_xchg_ops_t colio_xchg_balanced;
extern const colio_xchg_ops_t colio_xchg_pairwise;
extern const colio_xchg_ops_t colio_xchg_rma;
extern const colio_xchg_ops_t colio_xchg_tam;

/* Step of the message src -> dst in each stepped schedule (exposed for the schedule tests). */
int64_t colio_spread_step(const colio_xchg_t *x, int src, int dst);
int64_t colio_balanced_step(const colio_xchg_t *x, int src, int dst);
int64_t colio_pairwise_step(const colio_xchg_t *x, int src, int dst);
/* Algorithm 2's start position of receiver j of nr among p ranks (exposed for the schedule tests). */
int64_t colio_balanced_r_index(int64_t p, int64_t nr, int64_t j);

#endif
