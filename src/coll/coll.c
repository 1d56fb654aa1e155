/* Registry of the agreement implementations (coll.h) and the one they share. */
#include "coll/coll.h"

#include <stdint.h>
#include <string.h>

/* The only list of implementations: add one line per new one. */
static const colio_coll_ops_t *const registry[] = {
    &colio_coll_mpi,
    &colio_coll_p2p,
    &colio_coll_shm,
};

#define N_COLLS ((int)(sizeof registry / sizeof registry[0]))

const colio_coll_ops_t *colio_coll_find(const char *name)
{
    for (int i = 0; i < N_COLLS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/*
 * shm: a blocking call's allreduces through node-shared slots where its
 * ranks share a node (no messages: docs/PERFORMANCE.md, "Agreements in
 * shared memory"), p2p for everything else. p2p rather than MPI's own:
 * SMPI's nonblocking collectives are linear (base/smpi_compat.h,
 * docs/SCALE.md), and under MPICH 4.0 and Open MPI 4.1 colio's schedules
 * cost 0.3-0.55 us less per agreement than MPI_Iallreduce and its tests at
 * 2 ranks (docs/PERFORMANCE.md, "One agreement per call"); both are
 * log2(p) steps.
 */
const char *colio_coll_default_name(void) { return "shm"; }

int colio_coll_element_size(MPI_Datatype t)
{
    int esize = 0;
    if (t == MPI_INT64_T)
        return (int)sizeof(int64_t);
    return MPI_Type_size(t, &esize) == MPI_SUCCESS ? esize : 0;
}

void colio_coll_init(colio_coll_t *c, const colio_coll_ops_t *ops, int tag, colio_coll_shm_t *shm)
{
    c->ops = ops;
    c->tag = tag;
    c->shm = shm;
    ops->init(c);
}

int colio_coll_pending(const colio_coll_t *c) { return c->ops->pending(c); }


/* ---- local reductions ------------------------------------------------------------------ */

#define LOCAL_OPS 8
static struct {
    MPI_Op op;
    MPI_User_function *fn;
} local_ops[LOCAL_OPS];
static int nlocal_ops; /* entries below it are complete and never change: read without a lock */

void colio_coll_local_op(MPI_Op op, MPI_User_function *fn)
{
    int n = __atomic_load_n(&nlocal_ops, __ATOMIC_ACQUIRE);
    if (n == LOCAL_OPS)
        return; /* MPI_Reduce_local then */
    local_ops[n].op = op, local_ops[n].fn = fn;
    __atomic_store_n(&nlocal_ops, n + 1, __ATOMIC_RELEASE); /* callers register once, from one thread */
}

static MPI_User_function *local_fn(MPI_Op op)
{
    int n = __atomic_load_n(&nlocal_ops, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (local_ops[i].op == op)
            return local_ops[i].fn;
    return NULL;
}

int colio_coll_reduce_local(const void *in, void *inout, int n, MPI_Datatype t, MPI_Op op)
{
    if (t == MPI_INT64_T && (op == MPI_MIN || op == MPI_MAX || op == MPI_SUM)) {
        const int64_t *a = in;
        int64_t *b = inout;
        for (int i = 0; i < n; i++)
            b[i] = op == MPI_MIN ? (a[i] < b[i] ? a[i] : b[i])
                 : op == MPI_MAX ? (a[i] > b[i] ? a[i] : b[i])
                                 : (int64_t)((uint64_t)a[i] + (uint64_t)b[i]); /* MPI's wrap, without C's UB */
        return MPI_SUCCESS;
    }
    MPI_User_function *fn = local_fn(op);
    if (fn == NULL)
        return MPI_Reduce_local(in, inout, n, t, op);
    fn((void *)in, inout, &n, &t);
    return MPI_SUCCESS;
}
