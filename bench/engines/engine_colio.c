/* Engine "colio": the access through colio's view (or list) API, with every hint given. */
#include <stdio.h>

#include "../bench.h"
#include "colio.h"

static int fail(int rc, colio_file *fh, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "colio %s: %s: %s", what, colio_strerror(rc), fh ? colio_last_error(fh) : colio_last_open_error());
    return -1;
}

/* Per call: the handle's totals over its steps, divided by them. */
static void phases(colio_file *fh, int steps, bench_sample_t *s)
{
    colio_stats st;
    colio_get_stats(fh, &st);
    const colio_op_stats *t = &st.total;
    s->meta = t->time.meta_exchange / steps;
    s->data = t->time.data_exchange / steps;
    s->io = t->time.io / steps;
    s->compute = t->time.compute / steps;
    s->is_aggregator = t->is_aggregator;
    s->memory = t->memory;
    s->exch_min = t->exchange_min / steps;
    s->exch_max = t->exchange_max / steps;
    s->messages = t->messages / steps;
    s->hop_bytes = t->hop_bytes / steps;
    s->max_link_bytes = t->max_link_bytes / steps;
    snprintf(s->placement, sizeof s->placement, "%s", st.last.placement[0] ? st.last.placement : "-");
    snprintf(s->strategy, sizeof s->strategy, "%s", st.last.strategy[0] ? st.last.strategy : "-");
    s->predicted_two_phase = st.last.predicted_two_phase;
    s->predicted_direct = st.last.predicted_direct;
    snprintf(s->kernels, sizeof s->kernels, "%s/%s", st.last.meta_kernel[0] ? st.last.meta_kernel : "-",
             st.last.data_kernel[0] ? st.last.data_kernel : "-");
}

/* IOR's segments: one collective call per piece at its offset (the default view). */
static int call_per_piece(colio_file *fh, const bench_access_t *a, char *buf, int write)
{
    int rc = COLIO_SUCCESS;
    for (int64_t i = 0, pos = 0; i < a->n && rc == COLIO_SUCCESS; pos += a->len[i++])
        rc = write ? colio_write_at_all(fh, a->off[i], buf + pos, a->len[i], MPI_BYTE, MPI_STATUS_IGNORE)
                   : colio_read_at_all(fh, a->off[i], buf + pos, a->len[i], MPI_BYTE, MPI_STATUS_IGNORE);
    return rc;
}

static int one_step(colio_file *fh, const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, int write)
{
    if (a->call_per_piece)
        return call_per_piece(fh, a, buf, write);
    if (c->use_lists)
        return write ? colio_write_list_all(fh, a->n, a->off, a->len, buf) : colio_read_list_all(fh, a->n, a->off, a->len, buf);
    return write ? colio_write_at_all(fh, 0, buf, a->bytes, MPI_BYTE, MPI_STATUS_IGNORE)
                 : colio_read_at_all(fh, 0, buf, a->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int run(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, int write, bench_sample_t *s,
               char *err, size_t errlen)
{
    MPI_Info info = bench_info(c->hints, 0);
    colio_file *fh = NULL;
    double t0 = MPI_Wtime();
    int rc = colio_open(c->comm, c->path, write ? MPI_MODE_WRONLY | MPI_MODE_CREATE : MPI_MODE_RDONLY, info, &fh);
    MPI_Info_free(&info);
    if (rc != COLIO_SUCCESS)
        return fail(rc, NULL, "open", err, errlen);
    int steps = bench_steps(c);
    if (!c->use_lists && !a->call_per_piece)
        rc = colio_set_view(fh, a->disp, MPI_BYTE, a->filetype, MPI_INFO_NULL);
    for (int k = 0; k < steps && rc == COLIO_SUCCESS; k++) /* the same access again: a checkpoint every step */
        rc = one_step(fh, c, a, buf, write);
    if (rc != COLIO_SUCCESS) {
        fail(rc, fh, write ? "write" : "read", err, errlen);
        colio_close(&fh);
        return -1;
    }
    phases(fh, steps, s);
    if (write && c->sync && (rc = colio_sync(fh)) != COLIO_SUCCESS) {
        fail(rc, fh, "sync", err, errlen);
        colio_close(&fh);
        return -1;
    }
    rc = colio_close(&fh);
    s->time = (MPI_Wtime() - t0) / steps;
    return rc == COLIO_SUCCESS ? 0 : fail(rc, NULL, "close", err, errlen);
}

static int colio_write(const bench_engine_ctx_t *c, const bench_access_t *a, const void *buf, bench_sample_t *s,
                       char *err, size_t errlen)
{
    return run(c, a, (void *)buf, 1, s, err, errlen);
}

static int colio_read(const bench_engine_ctx_t *c, const bench_access_t *a, void *buf, bench_sample_t *s, char *err,
                      size_t errlen)
{
    return run(c, a, buf, 0, s, err, errlen);
}

const bench_engine_t bench_engine_colio = {.name = "colio", .write = colio_write, .read = colio_read};
