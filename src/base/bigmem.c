/* Large transient arrays kept for reuse (bigmem.h). */
#define _GNU_SOURCE
#include "base/bigmem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
