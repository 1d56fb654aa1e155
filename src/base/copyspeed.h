/*
 * Whether the CPU's string copy runs slowly into memory that is off the
 * source's alignment (docs/DESIGN.md, "Aligned reads"). Linux copies out of
 * the page cache with `rep movsb` where the CPU has fast string moves, and
 * glibc's memcpy uses it from 2 KiB to 512 KiB; on the AMD EPYC measured
 * that copy runs 3-23x slower when the destination sits 1-31 bytes past
 * the source within a page (the copy's stores just behind its loads
 * modulo 4 KiB); 32-4095 bytes past, and 0, copy at full speed. On the
 * Intel Xeon measured no shift is slow. Measured once per process, through
 * a pipe (whose reads use the kernel's copy), 32 KiB into page-aligned
 * memory 16 and 48 bytes off (the two halves of 64 bytes at a page's
 * start) and 1,040 and 1,072 off (the same halves further in: whether the
 * penalty repeats every 64 bytes), the best of 8 each; a shift is slow
 * when its probe takes 1.5x as long. The direct path bounces reads only at
 * slow shifts; colio_copy_bytes (access/copy.h) copies in pieces there.
 * COLIO_MISALIGNED_READS=slow or fast says instead for every shift (the
 * tests force each; `slow`: every shift that is not a multiple of 32).
 */
#ifndef COLIO_BASE_COPYSPEED_H
#define COLIO_BASE_COPYSPEED_H

#include <stddef.h>

/* The span over which a copy's shift matters (the page: the cache's 4 KiB aliasing). */
#define COLIO_COPY_PAGE 4096

/*
 * 1 when copying into memory `shift` bytes past the source modulo
 * COLIO_COPY_PAGE is slow here (for a read: (address - file offset) mod
 * 4096): worth a bounce or pieces; 0 for multiples of 32. The first call of
 * a shift that is not measures (~1 ms).
 */
int colio_misaligned_read_slow(unsigned shift);

/*
 * Copies in this size range may use `rep movsb`, whose shifts within a page
 * matter: glibc's threshold is 2 KiB or more (2,112 bytes here), and from
 * `rep_movsb_stop_threshold` on (512 KiB here, the L2 size on AMD) it
 * moves vectors, or non-temporal stores, which do not mind the shift and
 * beat 1 KiB pieces on data out of cache (two-phase reads of 1 MiB blocks:
 * 20% slower in pieces).
 */
#define COLIO_COPY_ALIAS_MIN 2048
#define COLIO_COPY_ALIAS_MAX (512 << 10)

/*
 * memcpy of n bytes (ranges apart) whose destination lies 1-63 bytes past
 * the source modulo COLIO_COPY_PAGE (access/copy.h's colio_copy_bytes calls
 * it): in pieces of 1 KiB, below `rep movsb`'s use, where such shifts copy
 * slowly here; one memcpy elsewhere.
 */
void colio_copy_aliased(char *d, const char *s, size_t n);

/* What the probe found (or COLIO_MISALIGNED_READS said): which shifts copy slowly. */
typedef struct colio_copy_penalty {
    int low, high;         /* shifts of 1-31 and 33-63 bytes */
    int far_low, far_high; /* the same modulo 64, 64 bytes or more past (the penalty repeating every 64 bytes) */
} colio_copy_penalty_t;

/* The rule alone, from given probe results (pure; colio_misaligned_read_slow applies it to this machine's). */
int colio_copy_shift_slow(const colio_copy_penalty_t *p, unsigned shift);

#endif
