/* The direct-I/O alignment of a descriptor opened with O_DIRECT, as the posix backend and the probe use it. */
#ifndef COLIO_STORE_DIO_H
#define COLIO_STORE_DIO_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Memory and file-offset alignment of direct calls on fd (statx
 * STATX_DIOALIGN, else blksize for both), 0 when they are usable powers of
 * two, -1 where the file system reports none (then no direct I/O there).
 */
static inline int colio_dio_alignment(int fd, int64_t blksize, int64_t *mem_p, int64_t *off_p)
{
    int64_t mem = blksize, off = blksize;
#ifdef STATX_DIOALIGN
    struct statx sx;
    if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN))
        mem = sx.stx_dio_mem_align, off = sx.stx_dio_offset_align; /* 0: no direct I/O on this file */
#endif
    if (mem <= 0 || off <= 0 || (mem & (mem - 1)) || (off & (off - 1)))
        return -1;
    *mem_p = mem, *off_p = off;
    return 0;
}

#endif
