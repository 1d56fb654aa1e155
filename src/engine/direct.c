/*
 * The direct (independent) path: each rank reads or writes its own pieces
 * with positioned I/O, no aggregation. Taken when collective buffering is
 * disabled by hint, or automatically (see use_direct_path in op.c). Reads
 * use data sieving: the file extent of many small pieces is read in one call
 * into a bounce buffer and the pieces are picked out of it.
 *
 * Storage is reached only through jobs handed to the I/O executor
 * (exec/exec.h, colio_op_submit_job), each at most cb_buffer_size bytes
 * (those through the bounce buffer one at a time, at most its size), four
 * in flight (Seo et al., Sec. III: no step of a nonblocking collective
 * waits for storage): the step fills one job while the other runs and
 * returns COLIO_STEP_WAIT with op->io_wait set while neither can move, so a
 * nonblocking call's initiation returns at once and the progress thread, or
 * the program's test and wait calls, carry the operation on. Pieces whose
 * memory is one stretch move straight between it and the file; others go
 * through the job's bounce buffer, and so do pieces of 1 KiB or more whose
 * memory is off the file's alignment where the kernel copies them slowly
 * (docs/DESIGN.md, "Aligned reads"): the bounce buffer puts every piece at
 * its file offset's alignment.
 */
#include <stdlib.h>
#include <string.h>

#include "access/copy.h"
#include "base/copy_shift.h"
#include "engine/file.h"
#include "engine/direct.h"
#include "engine/model.h"
#include "engine/order.h"
#include "engine/step.h"

/* Storage calls per job at most (a job of many small pieces). */
#define COLIO_DIRECT_MAX_CALLS 1024
/* Reads, colio_storage_model=off: average hole between pieces up to which reading the holes (sieving) pays off. */
#define COLIO_SIEVE_DIRECT_HOLE (64 << 10)
/* Pieces from this size on go through the bounce buffer when their memory is off the file's alignment
   and the kernel's copy runs slowly there (base/copy_shift.h; a 1 KiB read: 1.33 us against 1.00 us a
   call, the copy out costs less). */
#define COLIO_DIRECT_ALIGN_MIN 1024

/* Pieces of n bytes, large enough that where they sit in memory matters. */
static int alignment_matters(int64_t n) { return n >= COLIO_DIRECT_ALIGN_MIN; }

/* Bytes from `at` to the next place in the bounce buffer where a piece of file offset off is aligned. */
static int64_t align_pad(int64_t at, int64_t off) { return (off - at) & (COLIO_READ_ALIGN - 1); }

/*
 * A piece of n bytes at m whose storage call would copy slowly: a read's
 * copy goes from the page cache (at off's alignment) into m, a write's
 * from m into the page cache; the shift is the destination's past the
 * source (malloc'd memory 16 bytes past a page: reads; 16 before: writes).
 */
int colio_direct_misaligned(colio_op_kind_t kind, const char *m, int64_t n, int64_t off)
{
    uintptr_t mem = (uintptr_t)m, file = (uintptr_t)off;
    return alignment_matters(n) &&
           colio_copy_slow_here(kind == COLIO_OP_READ ? colio_copy_shift(mem, file) : colio_copy_shift(file, mem));
}

/* Piece k of run i. */
static colio_piece_t piece_at(const colio_access_t *acc, int64_t i, int64_t k)
{
    colio_run_t r = colio_access_run(acc, i);
    return (colio_piece_t){r.off + k * r.stride, r.len, r.pos + k * r.len};
}

static void next_piece(const colio_access_t *acc, int64_t *i, int64_t *k)
{
    if (++*k == acc->runs[*i].count)
        ++*i, *k = 0;
}

/* Bytes of the bounce buffer: a sieved read's, the cost model's choice (colio_file_choose_rounds). */
static int64_t bounce_bytes(const colio_op_t *op) { return op->fh->round_bytes[op->args.kind == COLIO_OP_WRITE][1]; }

/*
 * The bounce buffer of the pieces whose memory is not one stretch, of
 * pieces whose memory is at a slow shift, and of sieved reads:
 * bounce_bytes, at most cb_buffer_size, taken from the file's buffer cache
 * (no fresh page faults per call) when first needed, used by one job at a
 * time (the others move straight between user memory and the file). 1 when
 * job s may use it.
 */
