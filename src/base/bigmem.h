/*
 * Memory for colio's large transient arrays (run lists, the lists per
 * aggregator, keys of stored plans). Blocks of 1 MiB and more are mapped by
 * colio and kept for the process when freed, then handed out again, so an
 * operation of a million pieces does not fault its lists in afresh on every
 * call: at 2 ranks a third of an E3SM F-case write was page faults on one
 * rank, whose C library gave such blocks back to the kernel at each free.
 * Kept at most: twice the most ever in use at once, and no more than
 * COLIO_KEEP_MEMORY bytes (environment; default 512 MiB, 0 keeps none).
 * Smaller blocks are the C library's. Every block carries its size, so a
 * pointer from these functions goes back through colio_mem_free (never free).
 */
#ifndef COLIO_BASE_BIGMEM_H
#define COLIO_BASE_BIGMEM_H

#include <stddef.h>

void *colio_mem_alloc(size_t size);
/* As realloc: the first min(old, size) bytes kept; NULL (p untouched) when out of memory. */
void *colio_mem_realloc(void *p, size_t size);
void colio_mem_free(void *p);
/* Bytes usable at p (at least what was asked). */
size_t colio_mem_size(const void *p);

#endif
