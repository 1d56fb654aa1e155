/* One spare duplicate per user communicator (commpool.h). */
#include "core/commpool.h"

#include <pthread.h>
#include <stdlib.h>

struct colio_comm_slot {
    pthread_mutex_t lock;
    MPI_Comm spare; /* MPI_COMM_NULL: none */
    int refs;       /* the attribute on the user's communicator, and each open file */
    int orphan;     /* the user's communicator was freed: spares are freed, not kept */
};

static int slot_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void slot_release(colio_comm_slot_t *s)
{
    pthread_mutex_lock(&s->lock);
    int last = --s->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (last) {
        pthread_mutex_destroy(&s->lock);
        free(s);
    }
}

/* The user's communicator is freed (or MPI finalizes): its spare goes too. */
static int slot_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    colio_comm_slot_t *s = value;
    pthread_mutex_lock(&s->lock);
    s->orphan = 1;
    MPI_Comm spare = s->spare;
    s->spare = MPI_COMM_NULL;
    pthread_mutex_unlock(&s->lock);
    if (spare != MPI_COMM_NULL)
        MPI_Comm_free(&spare);
    slot_release(s);
    return MPI_SUCCESS;
}

static void slot_keyval_create(void)
{
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, slot_delete, &slot_keyval, NULL);
}

/*
 * Collective: the slot on user, made at the first open there. Kept only
 * where every rank made it (one allreduce, at that first open): a slot on
 * some ranks only would have them take a spare while the others duplicate.
 * NULL everywhere when any rank failed: no spares, a plain MPI_Comm_dup.
 */
static colio_comm_slot_t *slot_of(MPI_Comm user)
{
    pthread_once(&slot_once, slot_keyval_create);
    if (slot_keyval == MPI_KEYVAL_INVALID)
        return NULL;
    colio_comm_slot_t *s = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(user, slot_keyval, &s, &found) == MPI_SUCCESS && found)
        return s;
    s = calloc(1, sizeof *s);
    if (s) {
        pthread_mutex_init(&s->lock, NULL);
        s->spare = MPI_COMM_NULL;
        s->refs = 1;
    }
    int set = s && MPI_Comm_set_attr(user, slot_keyval, s) == MPI_SUCCESS, all = 0;
    if (MPI_Allreduce(&set, &all, 1, MPI_INT, MPI_MIN, user) == MPI_SUCCESS && all)
        return s;
    if (set)
        MPI_Comm_delete_attr(user, slot_keyval); /* frees s */
    else if (s) {
        pthread_mutex_destroy(&s->lock);
        free(s);
    }
    return NULL;
}

int colio_comm_take(MPI_Comm user, MPI_Comm *dup_p, colio_comm_slot_t **slot_p)
{
    colio_comm_slot_t *s = slot_of(user);
    MPI_Comm spare = MPI_COMM_NULL;
    if (s) {
        pthread_mutex_lock(&s->lock);
        s->refs++;
        spare = s->spare;
        s->spare = MPI_COMM_NULL;
        pthread_mutex_unlock(&s->lock);
    }
    *slot_p = s;
    if (spare != MPI_COMM_NULL) {
        *dup_p = spare;
        return MPI_SUCCESS;
    }
    return MPI_Comm_dup(user, dup_p);
}

void colio_comm_give_back(colio_comm_slot_t *slot, MPI_Comm *dup)
{
    if (*dup == MPI_COMM_NULL) {
        if (slot)
            slot_release(slot);
        return;
    }
    int kept = 0;
    if (slot) {
        pthread_mutex_lock(&slot->lock);
        if (!slot->orphan && slot->spare == MPI_COMM_NULL) {
            slot->spare = *dup;
            kept = 1;
        }
        pthread_mutex_unlock(&slot->lock);
        slot_release(slot);
    }
    if (!kept)
        MPI_Comm_free(dup);
    *dup = MPI_COMM_NULL;
}
