/*
 * The arrays operations keep between calls (base/pool.c): taken
 * zeroed, small ones from the C library and those of COLIO_ARRAY_MAP_MIN
 * bytes and more mapped; a kept one of the same size comes back zeroed
 * (a mapped one by dropping its pages), another size gets a new one; and
 * a mapped array whose pages were never written costs no resident memory
 * (what keeps an aggregator's arrays off the other ranks, docs/SCALE.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/pool.h"
#include "engine/file.h" /* the INIT arrays' kinds */
#include "testutil.h"

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

/* Pages of [p, p + n) in memory (mincore), or -1 when it cannot tell. */
static long resident_pages(void *p, size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    char *start = (char *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    size_t len = (size_t)((char *)p + n - start), np = (len + (size_t)page - 1) / (size_t)page;
    unsigned char *vec = malloc(np);
    if (vec == NULL || mincore(start, len, vec) != 0) {
        free(vec);
        return -1;
    }
    long in = 0;
    for (size_t i = 0; i < np; i++)
        in += vec[i] & 1;
    free(vec);
    return in;
}

static void round_trip(size_t size)
{
    colio_pool_t c;
    memset(&c, 0, sizeof c);
    unsigned char *a = colio_pool_array_take(&c, COLIO_ARR_AGG_SLICES, size);
    CHECK(a != NULL && all_zero(a, size), "%zu bytes: taken zeroed", size);
    memset(a, 0xab, size);
    colio_pool_array_give(&c, COLIO_ARR_AGG_SLICES, a, size);
    unsigned char *b = colio_pool_array_take(&c, COLIO_ARR_AGG_SLICES, size);
    CHECK(b == a, "%zu bytes: the kept array comes back", size);
    CHECK(all_zero(b, size), "%zu bytes: the kept array comes back zeroed", size);
    b[size - 1] = 1;
    colio_pool_array_give(&c, COLIO_ARR_AGG_SLICES, b, size);
    unsigned char *d = colio_pool_array_take(&c, COLIO_ARR_AGG_SLICES, size + 8);
    CHECK(d != NULL && d != b && all_zero(d, size + 8), "%zu bytes: another size gets a new zeroed array", size);
    unsigned char *e = colio_pool_array_take(&c, COLIO_ARR_MSGS, size);
    colio_pool_array_give(&c, COLIO_ARR_AGG_SLICES, d, size + 8); /* one of the kind is kept: this one is freed */
    colio_pool_array_give(&c, COLIO_ARR_MSGS, e, size);
    colio_pool_free(&c);
}

static void untouched_pages(void)
{
    size_t size = 64 * COLIO_ARRAY_MAP_MIN;
    colio_pool_t c;
    memset(&c, 0, sizeof c);
    unsigned char *a = colio_pool_array_take(&c, COLIO_ARR_FROM_SRC, size);
    CHECK(a != NULL, "a large array");
    long before = resident_pages(a, size);
    if (before >= 0) {
        CHECK(before <= 2, "a fresh mapped array has %ld pages in memory", before);
        a[0] = 1, a[size / 2] = 1;
        colio_pool_array_give(&c, COLIO_ARR_FROM_SRC, a, size);
        a = colio_pool_array_take(&c, COLIO_ARR_FROM_SRC, size);
        long after = resident_pages(a, size);
        CHECK(after <= 2, "zeroing a kept mapped array dropped its pages: %ld in memory", after);
        CHECK(a[0] == 0 && a[size / 2] == 0, "and reads zeros");
    }
    colio_pool_array_free(a);
    colio_pool_array_free(NULL);
    colio_pool_free(&c);
}

/* An operation's set: only the kinds asked for are taken; given back unused, the same arrays return, still zero. */
static void set_round_trip(void)
{
    colio_pool_t c;
    memset(&c, 0, sizeof c);
    size_t sizes[COLIO_ARR_KINDS];
    void *arr[COLIO_ARR_KINDS], **slots[COLIO_ARR_KINDS];
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        sizes[k] = 16 + 8 * (size_t)k, arr[k] = NULL, slots[k] = &arr[k];
    unsigned mask = (1u << COLIO_ARR_CNT_SENDERS) - 1; /* all but the sparse counts' kinds */
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0, "a set is taken");
    void *first[COLIO_ARR_KINDS];
    for (int k = 0; k < COLIO_ARR_KINDS; k++) {
        int wanted = (int)(mask >> k & 1u);
        CHECK((arr[k] != NULL) == wanted, "kind %d taken only when asked for", k);
        CHECK(!wanted || all_zero(arr[k], sizes[k]), "kind %d taken zeroed", k);
        first[k] = arr[k];
    }
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, 7, sizes, slots);
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        CHECK(arr[k] == NULL, "kind %d: its slot emptied when given back", k);
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0, "the set is taken again");
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        CHECK(arr[k] == first[k] && (arr[k] == NULL || all_zero(arr[k], sizes[k])),
              "kind %d: the kept array comes back, zero", k);
    /* an array written and given back as used comes back zeroed from the set's take */
    memset(arr[0], 0xab, sizes[0]);
    colio_pool_array_give(&c, 0, arr[0], sizes[0]);
    arr[0] = NULL;
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, 7, sizes, slots);
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0 && arr[0] == first[0] && all_zero(arr[0], sizes[0]),
          "a written array comes back zeroed");
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, 7, sizes, slots);
    colio_pool_free(&c);
}

