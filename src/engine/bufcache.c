/* Buffer cache of a file handle: see bufcache.h. */
#include "engine/bufcache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The smallest cached buffer of at least size bytes at a multiple of align, or NULL. */
static void *take_cached(colio_bufcache_t *c, size_t size, size_t align, size_t *cap_p)
{
    int best = -1;
    for (int i = 0; i < COLIO_BUFCACHE_SLOTS; i++)
        if (c->p[i] && c->size[i] >= size && (uintptr_t)c->p[i] % align == 0 &&
            (best < 0 || c->size[i] < c->size[best]))
            best = i;
    if (best < 0)
        return NULL;
    void *p = c->p[best];
    *cap_p = c->size[best];
    c->p[best] = NULL;
    return p;
}

void *colio_buf_take(colio_bufcache_t *c, size_t size, size_t *cap_p)
{
    void *p = take_cached(c, size, 1, cap_p);
    if (p)
        return p;
    p = malloc(size ? size : 1);
    *cap_p = p ? size : 0;
    return p;
}

void *colio_buf_take_aligned(colio_bufcache_t *c, size_t size, size_t align, size_t *cap_p)
{
    void *p = take_cached(c, size, align, cap_p);
    if (p)
        return p;
    if (posix_memalign(&p, align, size ? size : 1) != 0) /* freed with free() like the others */
        p = NULL;
    *cap_p = p ? size : 0;
    return p;
}

void colio_buf_give(colio_bufcache_t *c, void *p, size_t cap)
{
    if (p == NULL)
        return;
    int slot = -1;
    for (int i = 0; i < COLIO_BUFCACHE_SLOTS && slot < 0; i++)
        if (c->p[i] == NULL)
            slot = i;
    if (slot < 0) { /* full: drop the smallest, keep the big ones that are dear to fault in */
        slot = 0;
        for (int i = 1; i < COLIO_BUFCACHE_SLOTS; i++)
            if (c->size[i] < c->size[slot])
                slot = i;
        if (c->size[slot] >= cap) {
            free(p);
            return;
        }
        free(c->p[slot]);
    }
    c->p[slot] = p;
    c->size[slot] = cap;
}

void *colio_array_take(colio_bufcache_t *c, int kind, size_t size)
{
    void *p = c->arr[kind];
    if (p && c->arr_size[kind] == size) {
        c->arr[kind] = NULL;
        return memset(p, 0, size);
    }
    return calloc(size ? size : 1, 1);
}

void colio_array_give(colio_bufcache_t *c, int kind, void *p, size_t size)
{
    if (p == NULL)
        return;
    if (c->arr[kind] != NULL) {
        free(p);
        return;
    }
    c->arr[kind] = p;
    c->arr_size[kind] = size;
}

void colio_bufcache_free(colio_bufcache_t *c)
{
    for (int i = 0; i < COLIO_BUFCACHE_SLOTS; i++) {
        free(c->p[i]);
        c->p[i] = NULL;
    }
    for (int k = 0; k < COLIO_ARR_KINDS; k++) {
        free(c->arr[k]);
        c->arr[k] = NULL;
    }
}
