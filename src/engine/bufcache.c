/* Buffer cache of a file handle: see bufcache.h. */
#include "engine/bufcache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Large buffers of closed files, kept for the process so the next file's
 * operations find them (a program that opens, writes and closes a file
 * per step faulted in its collective and staging buffers every time: half
 * of a 64 MiB call's time at 2 ranks, where ROMIO allocates one buffer).
 * At most COLIO_SPARE_BYTES in all; buffers under COLIO_SPARE_MIN are freed.
 * A buffer given back when the pool is full makes room by freeing the
 * longest unused ones: the pool follows what the program does now (files
 * written then read: the reads' collective buffers, a page larger than the
 * writes', found the pool full of the writes' and faulted in 16 MiB every
 * call, 30% of a read behind slow storage; seventeenth session).
 */
#define COLIO_SPARE_BYTES ((size_t)64 << 20)
#define COLIO_SPARE_MIN ((size_t)256 << 10)
#define COLIO_SPARE_SLOTS 8
static struct {
    void *p;
    size_t size;
    uint64_t given; /* when it was given back (spare_clock) */
} spare[COLIO_SPARE_SLOTS];
static size_t spare_bytes;
static uint64_t spare_clock;
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

/* The smallest spare buffer of at least size bytes (at most four times as large) at a multiple of align, or NULL. */
static void *take_spare(size_t size, size_t align, size_t *cap_p)
{
    void *p = NULL;
    pthread_mutex_lock(&spare_lock);
    int best = -1;
    for (int i = 0; i < COLIO_SPARE_SLOTS; i++)
        if (spare[i].p && spare[i].size >= size && spare[i].size / 4 <= size && (uintptr_t)spare[i].p % align == 0 &&
            (best < 0 || spare[i].size < spare[best].size))
            best = i;
    if (best >= 0) {
        p = spare[best].p, *cap_p = spare[best].size;
        spare_bytes -= spare[best].size;
        spare[best].p = NULL;
    }
    pthread_mutex_unlock(&spare_lock);
    return p;
}

/* The spare buffer given back longest ago, or -1 when none is kept. Lock held. */
static int oldest_spare(void)
{
    int old = -1;
    for (int i = 0; i < COLIO_SPARE_SLOTS; i++)
        if (spare[i].p && (old < 0 || spare[i].given < spare[old].given))
            old = i;
    return old;
}

/* Keep a closed file's large buffer for the process, the longest unused ones freed to make room; else free it. */
static void give_spare(void *p, size_t size)
{
    void *evicted[COLIO_SPARE_SLOTS];
    int nevicted = 0, slot = -1;
    pthread_mutex_lock(&spare_lock);
    if (size >= COLIO_SPARE_MIN && size <= COLIO_SPARE_BYTES) {
        for (;;) {
            for (int i = 0; i < COLIO_SPARE_SLOTS && slot < 0; i++)
                if (spare[i].p == NULL)
                    slot = i;
            if (slot >= 0 && spare_bytes + size <= COLIO_SPARE_BYTES)
                break;
            int old = oldest_spare(); /* some are kept: there is no slot, or no room */
            evicted[nevicted++] = spare[old].p;
            spare_bytes -= spare[old].size;
            spare[old].p = NULL;
        }
        spare[slot].p = p, spare[slot].size = size, spare[slot].given = ++spare_clock;
        spare_bytes += size;
        p = NULL;
    }
    pthread_mutex_unlock(&spare_lock);
    free(p); /* not kept */
    for (int i = 0; i < nevicted; i++)
        free(evicted[i]);
}

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
    if (p || (size >= COLIO_SPARE_MIN && (p = take_spare(size, 1, cap_p)) != NULL))
        return p;
    p = malloc(size ? size : 1);
    *cap_p = p ? size : 0;
    return p;
}

