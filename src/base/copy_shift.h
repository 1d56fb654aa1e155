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
 * penalty repeats every 64 bytes), the best of 8 each, every try at every
 * shift in turn; a shift is slow when its probe takes 1.5x as long, twice
 * (a second pass confirms what the first found). The direct path bounces reads and
 * writes only at slow shifts (a write's copy into the page cache follows
 * the same rule); colio_copy_bytes (access/copy.h) copies in pieces there;
 * a two-phase call's message that MPI would copy into or out of user
 * memory at such a shift goes through colio's memory (engine/round.c).
 * COLIO_MISALIGNED_READS=slow or fast says instead for every shift (the
 * tests force each; `slow`: every shift that is not a multiple of 32).
 */
#ifndef COLIO_BASE_COPY_SHIFT_H
#define COLIO_BASE_COPY_SHIFT_H

#include <stddef.h>
#include <stdint.h>

/* The span over which a copy's shift matters (the page: the cache's 4 KiB aliasing). */
#define COLIO_COPY_PAGE 4096

/* How far a copy's destination lies past its source modulo the page (addresses, or a file offset for one end). */
static inline unsigned colio_copy_shift(uintptr_t dst, uintptr_t src) { return (unsigned)((dst - src) % COLIO_COPY_PAGE); }

/*
 * 1 when copying into memory `shift` bytes past the source modulo
 * COLIO_COPY_PAGE is slow here (for a read: (address - file offset) mod
 * 4096): worth a bounce or pieces; 0 for multiples of 32. The first call of
 * a shift that is not measures (~1 ms).
 */
int colio_copy_slow_here(unsigned shift);

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

/* The rule alone, from given probe results (pure; colio_copy_slow_here applies it to this machine's). */
int colio_copy_shift_slow(const colio_copy_penalty_t *p, unsigned shift);

/*
 * Where a copy from a source to a destination `shift` bytes past it is
 * best put on its way when that shift is slow: this many bytes past the
 * source (a multiple of 32, so that leg is never slow) and short of the
 * destination by a shift that is not slow either (pure; 32 for a shift of
 * 16 where only 1-63 are slow). 0 when the shift is not slow.
 */
unsigned colio_copy_waypoint(const colio_copy_penalty_t *p, unsigned shift);

/* The same by this machine's probe. */
unsigned colio_copy_waypoint_here(unsigned shift);

/*
 * MPI moves a message of this size or more between two processes of one
 * node as a single kernel copy from the sender's memory into the
 * receiver's (Open MPI 4.1 from 4 KiB, MPICH 4.0 from 12 KiB here), which
 * meets the same penalty: 64 KiB took 33-45 us into memory 8-16 bytes past
 * the sender's buffer modulo 4 KiB, 8-12 us at 0 or 32 (both MPIs;
 * colio-bench --buffer-offset).
 */
#define COLIO_XFER_ALIAS_MIN 4096

#endif
