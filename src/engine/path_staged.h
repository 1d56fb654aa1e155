/* Staged small writes (path_staged.c): what the express call and the STAGE step share. */
#ifndef COLIO_ENGINE_PATH_STAGED_H
#define COLIO_ENGINE_PATH_STAGED_H

#include "engine/op.h"

struct colio_file;

/* Whether a write of nbytes may go to the node's records (hints, the agreement's slots). */
int colio_stage_fits(const struct colio_file *fh, const colio_coll_t *c, MPI_Comm comm, int64_t nbytes);
/* The node's first rank: the node's staged pieces of agreement seq as a storage job; pieces in it, -1 no memory. */
int colio_stage_node_job(const struct colio_file *fh, colio_coll_t *c, int64_t seq, colio_exec_job_t *job);
int colio_step_stage(colio_op_t *op);

#endif
