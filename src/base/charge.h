/*
 * Modelled compute time for the SimGrid SMPI build (docs/SCALE.md,
 * "Computation"). SMPI would otherwise charge each simulated rank the host
 * CPU time measured between its MPI calls, which depends on what else runs
 * on the machine simulating it: the same command spread by up to 58%. Under
 * SMPI colio instead charges its own work as a cost per operation, per record
 * walked, per piece and per byte copied (colio_op_stats work_runs,
 * work_pieces, work_bytes), with
 * per-unit costs calibrated from native runs (sim/experiments/calibrate.py),
 * and the simulator charges nothing else (smpi/simulate-computation:no): the
 * simulated time is then a function of the command alone. In every other
 * build the charge compiles to nothing.
 */
#ifndef COLIO_BASE_CHARGE_H
#define COLIO_BASE_CHARGE_H

#include <stdint.h>

#include "colio.h"

/* The work of an operation already charged. */
typedef struct colio_charged {
    int64_t runs, pieces, bytes;
    int started; /* the per-operation cost is charged */
} colio_charged_t;

#ifdef COLIO_SMPI
/*
 * Charge the work in s not yet in done as simulated computation (smpi_execute),
 * unless COLIO_SIM_COMPUTE=0 (network-only experiments).
 */
void colio_charge(const colio_op_stats *s, colio_charged_t *done);
#else
static inline void colio_charge(const colio_op_stats *s, colio_charged_t *done)
{
    (void)s, (void)done;
}
#endif

#endif
