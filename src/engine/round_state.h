/* The state of two-phase rounds (engine/round*.c): slices, collective buffers, the exchange in flight. */
#ifndef COLIO_ENGINE_ROUND_STATE_H
#define COLIO_ENGINE_ROUND_STATE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "access/coverage.h"
#include "exchange/xchg.h"
#include "exec/exec.h"

/* One pending message slice of a round, on either side. */
typedef struct colio_slice {
    int peer;          /* rank */
    int list;          /* aggregator index (requester side) or source rank (aggregator side) */
    int64_t first, n;  /* runs [first, first+n) of that list */
    int64_t bytes, pieces;
    char *buf;         /* where the message lands or leaves from */
    int contig;        /* aggregator side: file-contiguous; requester side: stream-contiguous */
    int packed;        /* buf is in a packing buffer: pack before sending / unpack after receiving */
    unsigned aside;    /* requester side: packed only to keep MPI's copy off this slow shift (round.c) */
    MPI_Datatype type; /* MPI_BYTE, or a derived type over buf freed after the round */
    int64_t pack_off;  /* packed slices: offset in the packing buffer */
    MPI_Aint tdisp;    /* requester side, one-sided: where the slice lives in the aggregator's window */
    MPI_Datatype ttype; /* ... as MPI_BYTE (contiguous) or a derived type freed after the round */
} colio_slice_t;

/*
 * An aggregator's collective buffer and the storage job that may run on it.
 * Pipelined rounds (colio_pipeline=2, TAPIOCA Sec. 4.3) alternate between
 * two: a round's write, or the next round's read ahead, runs in the I/O
 * helper thread on one while the exchange of a round uses the other.
 */
typedef struct colio_round_buf {
    char *mem;
    size_t cap;
    int busy;                    /* job submitted, its results not yet folded into the operation */
    int ahead;                   /* reads: holds (or is reading) round `round` ahead of time */
    int64_t round;
    colio_exec_job_t job;
} colio_round_buf_t;

typedef struct colio_round {
    int64_t r;                   /* current round */
    int64_t rs, re;              /* my aggregator's extent in this round */
    char *cbuf;                  /* aggregator: collective buffer of this round (buf[cur].mem, round_size bytes) */
    size_t cbuf_cap;             /* bytes of all collective buffers (one, or two when pipelined) */
    colio_round_buf_t buf[2];    /* the collective buffers (only buf[0] unless pipelined) */
    int pipelined;               /* two buffers, storage I/O in the helper thread (round_pipe.c) */
    int cur;                     /* buffer of the aggregator's current (or next) round */
    int chain_failed;            /* the helper's: one of this operation's jobs failed, skip the rest */
    colio_round_buf_t *fetch;    /* the buffer whose read of this round (or of its holes) is in flight */
    char *pack;                  /* requester: the packing buffer of its messages */
    int64_t pack_size;
    size_t pack_cap;
    char *agg_pack;              /* aggregator: the packing buffer of its messages */
    int64_t agg_pack_size;
    char *aside;                 /* requester: messages kept off a slow shift from or to user memory (round.c) */
    int64_t aside_size;
    colio_slice_t *req_slices;   /* requester side, up to naggs */
    int nreq;
    colio_slice_t *agg_slices;   /* aggregator side, up to nprocs */
    int nagg;
    colio_coverage_t cov;        /* aggregator: bytes of the round asked for (first, last, covered, overlap) */
    int sieve;                   /* access [cov.first, cov.last) as one extent */
    int64_t pack_used;
    colio_xchg_t x;
} colio_round_t;

/*
 * Reads land at memory whose address equals their file offset modulo
 * COLIO_READ_ALIGN (docs/DESIGN.md, "Aligned reads"): a shift that is a
 * multiple of 64 is never one the kernel copies slowly (base/copy_shift.h).
 * Collective buffers and the direct path's bounce buffer are aligned to it
 * and have this much room besides.
 */
#define COLIO_READ_ALIGN 64

#endif
