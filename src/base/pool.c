/* Memory kept between operations (base/pool.h): large blocks, a file's buffers, INIT arrays. */
#define _GNU_SOURCE
#include "base/pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Every block starts with this header; the caller's bytes follow it, 64-byte aligned. */
typedef struct block_head {
    size_t cap;    /* bytes after the header */
    size_t mapped; /* bytes of the mapping (0: from malloc) */
    char pad[48];
} block_head_t;

#define BIG_MIN ((size_t)1 << 20)
#define KEPT_SLOTS 32
#define KEEP_DEFAULT ((size_t)512 << 20)

static struct {
    block_head_t *b;
} kept[KEPT_SLOTS];
static size_t kept_bytes, in_use, in_use_peak, keep_limit = (size_t)-1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static block_head_t *head_of(const void *p) { return (block_head_t *)((char *)p - sizeof(block_head_t)); }

/* COLIO_KEEP_MEMORY, read once (lock held). */
static size_t keep_cap(void)
{
    if (keep_limit == (size_t)-1) {
        const char *v = getenv("COLIO_KEEP_MEMORY");
        char *end = NULL;
        unsigned long long x = v && *v ? strtoull(v, &end, 10) : 0;
        keep_limit = v && *v && end && *end == '\0' ? (size_t)x : KEEP_DEFAULT;
    }
    return keep_limit;
}

/* A kept mapping of at least need bytes and at most four times as many (lock held), or NULL. */
static block_head_t *take_kept(size_t need)
{
    int best = -1;
    for (int i = 0; i < KEPT_SLOTS; i++)
        if (kept[i].b && kept[i].b->mapped >= need && kept[i].b->mapped / 4 <= need &&
            (best < 0 || kept[i].b->mapped < kept[best].b->mapped))
            best = i;
    if (best < 0)
        return NULL;
    block_head_t *b = kept[best].b;
    kept[best].b = NULL;
    kept_bytes -= b->mapped;
    return b;
}

