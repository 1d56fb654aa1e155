/*
 * The formats of a call's metadata records (access/split.h; the strategy
 * model prices them too), and the packed piece word shared by packed
 * records and a flattening's packed pieces (access/flatten.h): a piece as
 * one 64-bit word, its offset from a base in the high 32 bits and its
 * length in the low 32, for pieces that lie within 4 GiB of their base.
 */
#ifndef COLIO_ACCESS_PACKED_H
#define COLIO_ACCESS_PACKED_H

#include <stdint.h>

/* The formats of a call's offset/length records, in words (access/split.h): a run (offset, length, stride,
   count), a piece (offset, length), a packed piece (one packed word). */
#define COLIO_META_WORDS 4
#define COLIO_META_PIECE_WORDS 2
#define COLIO_META_PACKED_WORDS 1

/* Pieces lie in fewer bytes from their base than this: offsets and lengths fit 32 bits each. */
#define COLIO_PACKED_LIMIT ((int64_t)1 << 32)

static inline int64_t colio_packed_word(int64_t off_from_base, int64_t len)
{
    return (int64_t)((uint64_t)off_from_base << 32 | (uint64_t)len);
}
static inline int64_t colio_packed_off(int64_t w) { return (int64_t)((uint64_t)w >> 32); }
static inline int64_t colio_packed_len(int64_t w) { return (int64_t)((uint64_t)w & 0xffffffffu); }

#endif