/*
 * A whole set given back unused is reserved, not taken: while reserved no
 * one else gets its arrays (they allocate their own, and what they give
 * back is freed), and its owner takes it whole later or lets it go.
 */
static void set_reserved(void)
{
    colio_pool_t c;
    memset(&c, 0, sizeof c);
    size_t sizes[COLIO_ARR_KINDS];
    void *arr[COLIO_ARR_KINDS], *other[COLIO_ARR_KINDS], **slots[COLIO_ARR_KINDS], **oslots[COLIO_ARR_KINDS];
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        sizes[k] = 24 + 8 * (size_t)k, arr[k] = other[k] = NULL, slots[k] = &arr[k], oslots[k] = &other[k];
    unsigned mask = (1u << COLIO_ARR_KINDS) - 1;
    const uint64_t key = (uint64_t)mask << 32 | 5;
    int a = 0, b = 0; /* owners: only their addresses matter */
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "nothing kept: nothing to reserve");
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0, "a set is taken");
    void *first[COLIO_ARR_KINDS];
    memcpy(first, arr, sizeof first);
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, slots);
    CHECK(colio_pool_array_reserve_set(&c, key + 1, &a) == 0, "another key does not reserve the set");
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 1, "the whole set is reserved");
    CHECK(colio_pool_array_reserve_set(&c, key, &b) == 0, "once only");
    CHECK(colio_pool_array_take_set(&c, mask, sizes, oslots) == 0, "another operation takes a set meanwhile");
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        CHECK(other[k] != NULL && other[k] != first[k] && all_zero(other[k], sizes[k]),
              "kind %d: its own array, not the reserved one", k);
    void *one = colio_pool_array_take(&c, 0, sizes[0]);
    CHECK(one != NULL && one != first[0], "a single take does not get a reserved array either");
    colio_pool_array_free(one);
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, oslots); /* freed: the kinds are kept already */
    CHECK(colio_pool_array_release_set(&c, &b) == 0, "only the owner releases");
    CHECK(colio_pool_array_reserve_set(&c, key, &b) == 0, "still reserved");
    CHECK(colio_pool_array_release_set(&c, &a) == 1, "the owner releases");
    CHECK(colio_pool_array_reserve_set(&c, key, &b) == 1, "released untouched, the set is still whole");
    colio_pool_array_release_set(&c, &b);
    one = colio_pool_array_take(&c, 2, sizes[2]); /* taken outside a reservation: the set is no longer whole */
    CHECK(one == first[2], "the kept array of a kind, taken alone");
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "one kind taken: nothing to reserve");
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, slots); /* nothing in the slots: the set is checked again */
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "still a kind short");
    colio_pool_array_give(&c, 2, one, sizes[2]);
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "given back as used: not clean");
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0, "taken whole");
    for (int k = 0; k < COLIO_ARR_KINDS; k++)
        CHECK(arr[k] == first[k] && all_zero(arr[k], sizes[k]), "kind %d: the kept array, zero", k);
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, slots);
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 1, "given back whole and clean: reserved again");
    colio_pool_array_release_set(&c, &a);
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0, "and taken");
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "taken: nothing to reserve");
    /* one array given back written: the set is not clean, so not reserved (its take zeroes it) */
    memset(arr[3], 0xcd, sizes[3]);
    colio_pool_array_give(&c, 3, arr[3], sizes[3]);
    arr[3] = NULL;
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, slots);
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "a written array: the set is not whole");
    CHECK(colio_pool_array_take_set(&c, mask, sizes, slots) == 0 && arr[3] == first[3] && all_zero(arr[3], sizes[3]),
          "the written array comes back zeroed");
    /* a set given back without one of its kinds is not whole */
    colio_pool_array_free(arr[5]);
    arr[5] = NULL;
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, slots);
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "a kind missing: the set is not whole");
    /* an array of another size (the aggregator count changed) replaces the kept one: later takes find it */
    colio_pool_array_give_unused_set(&c, COLIO_ARR_KINDS, mask, key, sizes, slots);
    void *bigger = colio_pool_array_take(&c, 4, 2 * sizes[4]);
    CHECK(bigger != NULL && bigger != first[4], "another size: a new array");
    colio_pool_array_give(&c, 4, bigger, 2 * sizes[4]);
    void *again = colio_pool_array_take(&c, 4, 2 * sizes[4]);
    CHECK(again == bigger && all_zero(again, 2 * sizes[4]), "the new size is kept, zeroed when taken back");
    colio_pool_array_free(again);
    colio_pool_free(&c);
    CHECK(colio_pool_array_reserve_set(&c, key, &a) == 0, "freed: nothing to reserve");
}

