/* The per-communicator cache (comm_cache.h): topology, the shared duplicate, the kept and spare duplicates. */
#include "api/comm_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cache_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t cache_keyval_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t refs_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every rank drops the last reference at the same collective call: a spare still forming completes. */
static void cache_free(colio_comm_cache_t *c)
{
    if (c->spare_req != MPI_REQUEST_NULL && MPI_Wait(&c->spare_req, MPI_STATUS_IGNORE) == MPI_SUCCESS)
        MPI_Comm_free(&c->spare);
    for (int i = 0; i < c->nkept; i++)
        MPI_Comm_free(&c->kept[i].comm);
    if (c->nursery != MPI_COMM_NULL)
        MPI_Comm_free(&c->nursery);
    if (c->shm)
        colio_coll_shm_free(c->shm);
    if (c->shared != MPI_COMM_NULL)
        MPI_Comm_free(&c->shared);
    colio_topo_free(&c->topo);
    free(c);
}

void colio_comm_cache_release(colio_comm_cache_t *c)
{
    pthread_mutex_lock(&refs_lock);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&refs_lock);
    if (last)
        cache_free(c);
}

int64_t colio_comm_cache_proposal(colio_comm_cache_t *c)
{
    pthread_mutex_lock(&refs_lock);
    int64_t best = -1;
    for (int i = 0; i < c->nkept; i++)
        if (c->kept[i].id > best)
            best = c->kept[i].id;
    pthread_mutex_unlock(&refs_lock);
    return best;
}

/* Take the kept duplicate numbered id out of the cache; 0 when this rank has none such. */
static int take_kept(colio_comm_cache_t *c, int64_t id, MPI_Comm *own)
{
    int found = 0;
    pthread_mutex_lock(&refs_lock);
    for (int i = 0; i < c->nkept && !found; i++)
        if (c->kept[i].id == id) {
            *own = c->kept[i].comm;
            c->kept[i] = c->kept[--c->nkept];
            found = 1;
        }
    pthread_mutex_unlock(&refs_lock);
    return found;
}

/*
 * A spare that did not form (MPI_Comm_idup's error) stops the program: the
 * other ranks' spares formed, and their next take or the cache's free would
 * wait for one this rank never started again.
 */
static int take_spare(colio_comm_cache_t *c, MPI_Comm *own, int64_t *own_id, colio_err_t *err)
{
    (void)err;
    int rc = c->spare_req != MPI_REQUEST_NULL ? MPI_Wait(&c->spare_req, MPI_STATUS_IGNORE) : MPI_ERR_OTHER;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "colio: colio_open: the duplicate communicator for nonblocking calls did not form "
                "(MPI_Comm_idup failed); aborting (the other ranks would wait forever)\n");
        MPI_Abort(c->nursery != MPI_COMM_NULL ? c->nursery : MPI_COMM_WORLD, COLIO_ERR_MPI);
    }
    *own = c->spare;
    *own_id = c->next_id++;
    MPI_Comm_set_errhandler(*own, MPI_ERRORS_RETURN);
    rc = MPI_Comm_idup(c->nursery, &c->spare, &c->spare_req); /* the next one, forming meanwhile */
    if (rc != MPI_SUCCESS)
        c->spare_req = MPI_REQUEST_NULL; /* the next open that needs it reports it */
    return COLIO_SUCCESS;
}

int colio_comm_cache_own(colio_comm_cache_t *c, int64_t id, MPI_Comm *own, int64_t *own_id, colio_err_t *err)
{
    *own = MPI_COMM_NULL;
    *own_id = -1;
    if (id >= 0 && take_kept(c, id, own)) { /* every rank proposed it: every rank has it */
        *own_id = id;
        return COLIO_SUCCESS;
    }
    return take_spare(c, own, own_id, err);
}

void colio_comm_cache_keep(colio_comm_cache_t *c, MPI_Comm *own, int64_t own_id)
{
    pthread_mutex_lock(&refs_lock);
    int room = c->nkept < COLIO_COMM_KEPT_MAX;
    if (room)
        c->kept[c->nkept++] = (struct colio_comm_kept){*own, own_id};
    pthread_mutex_unlock(&refs_lock);
    if (!room)
        MPI_Comm_free(own);
    *own = MPI_COMM_NULL;
}

colio_comm_cache_t *colio_comm_cache_hold(colio_comm_cache_t *c)
{
    pthread_mutex_lock(&refs_lock);
    c->refs++;
    pthread_mutex_unlock(&refs_lock);
    return c;
}

