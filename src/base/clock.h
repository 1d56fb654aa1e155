/*
 * The clock of colio's statistics (seconds; only differences mean
 * anything). A 64-byte express call reads it four times or fewer (its
 * start, its storage call's two ends or its staging's end, its agreement's
 * end; the node's first rank, writing the staged pieces, two more), where
 * clock_gettime cost 22 ns a read where this was measured: over a
 * tenth of colio's own CPU in such a call. So, on x86-64, when
 * the kernel itself keeps time with the TSC (its clocksource is "tsc": the
 * counter is invariant and synchronised across cores), colio reads the TSC
 * (about 10 ns) and scales it by a factor measured once against
 * CLOCK_MONOTONIC (1 ms, at the first read); anywhere else, or when the TSC
 * is not the cheaper read (a hypervisor that traps it), clock_gettime.
 * The first read of a process pays the calibration (1 ms and a read of
 * sysfs), in the first operation's start.
 */
#ifndef COLIO_BASE_CLOCK_H
#define COLIO_BASE_CLOCK_H

/* Wall-clock seconds: never an MPI call (the I/O executors' threads read it too). */
double colio_clock_wall(void);
/* An operation's clock: colio_clock_wall, or MPI_Wtime under SMPI (the simulated time). */
double colio_clock_now(void);
/* colio_clock_now at the moment colio_clock_wall read `wall` just before: `wall` itself, or MPI_Wtime under SMPI. */
double colio_clock_now_at(double wall);
/* 1 when colio_clock_wall reads the TSC (the unit test says which it checked). */
int colio_clock_uses_tsc(void);

#endif