void *colio_buf_take_aligned(colio_bufcache_t *c, size_t size, size_t align, size_t *cap_p)
{
    void *p = take_cached(c, size, align, cap_p);
    if (p || (size >= COLIO_SPARE_MIN && (p = take_spare(size, align, cap_p)) != NULL))
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

/*
 * Every array starts one header after its block: a mapped one has a page of its own for it, so the pages
 * after it can be dropped (zeroed) without losing the header.
 */
typedef struct array_head {
    size_t mapped; /* bytes of the mapping, 0: from calloc */
    char pad[56];
} array_head_t;

static size_t page_bytes(void)
{
    static size_t page;
    if (page == 0) {
        long v = sysconf(_SC_PAGESIZE);
        page = v > 0 ? (size_t)v : 4096;
    }
    return page;
}

static array_head_t *array_head(void *p) { return (array_head_t *)p - 1; }

static void *array_alloc(size_t size)
{
    if (size < COLIO_ARRAY_MAP_MIN) {
        array_head_t *h = calloc(1, sizeof *h + (size ? size : 1));
        return h ? h + 1 : NULL;
    }
    size_t page = page_bytes(), len = page + ((size + page - 1) & ~(page - 1));
    char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    array_head_t *h = (array_head_t *)(base + page) - 1;
    h->mapped = len;
    return h + 1;
}

/* Zero a kept array: a mapped one by dropping its pages (what it never wrote stays unbacked). */
static void *array_zero(void *p, size_t size)
{
    array_head_t *h = array_head(p);
    if (h->mapped == 0 || madvise(p, h->mapped - page_bytes(), MADV_DONTNEED) != 0)
        memset(p, 0, size);
    return p;
}

void colio_array_free(void *p)
{
    if (p == NULL)
        return;
    array_head_t *h = array_head(p);
    if (h->mapped)
        munmap((char *)p - page_bytes(), h->mapped);
    else
        free(h);
}

void *colio_array_take(colio_bufcache_t *c, int kind, size_t size)
{
    void *p = c->set_owner ? NULL : c->arr[kind]; /* a reserved set is its owner's */
    if (c->set_owner == NULL)
        c->set_key = 0;
    if (p && c->arr_size[kind] == size) {
        c->arr[kind] = NULL;
        return c->arr_clean[kind] ? p : array_zero(p, size);
    }
    return array_alloc(size);
}

static void array_keep(colio_bufcache_t *c, int kind, void *p, size_t size, int clean)
{
    if (p == NULL)
        return;
    if (c->arr[kind] != NULL) {
        if (c->arr_size[kind] == size || c->set_owner != NULL) { /* the kept one serves (or is reserved) */
            colio_array_free(p);
            return;
        }
        colio_array_free(c->arr[kind]); /* sized for another aggregator count: the calls now use p's */
        c->arr[kind] = NULL;
    }
    if (c->set_owner == NULL) /* else p is of a kind the reserved set lacks: the set stays whole */
        c->set_key = 0;
    c->arr[kind] = p;
    c->arr_size[kind] = size;
    c->arr_clean[kind] = (unsigned char)clean;
}

void colio_array_give(colio_bufcache_t *c, int kind, void *p, size_t size) { array_keep(c, kind, p, size, 0); }

int colio_array_take_set(colio_bufcache_t *c, unsigned mask, const size_t *sizes, void **slots[])
{
    int missing = 0;
    if (c->set_owner == NULL)
        c->set_key = 0; /* what is kept is taken */
    for (int kind = 0; kind < COLIO_ARR_KINDS; kind++) {
        if (!(mask >> kind & 1u))
            continue;
        void *p = c->set_owner ? NULL : c->arr[kind];
        if (p && c->arr_size[kind] == sizes[kind] && c->arr_clean[kind]) /* the small call's case, inline */
            c->arr[kind] = NULL;
        else
            p = colio_array_take(c, kind, sizes[kind]);
        *slots[kind] = p;
        missing |= p == NULL;
    }
    return missing;
}

void colio_array_give_unused_set(colio_bufcache_t *c, unsigned mask, uint64_t key, const size_t *sizes,
                                 void **slots[])
{
    uint64_t kept = c->set_key; /* a reserved set stays whole: these are freed (array_keep) */
    int whole = 1;
    for (int kind = 0; kind < COLIO_ARR_KINDS; kind++) {
        array_keep(c, kind, *slots[kind], sizes[kind], 1);
        *slots[kind] = NULL;
        if (mask >> kind & 1u)
            whole &= c->arr[kind] != NULL && c->arr_size[kind] == sizes[kind] && c->arr_clean[kind];
    }
    c->set_key = c->set_owner ? kept : whole ? key : 0;
}

int colio_array_reserve_set(colio_bufcache_t *c, uint64_t key, const void *owner)
{
    if (key == 0 || c->set_key != key || c->set_owner != NULL)
        return 0;
    c->set_owner = owner;
    return 1;
}

int colio_array_release_set(colio_bufcache_t *c, const void *owner)
{
    if (c->set_owner != owner || owner == NULL)
        return 0;
    c->set_owner = NULL;
    return 1;
}

void colio_bufcache_free(colio_bufcache_t *c)
{
    for (int i = 0; i < COLIO_BUFCACHE_SLOTS; i++) {
        if (c->p[i])
            give_spare(c->p[i], c->size[i]); /* the largest first would keep more; the cap is generous */
        c->p[i] = NULL;
    }
    for (int k = 0; k < COLIO_ARR_KINDS; k++) {
        colio_array_free(c->arr[k]);
        c->arr[k] = NULL;
    }
    c->set_key = 0, c->set_owner = NULL;
}
