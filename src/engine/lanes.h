/* The lanes of a file's nonblocking operations (lanes.c), and the engine's record of an open file. */
#ifndef COLIO_ENGINE_LANES_H
#define COLIO_ENGINE_LANES_H

#include <mpi.h>
#include <stdint.h>

#include "engine/op.h"

struct colio_file;

typedef struct colio_lane {
    MPI_Comm comm;        /* a duplicate of the file's own, MPI_COMM_NULL until formed */
    MPI_Request forming;  /* its MPI_Comm_idup while in flight */
    colio_op_t *user;     /* the operation running on it, or NULL */
} colio_lane_t;

typedef struct colio_progress_file {
    struct colio_file *fh;
    colio_lane_t *lanes;
    int nlanes;           /* allocated (grows with colio_max_outstanding) */
    int want;             /* colio_max_outstanding at the last nonblocking call */
    int nformed;          /* lanes[0..nformed-1] have their communicator */
    int forming;          /* the lane whose duplicate is in flight, or -1 */
    int lost;             /* a duplicate failed: later operations cannot start */
    int64_t started;      /* nonblocking operations started */
    int threaded;         /* colio_progress resolved to thread */
    struct colio_progress_file *next, *prev; /* open files of the process */
} colio_progress_file_t;

/* Move the file's lane duplicates along (lock held). */
void colio_lanes_form(struct colio_file *fh);
/* START of a nonblocking operation: 1 when its lane's communicator formed (op->comm set), 0 not yet,
   -1 it cannot (colio_lane_lost). */
int colio_lane_formed(colio_op_t *op);
/* The -1 of colio_lane_formed: says why and aborts (nothing can agree without the communicator). */
void colio_lane_lost(colio_op_t *op);

#endif