/*
 * Large buffers of closed files stay for the next file's operations; when
 * the pool is full, the longest unused go. A file written (two 16 MiB
 * buffers and an 8 MiB one) then one read (two buffers a page larger than
 * the writes', as read rounds are) and another read: the second read gets
 * the first read's buffers back (their bytes still there), not fresh
 * ones. Before, the writes' buffers held the pool and every read faulted
 * its buffers in anew.
 */
static void spare_pool_follows_use(void)
{
    enum { MIB = 1 << 20, PAGE = 4096 };
    const size_t wsize[3] = {16 * MIB, 16 * MIB, 8 * MIB}, rsize = 16 * MIB + PAGE;
    colio_pool_t w, r1, r2;
    memset(&w, 0, sizeof w), memset(&r1, 0, sizeof r1), memset(&r2, 0, sizeof r2);
    char *held[3];
    size_t held_cap[3];
    for (int i = 0; i < 3; i++) { /* held at once, as a write's collective and staging buffers are */
        held[i] = colio_pool_buf_take(&w, wsize[i], &held_cap[i]);
        CHECK(held[i] != NULL && held_cap[i] >= wsize[i], "write buffer %d", i);
    }
    for (int i = 0; i < 3; i++)
        colio_pool_buf_give(&w, held[i], held_cap[i]);
    colio_pool_free(&w); /* closed: 40 MiB to the pool */
    char *rb[2];
    size_t rcap[2];
    for (int i = 0; i < 2; i++) {
        rb[i] = colio_pool_buf_take_aligned(&r1, rsize, PAGE, &rcap[i]);
        CHECK(rb[i] != NULL && rcap[i] >= rsize, "read buffer %d", i);
        memset(rb[i] + rsize - 1, 0x5a, 1); /* marks: a fresh mapping reads zero */
    }
    for (int i = 0; i < 2; i++)
        colio_pool_buf_give(&r1, rb[i], rcap[i]);
    colio_pool_free(&r1); /* the pool is full: the writes' buffers make room */
    int found = 0;
    for (int i = 0; i < 2; i++) {
        size_t cap;
        rb[i] = colio_pool_buf_take_aligned(&r2, rsize, PAGE, &cap);
        CHECK(rb[i] != NULL && cap >= rsize, "second read's buffer %d", i);
        found += rb[i] != NULL && (unsigned char)rb[i][rsize - 1] == 0x5a;
        rcap[i] = cap;
    }
    CHECK(found == 2, "the second read found the first read's buffers kept (%d of 2)", found);
    for (int i = 0; i < 2; i++)
        colio_pool_buf_give(&r2, rb[i], rcap[i]);
    colio_pool_free(&r2);
}

int main(void)
{
    spare_pool_follows_use();
    set_round_trip();
    set_reserved();
    round_trip(64);
    round_trip(COLIO_ARRAY_MAP_MIN - 1);
    round_trip(COLIO_ARRAY_MAP_MIN);
    round_trip(3 * COLIO_ARRAY_MAP_MIN + 17);
    untouched_pages();
    return unit_finish("test_pool_unit");
}
