/*
 * Buffer cache of a file handle: the large buffers of an operation (the
 * collective and staging buffers, the coverage bitmap, the metadata and
 * request lists) are given back when it ends and taken again by the next
 * one, so repeated operations do not pay fresh page faults for memory they
 * used a moment ago. At close the large ones go to a cache of the process
 * (at most 64 MiB), where the next file's operations find them. Several
 * operations in flight each take their own buffers.
 */
#ifndef COLIO_ENGINE_BUFCACHE_H
#define COLIO_ENGINE_BUFCACHE_H

#include <stddef.h>
#include <stdint.h>

#define COLIO_BUFCACHE_SLOTS 24

/*
 * The small arrays every operation takes at INIT (sized by the ranks and
 * the aggregators): one of each kind is kept between operations, so a small
 * call allocates none (issue 23, item 1: no per-call allocation on the fast
 * path). Taken zeroed, as calloc gives them. Those of COLIO_ARRAY_MAP_MIN
 * bytes and more are mapped by colio and zeroed by the kernel, so the pages
 * a rank never writes cost it no memory: most of those sized by the ranks
 * are an aggregator's (one entry per sender), which at thousands of ranks
 * was most of colio's memory on the ranks that are not (docs/SCALE.md).
 * 128 KiB is the C library's own default for mapping a block, so colio
 * makes no more mappings than it would (a simulator runs every rank in
 * one process, under the kernel's vm.max_map_count).
 */
#define COLIO_ARRAY_MAP_MIN ((size_t)128 << 10)
enum colio_array_kind {
    COLIO_ARR_SEND_COUNTS, COLIO_ARR_RECV_COUNTS, COLIO_ARR_TO_AGG, COLIO_ARR_FROM_SRC, COLIO_ARR_MSGS,
    COLIO_ARR_ATTACHED, COLIO_ARR_REQ_SLICES, COLIO_ARR_AGG_SLICES, COLIO_ARR_PAT_MINE, COLIO_ARR_PAT_COUNTS,
    COLIO_ARR_PAT_DISPLS, COLIO_ARR_CNT_SENDERS, COLIO_ARR_CNT_MSG, COLIO_ARR_CNT_REQS, COLIO_ARR_KINDS
};

typedef struct colio_bufcache {
    void *p[COLIO_BUFCACHE_SLOTS];
    size_t size[COLIO_BUFCACHE_SLOTS];
    void *arr[COLIO_ARR_KINDS];
    size_t arr_size[COLIO_ARR_KINDS];
    unsigned char arr_clean[COLIO_ARR_KINDS]; /* still all zero: the next take skips zeroing */
    uint64_t set_key;      /* the kept arrays are a whole set, clean, given back as set_key's (0: not known whole) */
    const void *set_owner; /* the operation that set is reserved for, or NULL */
} colio_bufcache_t;

/* An array of kind and size bytes, zeroed: the kept one when its size matches, else a new one; NULL when out of memory. */
void *colio_array_take(colio_bufcache_t *c, int kind, size_t size);
/* Keep it for the next operation (or free it when one of its kind is kept already). NULL is ignored. */
void colio_array_give(colio_bufcache_t *c, int kind, void *p, size_t size);
/*
 * The same for a set of kinds at once (an operation's INIT arrays): each kind
 * in mask taken at sizes[kind] into *slots[kind]; 1 when some could not be
 * had (the others are taken). Give back every non-NULL *slots[kind] unused
 * (taken and never written, still all zero: the next take need not zero it,
 * which for a mapped array is a madvise call), setting it to NULL. One call
 * each way per small call instead of fourteen.
 */
int colio_array_take_set(colio_bufcache_t *c, unsigned mask, const size_t *sizes, void **slots[]);
/* key (nonzero) names mask and sizes: when every kind in mask is then kept, clean, the set is whole under key. */
void colio_array_give_unused_set(colio_bufcache_t *c, unsigned mask, uint64_t key, const size_t *sizes,
                                 void **slots[]);
/*
 * Reserve the whole set kept under key for owner without taking it (1), or
 * 0 (none such, or reserved already). Until released, every other take
 * finds nothing kept and every give of those kinds is freed, so the owner
 * can still take the set whole later (colio_array_release_set, then
 * colio_array_take_set), or let it go untouched: a small call that never
 * needs its arrays moves no pointer at all (issue 23, item 1).
 */
int colio_array_reserve_set(colio_bufcache_t *c, uint64_t key, const void *owner);
/* 1 when owner held the reservation (now released), else 0 and nothing changes. */
int colio_array_release_set(colio_bufcache_t *c, const void *owner);
/* Free an array from colio_array_take that is not given back (a stored plan's); NULL is ignored. */
void colio_array_free(void *p);

/* A buffer of at least size bytes (*cap_p: its real size); NULL when out of memory. */
void *colio_buf_take(colio_bufcache_t *c, size_t size, size_t *cap_p);
/* The same, aligned to align bytes (a power of two, multiple of sizeof(void *)): O_DIRECT-ready. */
void *colio_buf_take_aligned(colio_bufcache_t *c, size_t size, size_t align, size_t *cap_p);
/* Keep a buffer of cap bytes for later (or free it when the cache is full). NULL is ignored. */
void colio_buf_give(colio_bufcache_t *c, void *p, size_t cap);
void colio_bufcache_free(colio_bufcache_t *c);

#endif
