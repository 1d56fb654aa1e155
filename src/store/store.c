/* Registry of storage backends and small helpers shared by all of them. */
#include "store/store.h"

#include <string.h>

#include "store/backends.h"

/* The only list of backends: add one line per new backend. */
static const colio_store_ops_t *const registry[] = {
    &colio_store_posix,
    &colio_store_fault,
    &colio_store_null,
};

#define N_STORES ((int)(sizeof registry / sizeof registry[0]))

const colio_store_ops_t *colio_store_find(const char *name)
{
    for (int i = 0; i < N_STORES; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *colio_store_name(int i) { return i >= 0 && i < N_STORES ? registry[i]->name : NULL; }

int colio_store_pwrite(const colio_store_ops_t *ops, colio_store_t *st, const void *buf,
                       int64_t len, int64_t off)
{
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = (size_t)len};
    return ops->pwritev(st, &iov, 1, off);
}

int colio_store_pread(const colio_store_ops_t *ops, colio_store_t *st, void *buf, int64_t len,
                      int64_t off, int64_t *got_p)
{
    struct iovec iov = {.iov_base = buf, .iov_len = (size_t)len};
    return ops->preadv(st, &iov, 1, off, got_p);
}
