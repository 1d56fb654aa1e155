/* Modelled compute time for the SMPI build (base/charge.h). */
#include "base/charge.h"

#ifdef COLIO_SMPI
#include <stdlib.h>

#include <mpi.h> /* SMPI's, which declares smpi_execute */

/*
 * Seconds per operation, per record walked, per piece and per byte copied, fitted by
 * sim/experiments/calibrate.py to colio's compute time (colio_op_stats
 * time.compute) over native runs of colio-bench's interleaved and E3SM-like
 * workloads (docs/SCALE.md, "Computation", gives the command and the fit).
 */
static const struct {
    double op, run, piece, byte;
} cost = {7.73e-05, 5.29e-09, 1.9e-09, 2.79e-11};

static double charge_seconds(int ops, int64_t runs, int64_t pieces, int64_t bytes)
{
    return ops * cost.op + (double)runs * cost.run + (double)pieces * cost.piece + (double)bytes * cost.byte;
}

/* COLIO_SIM_COMPUTE=0: charge nothing (read once per simulated rank: SMPI gives each its own globals). */
static int charging(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("COLIO_SIM_COMPUTE");
        on = !(v && v[0] == '0');
    }
    return on;
}

void colio_charge(const colio_op_stats *s, colio_charged_t *done)
{
    int ops = !done->started;
    double t = charge_seconds(ops, s->work_runs - done->runs, s->work_pieces - done->pieces,
                                    s->work_bytes - done->bytes);
    done->started = 1, done->runs = s->work_runs, done->pieces = s->work_pieces, done->bytes = s->work_bytes;
    if (t > 0 && charging())
        smpi_execute(t);
}
#endif
