/* I/O vectors as the backends cut them: their bytes, and a stretch of them as a vector of its own. */
#ifndef COLIO_STORE_IOV_H
#define COLIO_STORE_IOV_H

#include <stdint.h>
#include <sys/uio.h>

static inline int64_t colio_iov_bytes(const struct iovec *iov, int iovcnt)
{
    int64_t n = 0;
    for (int i = 0; i < iovcnt; i++)
        n += (int64_t)iov[i].iov_len;
    return n;
}

/* The bytes [skip, skip + len) of iov as a vector in out (room for iovcnt entries); its count. */
__attribute__((unused)) static int colio_iov_slice(const struct iovec *iov, int iovcnt, int64_t skip, int64_t len, struct iovec *out)
{
    int n = 0;
    for (int i = 0; i < iovcnt && len > 0; i++) {
        int64_t l = (int64_t)iov[i].iov_len;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        int64_t take = l - skip < len ? l - skip : len;
        out[n++] = (struct iovec){(char *)iov[i].iov_base + skip, (size_t)take};
        len -= take, skip = 0;
    }
    return n;
}

#endif
