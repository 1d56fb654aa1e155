/*
 * The lanes of a file's nonblocking operations: communicators duplicated
 * from the file's own, one per operation that may be in flight at once
 * (colio_max_outstanding), so that their agreements and messages never
 * match another operation's.
 */
#include <stdio.h>

#include "engine/file.h"
#include "engine/lanes.h"


/*
 * Start duplicating the next lane's communicator from the file's own.
 * Without one (the communicator's cache could not be kept, or SMPI, where
 * the "duplicate" is the communicator itself) the lane is made at once with
 * a blocking MPI_Comm_dup of the file's communicator: an idup there could
 * start at different points on different ranks among the file's other
 * collectives. (Then two files' first nonblocking calls must not cross.)
 */
static void lane_dup_start(colio_file *fh, colio_lane_t *s)
{
    s->forming = MPI_REQUEST_NULL;
    if (fh->own == MPI_COMM_NULL) {
        if (fh->cache || MPI_Comm_dup(fh->comm, &s->comm) != MPI_SUCCESS)
            fh->prog->lost = 1; /* with a cache the own duplicate did not form at open (api/file.c, take_own) */
        return;
    }
    if (MPI_Comm_idup(fh->own, &s->comm, &s->forming) != MPI_SUCCESS)
        fh->prog->lost = 1;
}

/*
 * Move the file's lane duplicates along: one MPI_Comm_idup at a time, in
 * lane order, from the file's own duplicate, a communicator used for
 * nothing else (api/comm_cache.h). Every rank starts them in the same
 * order, so they pair alike; one at a time because Open MPI 4.1 runs the
 * later rounds of an idup's context-id agreement from its progress engine,
 * where several at once could pair differently on different ranks. Never
 * a blocking duplicate: two files' first nonblocking calls may come in
 * different orders on different ranks, and each would wait for the other.
 * (A file without its own duplicate, which only a failed cache leaves,
 * duplicates from its communicator; then a nonblocking call must not cross
 * another file's first one.)
 */
void colio_lanes_form(colio_file *fh)
{
    colio_progress_file_t *f = fh->prog;
    int64_t want = f->started < f->want ? f->started : f->want; /* the lanes taken: alike on every rank */
    while (!f->lost) {
        if (f->forming >= 0) {
            colio_lane_t *s = &f->lanes[f->forming];
            int done = 1;
            if (s->forming != MPI_REQUEST_NULL && MPI_Test(&s->forming, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                f->lost = 1, done = 0;
            if (!done)
                return;
            MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
            f->nformed++;
            f->forming = -1;
        }
        if (f->nformed >= want)
            return;
        f->forming = f->nformed;
        lane_dup_start(fh, &f->lanes[f->forming]);
    }
}

int colio_lane_formed(colio_op_t *op)
{
    colio_progress_file_t *f = op->fh->prog;
    int k = (int)(op->lane - f->lanes);
    if (k >= f->nformed)
        colio_lanes_form(op->fh);
    if (k < f->nformed) {
        op->comm = op->lane->comm;
        return 1;
    }
    return f->lost ? -1 : 0;
}

void colio_lane_lost(colio_op_t *op)
{
    fprintf(stderr, "colio: %s on %s: the communicator of a nonblocking operation could not be duplicated "
            "(MPI_Comm_idup failed); aborting (the other ranks would wait forever)\n", op->args.api, op->fh->path);
    MPI_Abort(op->fh->comm, COLIO_ERR_MPI);
}