static int bounce_ready(colio_op_t *op, colio_direct_job_t *s)
{
    colio_direct_t *d = &op->dir;
    int me = (int)(s - d->jobs);
    if (d->bounce_owner >= 0 && d->bounce_owner != me)
        return 0; /* another job's: this one ends here */
    size_t size = (size_t)bounce_bytes(op) + COLIO_READ_ALIGN; /* room to align the first read */
    if (d->bounce == NULL &&
        (d->bounce = colio_pool_buf_take_aligned(&op->fh->bufs, size, COLIO_READ_ALIGN, &d->bounce_cap)) == NULL) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory for a %lld-byte buffer", (long long)size);
        op->io_failed = 1;
        return 0;
    }
    d->bounce_owner = me;
    s->uses_bounce = 1;
    return 1;
}

/* Bytes the operation holds: its lists and the bounce buffers made so far. */
static int64_t held_memory(const colio_op_t *op)
{
    return op->dir.lists_memory + (op->dir.bounce ? (int64_t)op->dir.bounce_cap : 0);
}

static int add_copy(colio_direct_job_t *s, int64_t pos, int64_t boff, int64_t len)
{
    if (s->ncopies == s->copies_cap) {
        int64_t cap = s->copies_cap ? 2 * s->copies_cap : 16;
        colio_direct_copy_t *c = realloc(s->copies, sizeof *c * (size_t)cap);
        if (c == NULL)
            return -1;
        s->copies = c, s->copies_cap = cap;
    }
    s->copies[s->ncopies++] = (colio_direct_copy_t){pos, boff, len};
    return 0;
}

/*
 * Up to n bytes of the current piece as one call: straight from or into
 * user memory when that stretch of it is one, else through the bounce
 * buffer (writes gather now, reads copy out when the job is done). Returns
 * the bytes taken, 0 when the bounce buffer is full, -1 when out of memory.
 */
static int64_t add_piece_part(colio_op_t *op, colio_direct_job_t *s, const colio_piece_t *p, int64_t n)
{
    colio_direct_t *d = &op->dir;
    int64_t pos = p->pos + d->part, off = p->off + d->part;
    char *m = colio_mem_contig(&op->mem, pos, n);
    int detour = m && colio_direct_misaligned(op->args.kind, m, n, off);
    if (m && !detour)
        return colio_exec_job_add(&s->job, m, n, off) == 0 ? n : -1;
    /* big pieces at their file offset's alignment; small ones packed (a pad each would crowd the buffer) */
    int64_t pad = alignment_matters(n) ? align_pad(s->bounce_used, off) : 0;
    int64_t room = bounce_bytes(op) - s->bounce_used - pad;
    n = n < room ? n : room;
    if (n <= 0 || !bounce_ready(op, s))
        return 0;
    s->bounce_used += pad;
    char *b = d->bounce + s->bounce_used;
    if (op->args.kind == COLIO_OP_WRITE)
        colio_mem_gather(&op->mem, pos, n, b);
    else if (add_copy(s, pos, s->bounce_used, n) != 0)
        return -1;
    if (colio_exec_job_add(&s->job, b, n, off) != 0)
        return -1;
    s->bounce_used += n;
    op->stats.detour_bytes += detour ? n : 0;
    return n;
}

/*
 * Reading n pieces of `bytes` with `holes` bytes between them in one call
 * (then copying the pieces out) against one call per piece: by the storage
 * figures (engine/strategy.h), or with colio_storage_model=off by a fixed
 * hole size.
 */
static int pays_to_sieve(const colio_file *fh, int64_t n, int64_t bytes, int64_t holes)
{
    if (fh->figures.fixed)
        return holes <= (n - 1) * (int64_t)COLIO_SIEVE_DIRECT_HOLE;
    return colio_model_sieve(&fh->figures, (double)bytes / (double)n, (double)holes / (double)(n - 1));
}

/*
 * Reads: the pieces from the cursor on within one bounce buffer of file,
 * when sieving them pays off. A stretch judged not worth it is not judged
 * again piece by piece (that made a read of many pieces quadratic): its
 * pieces go one call each.
 */
