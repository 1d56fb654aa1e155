/* Exchange kernels known to the registry (exchange/xchg.c). */
#ifndef COLIO_EXCHANGE_KERNELS_H
#define COLIO_EXCHANGE_KERNELS_H

#include "exchange/xchg.h"

extern const colio_xchg_ops_t colio_xchg_romio;

#endif
