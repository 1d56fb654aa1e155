/*
 * SimGrid SMPI portability layer, force-included in every translation unit
 * of the COLIO_SMPI build (cmake/smpi.cmake) and in no other build. Each
 * entry works around a gap of SMPI 3.32 found by running colio on it; the
 * rest of colio stays written against the MPI standard.
 */
#ifndef COLIO_BASE_SMPI_COMPAT_H
#define COLIO_BASE_SMPI_COMPAT_H

#include <mpi.h>

/*
 * MPI_Test on MPI_REQUEST_NULL with MPI_STATUS_IGNORE returns without setting
 * *flag (with a status it sets it); the standard says flag = true. colio's
 * state machines test requests that have already completed, so the flag was
 * left at whatever the caller's variable held and the operation never moved.
 */
static inline int colio_smpi_test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (req != NULL && *req == MPI_REQUEST_NULL && flag != NULL) {
        MPI_Status ignored;
        return MPI_Test(req, flag, status == MPI_STATUS_IGNORE ? &ignored : status);
    }
    return MPI_Test(req, flag, status);
}
#define MPI_Test colio_smpi_test

/*
 * MPI_Type_create_resized builds an old-style struct {MPI_LB, type, MPI_UB}
 * whose envelope says MPI_COMBINER_INDEXED (with struct contents: 4 ints,
 * 3 addresses, 3 types). An indexed type never has addresses, so that shape
 * is recognised and reported as what it is: MPI_COMBINER_RESIZED of the
 * middle type, with the lower bound and extent MPI_Type_get_extent gives.
 */
static inline int colio_smpi_fake_resized(MPI_Datatype t)
{
    int ni, na, nt, comb;
    return MPI_Type_get_envelope(t, &ni, &na, &nt, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_INDEXED &&
           ni == 4 && na == 3 && nt == 3;
}
static inline int colio_smpi_type_get_envelope(MPI_Datatype t, int *ni, int *na, int *nt, int *comb)
{
    if (colio_smpi_fake_resized(t)) {
        *ni = 0, *na = 2, *nt = 1, *comb = MPI_COMBINER_RESIZED;
        return MPI_SUCCESS;
    }
    return MPI_Type_get_envelope(t, ni, na, nt, comb);
}
static inline int colio_smpi_type_get_contents(MPI_Datatype t, int ni, int na, int nt, int *ints, MPI_Aint *addrs,
                                               MPI_Datatype *types)
{
    if (!colio_smpi_fake_resized(t))
        return MPI_Type_get_contents(t, ni, na, nt, ints, addrs, types);
    int is[4];
    MPI_Aint as[3];
    MPI_Datatype ts[3];
    int rc = MPI_Type_get_contents(t, 4, 3, 3, is, as, ts);
    if (rc == MPI_SUCCESS && na >= 2 && nt >= 1) {
        rc = MPI_Type_get_extent(t, &addrs[0], &addrs[1]);
        types[0] = ts[1]; /* ts[0], ts[2]: MPI_LB, MPI_UB (predefined) */
    }
    return rc;
}
#define MPI_Type_get_envelope colio_smpi_type_get_envelope
#define MPI_Type_get_contents colio_smpi_type_get_contents

/*
 * Making a communicator costs time growing with p^3 in SMPI 3.32 (its group
 * lookups are linear): at 1,024 ranks MPI_Comm_dup takes 31 s of wall time
 * and 29.5 simulated seconds, MPI_Comm_split 28 s of wall time. So the SMPI
 * build makes none: colio's "duplicate" is the communicator it was given,
 * and freeing one is a no-op. Safe because every operation's point-to-point
 * messages carry tags of their own (op.c), the collectives run in call
 * order, and one nonblocking operation is in flight per file
 * (colio_lanes_cap, request.c). The program must not use colio's tag
 * range (1..32767) on that communicator while colio runs.
 */
static inline int colio_smpi_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    *out = comm;
    return MPI_SUCCESS;
}
static inline int colio_smpi_comm_free(MPI_Comm *comm)
{
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#define MPI_Comm_free colio_smpi_comm_free
#define COLIO_SMPI_NB_SLOTS 1
#define MPI_Comm_dup colio_smpi_comm_dup

/*
 * SMPI implements every nonblocking collective with a linear algorithm
 * (each rank exchanges with all others: p^2 messages per MPI_Iallreduce),
 * whatever smpi/coll-selector says; at 1,024 ranks one agreement takes
 * minutes of wall time. Not worked around here: the SMPI build's default
 * colio_agreements is p2p (coll/coll_p2p.c), colio's own logarithmic
 * schedules of point-to-point messages, which also keep nonblocking colio
 * calls overlapping computation.
 */

#endif