static int sieve_chunk_ends(colio_op_t *op, int64_t *ei, int64_t *ek, int64_t *end_p)
{
    if (op->fh->hints.ds_read == COLIO_DISABLE)
        return 0;
    const colio_access_t *acc = &op->acc;
    colio_direct_t *d = &op->dir;
    if (d->i < d->plain_i || (d->i == d->plain_i && d->k < d->plain_k))
        return 0;
    int64_t tmp_size = bounce_bytes(op); /* in cache while its pieces are copied out */
    colio_piece_t first = piece_at(acc, d->i, d->k);
    int64_t i = d->i, k = d->k, n = 0, bytes = 0, end = first.off;
    while (i < acc->n) {
        colio_run_t r = colio_access_run(acc, i);
        if (k == 0 && colio_run_end(&r) - first.off <= tmp_size) { /* the whole run fits: no look at each piece */
            n += r.count, bytes += colio_run_bytes(&r);
            end = colio_run_end(&r) > end ? colio_run_end(&r) : end;
            i++;
            continue;
        }
        colio_piece_t p = piece_at(acc, i, k);
        if (p.off + p.len - first.off > tmp_size)
            break;
        n++, bytes += p.len;
        end = p.off + p.len > end ? p.off + p.len : end; /* overlapping pieces (read-only views) may end earlier */
        next_piece(acc, &i, &k);
    }
    colio_toggle_t ds = op->fh->hints.ds_read;
    int64_t holes = end - first.off - bytes;
    int sieve = n > 1 && ds != COLIO_DISABLE && (ds == COLIO_ENABLE || pays_to_sieve(op->fh, n, bytes, holes));
    *ei = i, *ek = k, *end_p = end;
    if (!sieve)
        d->plain_i = i, d->plain_k = k;
    return sieve;
}

/* A sieved read: the extent of the pieces up to (ei, ek) in one call into the bounce buffer. */
static void fill_sieve(colio_op_t *op, colio_direct_job_t *s, int64_t ei, int64_t ek, int64_t end)
{
    colio_direct_t *d = &op->dir;
    colio_piece_t first = piece_at(&op->acc, d->i, d->k);
    if (!bounce_ready(op, s))
        return; /* in use by another job (or not to be had: recorded) */
    int64_t pad = align_pad(0, first.off); /* the bounce buffer's byte b holds file byte base + b */
    if (colio_exec_job_add(&s->job, d->bounce + pad, end - first.off, first.off) != 0) {
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory listing a read");
        op->io_failed = 1;
        return;
    }
    s->sieve = 1;
    s->si = d->i, s->sk = d->k, s->ei = ei, s->ek = ek, s->base = first.off - pad;
    d->i = ei, d->k = ek;
}

/* The next job: pieces from the cursor on, at most cb_buffer_size bytes and COLIO_DIRECT_MAX_CALLS calls. */
static void fill_job(colio_op_t *op, colio_direct_job_t *s)
{
    colio_direct_t *d = &op->dir;
    const colio_access_t *acc = &op->acc;
    /* in the background, jobs of at most cb_buffer_size; a blocking call's run here, whole */
    int64_t cap = op->nonblocking ? op->fh->hints.cb_buffer_size : INT64_MAX, bytes = 0, ei, ek, end;
    int reading = op->args.kind == COLIO_OP_READ;
    s->chain_failed = 0;
    colio_exec_job_reset(&s->job, reading ? COLIO_EXEC_READ : COLIO_EXEC_WRITE, op->fh->store, op->fh->st,
                        d->overlap ? &s->chain_failed : &d->chain_failed);
    s->job.keep_past_eof = op->early; /* the end of file is not agreed yet: what lies past it stays */
    s->bounce_used = s->ncopies = 0, s->sieve = 0, s->uses_bounce = 0;
    if (reading && d->part == 0 && acc->npieces > 1 && sieve_chunk_ends(op, &ei, &ek, &end)) { /* 1: nothing to sieve */
        fill_sieve(op, s, ei, ek, end);
        return;
    }
    int64_t max_calls = d->overlap && d->pieces_per_job < COLIO_DIRECT_MAX_CALLS ? d->pieces_per_job
                                                                                 : COLIO_DIRECT_MAX_CALLS;
    while (d->i < acc->n && bytes < cap && s->job.ncalls < max_calls) {
        if (reading && d->part == 0 && s->job.ncalls > 0 && sieve_chunk_ends(op, &ei, &ek, &end))
            break; /* the next pieces are worth a sieved job of their own */
        colio_piece_t p = piece_at(acc, d->i, d->k);
        int64_t want = p.len - d->part < cap - bytes ? p.len - d->part : cap - bytes;
        int64_t took = add_piece_part(op, s, &p, want);
        if (took < 0) {
            colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory listing the direct path's calls");
            op->io_failed = 1;
            return;
        }
        if (took == 0)
            break; /* bounce buffer full (or not to be had: recorded) */
        bytes += took;
        d->part += took;
        if (d->part == p.len) {
            d->part = 0;
            next_piece(acc, &d->i, &d->k);
        }
    }
}

