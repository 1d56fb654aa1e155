/*
 * Whether the kernel copies a read slowly into memory that is off the
 * source's alignment (docs/DESIGN.md, "Aligned reads"). Linux copies out of
 * the page cache with `rep movsb` where the CPU has fast string moves; on
 * AMD EPYC that copy runs 3-5x slower when the destination sits 8 or 16
 * bytes off modulo 32, on the Intel Xeon measured it does not. The direct
 * path sends such reads through its aligned bounce buffer only where it
 * pays: measured once per process, through a pipe (whose reads use the same
 * copy), 32 KiB into aligned memory and 16 bytes off, the best of 8 each;
 * slow when off takes 1.5x as long. COLIO_MISALIGNED_READS=slow or fast
 * says instead (the tests force each).
 */
#ifndef COLIO_BASE_COPYSPEED_H
#define COLIO_BASE_COPYSPEED_H

/* 1 when reads into memory off the file's alignment are worth bouncing; the first call measures (~0.3 ms). */
int colio_misaligned_reads_slow(void);

#endif
