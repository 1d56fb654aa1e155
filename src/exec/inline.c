/*
 * The executor without a helper thread: submit refuses every job,
 * so the caller runs it at once, as colio_pipeline=1 would
 * (colio_round_pipe_submit). Used under SimGrid SMPI, where a pthread is not
 * a simulated actor: storage time charged from it (the null backend's model)
 * would happen outside simulated time, and waiting for it would stall the
 * whole simulator, which runs every rank in one OS thread.
 */
#include <errno.h>

#include "exec/exec.h"

static int inline_submit(colio_exec_job_t *job)
{
    (void)job;
    return -ENOSYS;
}

static void inline_test(colio_exec_job_t *job, int *done_p)
{
    (void)job;
    *done_p = 1;
}

static void inline_wait(colio_exec_job_t *job) { (void)job; }

const colio_exec_ops_t colio_exec_inline = {
    .name = "inline",
    .submit = inline_submit,
    .test = inline_test,
    .wait = inline_wait,
};