/* Reads: the bytes of a done job from the bounce buffer into user memory. */
static void copy_out(colio_op_t *op, colio_direct_job_t *s)
{
    if (op->args.kind != COLIO_OP_READ || op->io_failed)
        return;
    for (int64_t c = 0; c < s->ncopies; c++)
        colio_mem_scatter(&op->mem, s->copies[c].pos, s->copies[c].len, op->dir.bounce + s->copies[c].boff);
    if (!s->sieve)
        return;
    const colio_access_t *acc = &op->acc;
    for (int64_t i = s->si, k = s->sk; i != s->ei || k != s->ek;) { /* run by run: pieces k .. last of run i */
        const colio_run_t *r = &acc->runs[i]; /* its length, stride and count (piece_at moves it) */
        int64_t last = i == s->ei ? s->ek - 1 : r->count - 1, count = last - k + 1;
        colio_piece_t p = piece_at(acc, i, k);
        char *m = op->mem.flat == NULL ? colio_addr(op->mem.base, p.pos) /* no call per run: the common case */
                                       : colio_mem_contig(&op->mem, p.pos, count * r->len);
        if (m)
            colio_copy_strided(m, r->len, op->dir.bounce + (p.off - s->base), r->stride, r->len, count);
        else
            colio_mem_scatter_strided(&op->mem, p.pos, op->dir.bounce + (p.off - s->base), r->stride, r->len, count);
        k += count;
        if (k == r->count)
            ++i, k = 0;
    }
}

static void finish_job(colio_op_t *op, colio_direct_job_t *s, int ran_here)
{
    s->busy = 0;
    colio_op_fold_job(op, &s->job, ran_here);
    if (s->job.eof_seen < op->dir.eof_seen)
        op->dir.eof_seen = s->job.eof_seen;
    copy_out(op, s);
    if (s->uses_bounce)
        op->dir.bounce_owner = -1;
    s->uses_bounce = 0;
}

/* The oldest job in flight, or NULL. */
static colio_direct_job_t *oldest_busy(colio_direct_t *d)
{
    colio_direct_job_t *o = NULL;
    for (int j = 0; j < d->njobs; j++)
        if (d->jobs[j].busy && (o == NULL || d->jobs[j].seq < o->seq))
            o = &d->jobs[j];
    return o;
}

/* A job with no calls and no buffers: what fill_job does not set (colio_exec_job_reset and the
   per-job fields do the rest). */
static void job_clear(colio_direct_job_t *s)
{
    s->busy = 0, s->seq = 0;
    s->copies = NULL, s->ncopies = s->copies_cap = 0;
    s->job.calls = NULL, s->job.ncalls = s->job.cap = 0;
}

static colio_direct_job_t *free_job(colio_direct_t *d)
{
    for (int j = 0; j < d->njobs; j++)
        if (!d->jobs[j].busy)
            return &d->jobs[j];
    if (d->njobs == COLIO_DIRECT_JOBS)
        return NULL;
    colio_direct_job_t *s = &d->jobs[d->njobs++];
    job_clear(s);
    return s;
}

/* Fold the done jobs, oldest first (a later one may finish first; its turn comes after the older). */
static void collect(colio_op_t *op)
{
    colio_direct_job_t *s;
    while ((s = oldest_busy(&op->dir)) != NULL && colio_op_job_done(op, &s->job))
        finish_job(op, s, 0);
}

