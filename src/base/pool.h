/*
 * Memory colio keeps between operations, one module for the three ways it
 * is kept: large blocks for transient arrays (run lists, lists per
 * aggregator, stored plans' keys) kept for the process; a file's buffers
 * (collective and packing buffers, coverage bitmaps, lists) taken again by
 * its next operation and, once it closes, by the next file's; and the small
 * arrays every operation takes at INIT (one per kind kept, taken zeroed).
 */
#ifndef COLIO_BASE_POOL_H
#define COLIO_BASE_POOL_H

#include <stddef.h>
#include <stdint.h>

/* ---- large blocks ---- */
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


void *colio_mem_alloc(size_t size);
/* As realloc: the first min(old, size) bytes kept; NULL (p untouched) when out of memory. */
void *colio_mem_realloc(void *p, size_t size);
void colio_mem_free(void *p);
/* Bytes usable at p (at least what was asked). */
size_t colio_mem_size(const void *p);

/* ---- a file's buffers and INIT arrays ---- */
/*
 * Buffer cache of a file handle: the large buffers of an operation (the
 * collective and staging buffers, the coverage bitmap, the metadata and
 * request lists) are given back when it ends and taken again by the next
 * one, so repeated operations do not pay fresh page faults for memory they
 * used a moment ago. At close the large ones go to a cache of the process
 * (at most 64 MiB), where the next file's operations find them. Several
 * operations in flight each take their own buffers.
 */


#define COLIO_POOL_BUFS 24

/*
 * The small arrays every operation takes at INIT (sized by the ranks and
 * the aggregators): one of each kind is kept between operations, so a small
 * call allocates none (no per-call allocation on the fast path). Taken zeroed, as calloc gives them. Those of COLIO_ARRAY_MAP_MIN
 * bytes and more are mapped by colio and zeroed by the kernel, so the pages
 * a rank never writes cost it no memory: most of those sized by the ranks
 * are an aggregator's (one entry per sender), which at thousands of ranks
 * was most of colio's memory on the ranks that are not (docs/SCALE.md).
 * 128 KiB is the C library's own default for mapping a block, so colio
 * makes no more mappings than it would (a simulator runs every rank in
 * one process, under the kernel's vm.max_map_count).
 */
#define COLIO_ARRAY_MAP_MIN ((size_t)128 << 10)
#define COLIO_POOL_ARRAY_KINDS 16 /* kinds of kept arrays: the engine names its own (engine/op.h, colio_array_kind) */

typedef struct colio_pool {
    void *p[COLIO_POOL_BUFS];
    size_t size[COLIO_POOL_BUFS];
    void *arr[COLIO_POOL_ARRAY_KINDS];
    size_t arr_size[COLIO_POOL_ARRAY_KINDS];
    unsigned char arr_clean[COLIO_POOL_ARRAY_KINDS]; /* still all zero: the next take skips zeroing */
    uint64_t set_key;      /* the kept arrays are a whole set, clean, given back as set_key's (0: not known whole) */
    const void *set_owner; /* the operation that set is reserved for, or NULL */
} colio_pool_t;

/* An array of kind and size bytes, zeroed: the kept one when its size matches, else a new one; NULL when out of memory. */
void *colio_pool_array_take(colio_pool_t *c, int kind, size_t size);
/* Keep it for the next operation (or free it when one of its kind is kept already). NULL is ignored. */
void colio_pool_array_give(colio_pool_t *c, int kind, void *p, size_t size);
/*
 * The same for a set of kinds at once (an operation's INIT arrays): each kind
 * in mask taken at sizes[kind] into *places[kind]; 1 when some could not be
 * had (the others are taken). Give back every non-NULL *places[kind] unused
 * (taken and never written, still all zero: the next take need not zero it,
 * which for a mapped array is a madvise call), setting it to NULL. One call
 * each way per small call instead of fourteen.
 */
int colio_pool_array_take_set(colio_pool_t *c, unsigned mask, const size_t *sizes, void **places[]);
/* key (nonzero) names mask and sizes: when every kind in mask is then kept, clean, the set is whole under key. */
void colio_pool_array_give_unused_set(colio_pool_t *c, int nkinds, unsigned mask, uint64_t key, const size_t *sizes,
                                      void **places[]);
/*
 * Reserve the whole set kept under key for owner without taking it (1), or
 * 0 (none such, or reserved already). Until released, every other take
 * finds nothing kept and every give of those kinds is freed, so the owner
 * can still take the set whole later (colio_pool_array_release_set, then
 * colio_pool_array_take_set), or let it go untouched: a small call that never
 * needs its arrays moves no pointer at all.
 */
int colio_pool_array_reserve_set(colio_pool_t *c, uint64_t key, const void *owner);
/* 1 when owner held the reservation (now released), else 0 and nothing changes. */
int colio_pool_array_release_set(colio_pool_t *c, const void *owner);
/* Free an array from colio_pool_array_take that is not given back (a stored plan's); NULL is ignored. */
void colio_pool_array_free(void *p);

/* A buffer of at least size bytes (*cap_p: its real size); NULL when out of memory. */
void *colio_pool_buf_take(colio_pool_t *c, size_t size, size_t *cap_p);
/* The same, aligned to align bytes (a power of two, multiple of sizeof(void *)): O_DIRECT-ready. */
void *colio_pool_buf_take_aligned(colio_pool_t *c, size_t size, size_t align, size_t *cap_p);
/* Keep a buffer of cap bytes for later (or free it when the cache is full). NULL is ignored. */
void colio_pool_buf_give(colio_pool_t *c, void *p, size_t cap);
void colio_pool_free(colio_pool_t *c);

#endif
