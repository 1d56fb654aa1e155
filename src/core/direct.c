/*
 * The direct (independent) path: each rank reads or writes its own pieces
 * with positioned I/O, no aggregation. Taken when collective buffering is
 * disabled by hint, or automatically when every rank's access is one large
 * extent (nothing to gain from aggregation, ROMIO's "automatic").
 */
#include <stdlib.h>

#include "core/file.h"
#include "core/op.h"

/* One piece through a bounce buffer of at most cb_buffer_size bytes. */
static void bounce_piece(colio_op_t *op, const colio_piece_t *p, char *tmp, int64_t tmp_size)
{
    for (int64_t done = 0; done < p->len && !op->io_failed; done += tmp_size) {
        int64_t n = p->len - done < tmp_size ? p->len - done : tmp_size;
        if (op->args.kind == COLIO_OP_WRITE) {
            colio_mem_gather(&op->mem, p->pos + done, n, tmp);
            colio_op_write(op, tmp, n, p->off + done);
        } else {
            colio_op_read(op, tmp, n, p->off + done);
            colio_mem_scatter(&op->mem, p->pos + done, n, tmp);
        }
    }
}

int colio_step_direct(colio_op_t *op)
{
    char *tmp = NULL;
    int64_t tmp_size = op->fh->hints.cb_buffer_size;
    op->stats.aggregators = 0;
    for (int64_t i = 0; i < op->acc.n && !op->io_failed; i++) {
        const colio_run_t *r = &op->acc.runs[i];
        for (int64_t k = 0; k < r->count && !op->io_failed; k++) {
            colio_piece_t p = {r->off + k * r->stride, r->len, r->pos + k * r->len};
            char *m = colio_mem_contig(&op->mem, p.pos, p.len);
            if (m && op->args.kind == COLIO_OP_WRITE) {
                colio_op_write(op, m, p.len, p.off);
            } else if (m) {
                colio_op_read(op, m, p.len, p.off);
            } else if (tmp == NULL && (tmp = malloc((size_t)tmp_size)) == NULL) {
                colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for a %lld-byte buffer", (long long)tmp_size);
            } else {
                bounce_piece(op, &p, tmp, tmp_size);
            }
        }
    }
    free(tmp);
    op->phase = COLIO_PH_FINAL;
    return COLIO_STEP_NEXT;
}