/*
 * Reads where storage calls wait (engine/strategy.h,
 * colio_model_reads_at_once): a call's pieces go in up to
 * COLIO_DIRECT_JOBS jobs that the executor runs at once, each with its own
 * chain, and a blocking call hands them over too; elsewhere, and for
 * writes, one job runs in order, a blocking call's here. A failed job then
 * stops only its own later calls; the call returns the error as before
 * (test_strategy, overlapped_failure).
 */
static int calls_overlap(const colio_op_t *op)
{
    return op->args.kind == COLIO_OP_READ && op->acc.npieces > 1 && colio_model_reads_at_once(&op->fh->figures) > 1;
}

static void start(colio_op_t *op)
{
    colio_direct_t *d = &op->dir;
    d->started = 1;
    d->overlap = calls_overlap(op);
    d->pieces_per_job = (op->acc.npieces + COLIO_DIRECT_JOBS - 1) / COLIO_DIRECT_JOBS;
    d->bounce_owner = -1;
    d->eof_seen = INT64_MAX;
    op->stats.aggregators = 0;
    d->lists_memory = colio_op_memory(op);
    op->stats.memory = d->lists_memory; /* the run list; bounce buffers add up as they are made */
}

int colio_step_direct(colio_op_t *op)
{
    colio_direct_t *d = &op->dir;
    if (!d->started)
        start(op);
    op->io_wait = NULL;
    for (;;) {
        collect(op);
        int more = d->i < op->acc.n && !op->io_failed;
        colio_direct_job_t *s = more ? free_job(d) : NULL;
        if (!more && oldest_busy(d) == NULL) {
            colio_direct_free(op);
            int early = op->early; /* the piece moved before SETUP (engine/path_early.c) */
            if (early)
                colio_direct_early_done(op);
            op->phase = early ? COLIO_PH_PROPOSE : COLIO_PH_FINAL;
            return COLIO_STEP_NEXT;
        }
        if (!more || s == NULL) {
            op->io_wait = &oldest_busy(d)->job;
            return COLIO_STEP_WAIT;
        }
        fill_job(op, s);
        if (s->job.ncalls == 0 && !op->io_failed) { /* its first piece needs the bounce buffer, in use */
            op->io_wait = &oldest_busy(d)->job;
            return COLIO_STEP_WAIT;
        }
        if (s->job.ncalls == 0)
            continue; /* nothing listed: a failure was recorded */
        int64_t held = held_memory(op);
        op->stats.memory = held > op->stats.memory ? held : op->stats.memory;
        s->busy = 1;
        s->seq = d->submitted++;
        if (!colio_op_submit_job(op, &s->job, op->nonblocking || d->overlap))
            finish_job(op, s, 1);
    }
}

void colio_direct_free(colio_op_t *op)
{
    colio_direct_t *d = &op->dir;
    for (int j = 0; j < d->njobs; j++) {
        colio_direct_job_t *s = &d->jobs[j];
        if (s->job.calls == NULL && s->copies == NULL && !s->busy)
            continue; /* never used (most calls use one job, many none) */
        if (s->busy) /* abandoned with a job in flight: the executor still uses its memory */
            colio_exec_wait(&s->job);
        colio_exec_job_free(&s->job);
        free(s->copies);
        job_clear(s);
    }
    colio_pool_buf_give(&op->fh->bufs, d->bounce, d->bounce_cap);
    d->bounce = NULL, d->bounce_cap = 0, d->bounce_owner = -1;
}

void colio_direct_early_done(colio_op_t *op)
{
    if (op->dir.eof_seen < INT64_MAX && colio_access_clip(&op->acc, op->dir.eof_seen) != 0)
        colio_op_fail(op, COLIO_ERR_NOMEM, "out of memory clipping the access at the end of file");
    op->early_done = 1;
    op->early_bytes = op->acc.nbytes;
    op->early_pieces = op->acc.npieces;
    colio_access_free(&op->acc);
    colio_direct_t *d = &op->dir; /* the jobs were emptied (colio_direct_free): the cursor starts afresh */
    d->started = 0, d->i = d->k = d->part = d->plain_i = d->plain_k = 0, d->submitted = 0, d->chain_failed = 0;
    op->early = 0;
}