MPI_Comm colio_comm_cache_take(colio_comm_cache_t *c) { return colio_comm_cache_hold(c)->shared; }

/* The program freed its communicator: files still open on the shared duplicate keep it. */
static int cache_attr_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    colio_comm_cache_release(value);
    return MPI_SUCCESS;
}

static void cache_keyval_create(void)
{
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cache_attr_delete, &cache_keyval, NULL);
}

colio_comm_cache_t *colio_comm_cache_find(MPI_Comm user_comm)
{
    pthread_once(&cache_keyval_once, cache_keyval_create);
    colio_comm_cache_t *kept = NULL;
    int found = 0;
    if (cache_keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_get_attr(user_comm, cache_keyval, &kept, &found);
    return found ? kept : NULL;
}

/* Whether this process lets files share a duplicate (threads calling collectives at once: not). */
static int may_share(void)
{
#ifdef COLIO_SMPI
    return 0; /* smpi_compat.h: no duplicates at all */
#else
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    return level != MPI_THREAD_MULTIPLE;
#endif
}

/* The parent of the spares and the first spare forming (blocking dup: inside the first open). */
static int start_nursery(colio_comm_cache_t *c, MPI_Comm comm)
{
#ifdef COLIO_SMPI
    (void)c, (void)comm;
    return MPI_ERR_OTHER; /* smpi_compat.h: no duplicates, files use their communicator */
#endif
    int rc = MPI_Comm_dup(comm, &c->nursery);
    if (rc != MPI_SUCCESS) {
        c->nursery = MPI_COMM_NULL;
        return rc;
    }
    MPI_Comm_set_errhandler(c->nursery, MPI_ERRORS_RETURN);
    rc = MPI_Comm_idup(c->nursery, &c->spare, &c->spare_req);
    if (rc != MPI_SUCCESS)
        c->spare_req = MPI_REQUEST_NULL; /* the first open that shares reports it */
    return MPI_SUCCESS;
}

/* The agreements' slots in node-shared memory, where some node holds two ranks of comm or more. */
static void start_slots(colio_comm_cache_t *c, MPI_Comm comm)
{
    if (colio_coll_shm_create_agreed(comm, 0, c->topo.nnodes < c->topo.nprocs, &c->slots))
        c->shm = &c->slots;
}

int colio_comm_cache_build(MPI_Comm user_comm, MPI_Comm comm, int probe_net, colio_topo_t *topo,
                           colio_comm_cache_t **shared_p, colio_comm_cache_t **cache_p, colio_err_t *err)
{
    *shared_p = *cache_p = NULL;
    int rc = colio_topo_build(comm, topo, err);
    if (rc == COLIO_SUCCESS && probe_net && colio_topo_probe_net(comm, topo) != COLIO_SUCCESS)
        rc = colio_err_set(err, COLIO_ERR_MPI, "measuring the network between nodes failed");
    if (colio_comm_cache_find(user_comm) != NULL || cache_keyval == MPI_KEYVAL_INVALID) /* alike everywhere */
        return rc;
    /* kept only where every rank keeps it (a local failure to allocate or to set the attribute would
       otherwise make the next open build, collectively, on some ranks only); shared likewise */
    colio_comm_cache_t *c = rc == COLIO_SUCCESS ? calloc(1, sizeof *c) : NULL;
    int ok = c != NULL && colio_topo_copy(topo, &c->topo) == COLIO_SUCCESS;
    if (c && !ok)
        free(c), c = NULL;
    int set = ok && MPI_Comm_set_attr(user_comm, cache_keyval, c) == MPI_SUCCESS;
    int mine[2] = {set, may_share()}, all[2] = {0, 0};
    if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all[0]) {
        if (set) {
            c->shared = c->nursery = MPI_COMM_NULL, c->spare_req = MPI_REQUEST_NULL, c->refs = 1;
            MPI_Comm_delete_attr(user_comm, cache_keyval); /* frees c */
        } else if (c) {
            colio_topo_free(&c->topo);
            free(c);
        }
        return rc;
    }
    c->shared = c->nursery = MPI_COMM_NULL, c->spare_req = MPI_REQUEST_NULL, c->refs = 1; /* the attribute's */
    if (start_nursery(c, comm) != MPI_SUCCESS) /* alike everywhere: a collective fails on all */
        return rc;
    *cache_p = colio_comm_cache_hold(c); /* the caller's file's, for its own duplicate */
    if (all[1]) {
        c->shared = comm;
        *shared_p = colio_comm_cache_hold(c);
        start_slots(c, comm);
    }
    return rc;
}
