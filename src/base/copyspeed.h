/*
 * Whether the kernel copies a read slowly into memory that is off the
 * source's alignment (docs/DESIGN.md, "Aligned reads"). Linux copies out of
 * the page cache with `rep movsb` where the CPU has fast string moves; on
 * the AMD EPYC measured that copy runs 3-7x slower when the destination
 * sits 1-31 bytes past the source modulo 64 (33-63 past, and 32, copy at
 * full speed), on the Intel Xeon measured no shift is slow. The direct path
 * sends such reads through its aligned bounce buffer only where it pays:
 * measured once per process, through a pipe (whose reads use the same
 * copy), 32 KiB into aligned memory, 16 and 48 bytes off, the best of 8
 * each; a half of the shifts is slow when its probe takes 1.5x as long.
 * COLIO_MISALIGNED_READS=slow or fast says instead for every shift (the
 * tests force each).
 */
#ifndef COLIO_BASE_COPYSPEED_H
#define COLIO_BASE_COPYSPEED_H

/*
 * 1 when reads into memory shift bytes past the file offset's alignment
 * (modulo 64) are worth bouncing; 0 for multiples of 32. The first call of
 * a shift that is not measures (~0.5 ms).
 */
int colio_misaligned_read_slow(unsigned shift);

#endif
