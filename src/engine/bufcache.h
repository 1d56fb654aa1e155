/*
 * Buffer cache of a file handle: the large buffers of an operation (the
 * collective and staging buffers, the coverage bitmap, the metadata and
 * request lists) are given back when it ends and taken again by the next
 * one, so repeated operations do not pay fresh page faults for memory they
 * used a moment ago. Freed at close. Several operations in flight each take
 * their own buffers.
 */
#ifndef COLIO_ENGINE_BUFCACHE_H
#define COLIO_ENGINE_BUFCACHE_H

#include <stddef.h>

#define COLIO_BUFCACHE_SLOTS 24

typedef struct colio_bufcache {
    void *p[COLIO_BUFCACHE_SLOTS];
    size_t size[COLIO_BUFCACHE_SLOTS];
} colio_bufcache_t;

/* A buffer of at least size bytes (*cap_p: its real size); NULL when out of memory. */
void *colio_buf_take(colio_bufcache_t *c, size_t size, size_t *cap_p);
/* The same, aligned to align bytes (a power of two, multiple of sizeof(void *)): O_DIRECT-ready. */
void *colio_buf_take_aligned(colio_bufcache_t *c, size_t size, size_t align, size_t *cap_p);
/* Keep a buffer of cap bytes for later (or free it when the cache is full). NULL is ignored. */
void colio_buf_give(colio_bufcache_t *c, void *p, size_t cap);
void colio_bufcache_free(colio_bufcache_t *c);

#endif