static void *map_block(size_t size)
{
    size_t need = (size + sizeof(block_head_t) + 4095) & ~(size_t)4095;
    pthread_mutex_lock(&lock);
    block_head_t *b = take_kept(need);
    if (b)
        in_use += b->mapped;
    pthread_mutex_unlock(&lock);
    if (b == NULL) {
        void *m = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        b = m;
        b->mapped = need;
        pthread_mutex_lock(&lock);
        in_use += need;
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    in_use_peak = in_use > in_use_peak ? in_use : in_use_peak;
    pthread_mutex_unlock(&lock);
    b->cap = b->mapped - sizeof(block_head_t);
    return b + 1;
}

/* Keep a mapping for later when there is room, else unmap it. */
static void unmap_block(block_head_t *b)
{
    int keep = 0;
    pthread_mutex_lock(&lock);
    in_use -= b->mapped;
    size_t limit = keep_cap() < 2 * in_use_peak ? keep_cap() : 2 * in_use_peak;
    for (int i = 0; i < KEPT_SLOTS && !keep && kept_bytes + b->mapped <= limit; i++)
        if (kept[i].b == NULL) {
            kept[i].b = b;
            kept_bytes += b->mapped;
            keep = 1;
        }
    pthread_mutex_unlock(&lock);
    if (!keep)
        munmap(b, b->mapped);
}

void *colio_mem_alloc(size_t size)
{
    if (size >= BIG_MIN)
        return map_block(size);
    block_head_t *b = malloc(sizeof *b + (size ? size : 1));
    if (b == NULL)
        return NULL;
    b->cap = size, b->mapped = 0;
    return b + 1;
}

void colio_mem_free(void *p)
{
    if (p == NULL)
        return;
    block_head_t *b = head_of(p);
    if (b->mapped)
        unmap_block(b);
    else
        free(b);
}

size_t colio_mem_size(const void *p) { return p ? head_of(p)->cap : 0; }

void *colio_mem_realloc(void *p, size_t size)
{
    if (p == NULL)
        return colio_mem_alloc(size);
    block_head_t *b = head_of(p);
    if (size <= b->cap && (b->mapped || size >= BIG_MIN || size + BIG_MIN / 4 > b->cap))
        return p; /* fits (a small block much too large shrinks below) */
    if (!b->mapped && size < BIG_MIN) {
        block_head_t *n = realloc(b, sizeof *n + (size ? size : 1));
        if (n == NULL)
            return NULL;
        n->cap = size;
        return n + 1;
    }
    void *q = colio_mem_alloc(size);
    if (q == NULL)
        return NULL;
    memcpy(q, p, b->cap < size ? b->cap : size);
    colio_mem_free(p);
    return q;
}

/* ---- a file's buffers and INIT arrays ---------------------------------------- */
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
 * call, 30% of a read behind slow storage: colio-bench behind colio_fault=delay).
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
static void *take_cached(colio_pool_t *c, size_t size, size_t align, size_t *cap_p)
{
    int best = -1;
    for (int i = 0; i < COLIO_POOL_BUFS; i++)
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

void *colio_pool_buf_take(colio_pool_t *c, size_t size, size_t *cap_p)
{
    void *p = take_cached(c, size, 1, cap_p);
    if (p || (size >= COLIO_SPARE_MIN && (p = take_spare(size, 1, cap_p)) != NULL))
        return p;
    p = malloc(size ? size : 1);
    *cap_p = p ? size : 0;
    return p;
}

void *colio_pool_buf_take_aligned(colio_pool_t *c, size_t size, size_t align, size_t *cap_p)
{
    void *p = take_cached(c, size, align, cap_p);
    if (p || (size >= COLIO_SPARE_MIN && (p = take_spare(size, align, cap_p)) != NULL))
        return p;
    if (posix_memalign(&p, align, size ? size : 1) != 0) /* freed with free() like the others */
        p = NULL;
    *cap_p = p ? size : 0;
    return p;
}

void colio_pool_buf_give(colio_pool_t *c, void *p, size_t cap)
{
    if (p == NULL)
        return;
    int slot = -1;
    for (int i = 0; i < COLIO_POOL_BUFS && slot < 0; i++)
        if (c->p[i] == NULL)
            slot = i;
    if (slot < 0) { /* full: drop the smallest, keep the big ones that are dear to fault in */
        slot = 0;
        for (int i = 1; i < COLIO_POOL_BUFS; i++)
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

void colio_pool_array_free(void *p)
{
    if (p == NULL)
        return;
    array_head_t *h = array_head(p);
    if (h->mapped)
        munmap((char *)p - page_bytes(), h->mapped);
    else
        free(h);
}

void *colio_pool_array_take(colio_pool_t *c, int kind, size_t size)
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

static void array_keep(colio_pool_t *c, int kind, void *p, size_t size, int clean)
{
    if (p == NULL)
        return;
    if (c->arr[kind] != NULL) {
        if (c->arr_size[kind] == size || c->set_owner != NULL) { /* the kept one serves (or is reserved) */
            colio_pool_array_free(p);
            return;
        }
        colio_pool_array_free(c->arr[kind]); /* sized for another aggregator count: the calls now use p's */
        c->arr[kind] = NULL;
    }
    if (c->set_owner == NULL) /* else p is of a kind the reserved set lacks: the set stays whole */
        c->set_key = 0;
    c->arr[kind] = p;
    c->arr_size[kind] = size;
    c->arr_clean[kind] = (unsigned char)clean;
}

void colio_pool_array_give(colio_pool_t *c, int kind, void *p, size_t size) { array_keep(c, kind, p, size, 0); }

int colio_pool_array_take_set(colio_pool_t *c, unsigned mask, const size_t *sizes, void **places[])
{
    int missing = 0;
    if (c->set_owner == NULL)
        c->set_key = 0; /* what is kept is taken */
    for (int kind = 0; kind < COLIO_POOL_ARRAY_KINDS; kind++) {
        if (!(mask >> kind & 1u))
            continue;
        void *p = c->set_owner ? NULL : c->arr[kind];
        if (p && c->arr_size[kind] == sizes[kind] && c->arr_clean[kind]) /* the small call's case, inline */
            c->arr[kind] = NULL;
        else
            p = colio_pool_array_take(c, kind, sizes[kind]);
        *places[kind] = p;
        missing |= p == NULL;
    }
    return missing;
}

void colio_pool_array_give_unused_set(colio_pool_t *c, int nkinds, unsigned mask, uint64_t key, const size_t *sizes,
                                      void **places[])
{
    uint64_t kept = c->set_key; /* a reserved set stays whole: these are freed (array_keep) */
    int whole = 1;
    for (int kind = 0; kind < nkinds; kind++) {
        array_keep(c, kind, *places[kind], sizes[kind], 1);
        *places[kind] = NULL;
        if (mask >> kind & 1u)
            whole &= c->arr[kind] != NULL && c->arr_size[kind] == sizes[kind] && c->arr_clean[kind];
    }
    c->set_key = c->set_owner ? kept : whole ? key : 0;
}

int colio_pool_array_reserve_set(colio_pool_t *c, uint64_t key, const void *owner)
{
    if (key == 0 || c->set_key != key || c->set_owner != NULL)
        return 0;
    c->set_owner = owner;
    return 1;
}

int colio_pool_array_release_set(colio_pool_t *c, const void *owner)
{
    if (c->set_owner != owner || owner == NULL)
        return 0;
    c->set_owner = NULL;
    return 1;
}

void colio_pool_free(colio_pool_t *c)
{
    for (int i = 0; i < COLIO_POOL_BUFS; i++) {
        if (c->p[i])
            give_spare(c->p[i], c->size[i]); /* the largest first would keep more; the cap is generous */
        c->p[i] = NULL;
    }
    for (int k = 0; k < COLIO_POOL_ARRAY_KINDS; k++) {
        colio_pool_array_free(c->arr[k]);
        c->arr[k] = NULL;
    }
    c->set_key = 0, c->set_owner = NULL;
}