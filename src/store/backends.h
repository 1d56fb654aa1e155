/* Backends exported to the registry (store.c) and to backends that wrap others. */
#ifndef COLIO_STORE_BACKENDS_H
#define COLIO_STORE_BACKENDS_H

#include "store/store.h"

extern const colio_store_ops_t colio_store_posix;
extern const colio_store_ops_t colio_store_fault;
extern const colio_store_ops_t colio_store_null;
extern const colio_store_ops_t colio_store_subfile; /* not in the registry: chosen by the file's layout */

#endif
