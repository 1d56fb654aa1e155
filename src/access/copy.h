/*
 * Strided copies: count blocks of len bytes, the source and destination each
 * advancing by its own stride. Small power-of-two blocks (the 4-64 byte
 * pieces of interleaved and climate-model patterns) get loops with a
 * constant size, which the compiler turns into plain vector moves instead of
 * a memcpy call per piece.
 */
#ifndef COLIO_ACCESS_COPY_H
#define COLIO_ACCESS_COPY_H

#include <stdint.h>
#include <string.h>

#include "base/copy_shift.h"

/*
 * Whether a copy of n bytes from s to d is one `rep movsb` may run slowly:
 * glibc copies 2-512 KiB that way, and some CPUs (AMD EPYC here) run it
 * 10-23x slower when the destination lies 1-31 bytes past the source
 * modulo 4 KiB (64 KiB: 30 us against 1.7), exactly where a bounce or
 * collective buffer at a file offset's alignment meets a program's buffer
 * 16 bytes past a page. 1-63 here; the probe says which of them are slow
 * (base/copy_shift.h).
 */
static inline int colio_copy_may_alias(const char *d, const char *s, size_t n)
{
    return n >= COLIO_COPY_ALIAS_MIN && n < COLIO_COPY_ALIAS_MAX &&
           colio_copy_shift((uintptr_t)d, (uintptr_t)s) - 1 < 63;
}

/* One contiguous copy between ranges apart (as memcpy): in pieces where the shift is slow here. */
static inline void colio_copy_bytes(char *d, const char *s, size_t n)
{
    if (colio_copy_may_alias(d, s, n))
        colio_copy_aliased(d, s, n);
    else
        memcpy(d, s, n);
}

#define COLIO_COPY_FIXED(n)                                                   \
    static inline void colio_copy_##n(char *d, int64_t ds, const char *s, int64_t ss, int64_t count) \
    {                                                                         \
        for (int64_t k = 0; k < count; k++, d += ds, s += ss)                 \
            memcpy(d, s, n);                                                  \
    }
COLIO_COPY_FIXED(4)
COLIO_COPY_FIXED(8)
COLIO_COPY_FIXED(16)
COLIO_COPY_FIXED(32)
COLIO_COPY_FIXED(64)
#undef COLIO_COPY_FIXED

/*
 * A copy of at most 32 bytes without a call: two fixed-size moves that may
 * overlap in the middle (the climate maps' runs are a few doubles each, and
 * a memcpy call per run cost more than the bytes).
 */
static inline void colio_copy_small(char *d, const char *s, int64_t len)
{
    if (len >= 16) {
        memcpy(d, s, 16);
        memcpy(d + len - 16, s + len - 16, 16);
    } else if (len >= 8) {
        memcpy(d, s, 8);
        memcpy(d + len - 8, s + len - 8, 8);
    } else if (len >= 4) {
        memcpy(d, s, 4);
        memcpy(d + len - 4, s + len - 4, 4);
    } else {
        for (int64_t i = 0; i < len; i++)
            d[i] = s[i];
    }
}

static inline void colio_copy_strided(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,
                                      int64_t len, int64_t count)
{
    if (dst_stride == len && src_stride == len) { /* both sides contiguous */
        if (len * count <= 32)
            colio_copy_small(dst, src, len * count);
        else
            colio_copy_bytes(dst, src, (size_t)(len * count));
        return;
    }
    switch (len) {
    case 4:
        colio_copy_4(dst, dst_stride, src, src_stride, count);
        return;
    case 8:
        colio_copy_8(dst, dst_stride, src, src_stride, count);
        return;
    case 16:
        colio_copy_16(dst, dst_stride, src, src_stride, count);
        return;
    case 32:
        colio_copy_32(dst, dst_stride, src, src_stride, count);
        return;
    case 64:
        colio_copy_64(dst, dst_stride, src, src_stride, count);
        return;
    default:
        if (len <= 32) {
            for (int64_t k = 0; k < count; k++, dst += dst_stride, src += src_stride)
                colio_copy_small(dst, src, len);
            return;
        }
        for (int64_t k = 0; k < count; k++, dst += dst_stride, src += src_stride)
            colio_copy_bytes(dst, src, (size_t)len);
    }
}

#endif
