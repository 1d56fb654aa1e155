/*
 * The direct (independent) path: each rank reads or writes its own pieces
 * with positioned I/O, no aggregation. Taken when collective buffering is
 * disabled by hint, or automatically (see use_direct_path in op.c). Reads
 * use data sieving: the file extent of many small pieces is read in one call
 * into a bounce buffer and the pieces are picked out of it.
 */
#include <stdlib.h>

#include "access/copy.h"
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

/* Piece k of run i. */
static colio_piece_t piece_at(const colio_access_t *acc, int64_t i, int64_t k)
{
    const colio_run_t *r = &acc->runs[i];
    return (colio_piece_t){r->off + k * r->stride, r->len, r->pos + k * r->len};
}

static void next_piece(const colio_access_t *acc, int64_t *i, int64_t *k)
{
    if (++*k == acc->runs[*i].count)
        ++*i, *k = 0;
}

/* One piece straight between user memory and the file, or through the bounce buffer. */
static void direct_piece(colio_op_t *op, const colio_piece_t *p, char *tmp, int64_t tmp_size)
{
    char *m = colio_mem_contig(&op->mem, p->pos, p->len);
    if (m && op->args.kind == COLIO_OP_WRITE)
        colio_op_write(op, m, p->len, p->off);
    else if (m)
        colio_op_read(op, m, p->len, p->off);
    else
        bounce_piece(op, p, tmp, tmp_size);
}

/* Reads: data sieving over the file extent of consecutive pieces that fit the bounce buffer. */
#define COLIO_SIEVE_DIRECT_HOLE (64 << 10)

static void sieve_chunk(colio_op_t *op, int64_t *i, int64_t *k, char *tmp, int64_t tmp_size)
{
    const colio_access_t *acc = &op->acc;
    colio_piece_t first = piece_at(acc, *i, *k);
    int64_t ei = *i, ek = *k, n = 0, bytes = 0, end = first.off;
    while (ei < acc->n) { /* pieces [first, e) within tmp_size bytes of file */
        colio_piece_t p = piece_at(acc, ei, ek);
        if (p.off + p.len - first.off > tmp_size)
            break;
        n++, bytes += p.len;
        end = p.off + p.len > end ? p.off + p.len : end; /* overlapping pieces (read-only views) may end earlier */
        next_piece(acc, &ei, &ek);
    }
    colio_toggle_t ds = op->fh->hints.ds_read;
    int sieve = n > 1 && ds != COLIO_DISABLE &&
                (ds == COLIO_ENABLE || end - first.off - bytes <= (n - 1) * (int64_t)COLIO_SIEVE_DIRECT_HOLE);
    if (!sieve) { /* one piece (or a piece bigger than the buffer) by itself */
        direct_piece(op, &first, tmp, tmp_size);
        next_piece(acc, i, k);
        return;
    }
    colio_op_read(op, tmp, end - first.off, first.off);
    while (*i != ei || *k != ek) { /* run by run: pieces k .. last of run i lie in the chunk */
        const colio_run_t *r = &acc->runs[*i];
        int64_t last = *i == ei ? ek - 1 : r->count - 1, count = last - *k + 1;
        colio_piece_t p = piece_at(acc, *i, *k);
        char *m = colio_mem_contig(&op->mem, p.pos, count * r->len);
        if (m)
            colio_copy_strided(m, r->len, tmp + (p.off - first.off), r->stride, r->len, count);
        else
            colio_mem_scatter_strided(&op->mem, p.pos, tmp + (p.off - first.off), r->stride, r->len, count);
        *k += count;
        if (*k == r->count)
            ++*i, *k = 0;
    }
}

int colio_step_direct(colio_op_t *op)
{
    int64_t tmp_size = op->fh->hints.cb_buffer_size;
    char *tmp = malloc((size_t)tmp_size);
    op->stats.aggregators = 0;
    op->stats.memory = colio_op_memory(op) + (tmp ? tmp_size : 0); /* the run list and the bounce buffer */
    if (tmp == NULL)
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for a %lld-byte buffer", (long long)tmp_size);
    for (int64_t i = 0, k = 0; tmp && i < op->acc.n && !op->io_failed;) {
        if (op->args.kind == COLIO_OP_READ) {
            sieve_chunk(op, &i, &k, tmp, tmp_size);
            continue;
        }
        colio_piece_t p = piece_at(&op->acc, i, k);
        direct_piece(op, &p, tmp, tmp_size);
        next_piece(&op->acc, &i, &k);
    }
    free(tmp);
    op->phase = COLIO_PH_FINAL;
    return COLIO_STEP_NEXT;
}
