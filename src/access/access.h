/*
 * A rank's access: the file pieces it reads or writes and where each piece's
 * bytes live in the user's data stream. Built from a file view (colio_*_all)
 * or an explicit list (colio_*_list_all); memory is described separately by
 * a memmap so the same pieces serve contiguous and noncontiguous buffers.
 */
#ifndef COLIO_ACCESS_ACCESS_H
#define COLIO_ACCESS_ACCESS_H

#include <stdint.h>

#include "access/flatten.h"
#include "access/run.h"
#include "base/error.h"

/* File bytes [off, off+len) <-> user data stream bytes [pos, pos+len). */
typedef struct colio_piece {
    int64_t off, len, pos;
} colio_piece_t;

/*
 * A rank's access as strided runs in file order, none overlapping another.
 * Run i is runs[i] moved by shift bytes in the file (colio_access_run): an
 * access of exactly one whole tile of a view borrows the view's flattening
 * (its runs as they are, the tile's place in the file as the shift) instead
 * of listing a copy; borrowed runs are read-only.
 */
typedef struct colio_access {
    const colio_run_t *runs;
    int64_t shift;         /* file bytes added to every run's offset (0 unless borrowed) */
    colio_flat_t *borrowed; /* the held flattening whose runs these are, or NULL (runs are the access's own) */
    int64_t n;             /* runs */
    int64_t nbytes;        /* sum of the runs' bytes */
    int64_t npieces;       /* sum of the runs' counts */
    int64_t end;           /* the largest run end (the last run's, unless a read-only view overlaps) */
    int overlaps;          /* a run starts before an earlier one ends (read-only views): no two-phase */
    int stream_order;      /* stream positions increase with file offsets (always for views) */
    colio_run_t one;       /* where runs points for an access of one run (no allocation per small call) */
} colio_access_t;

/* Run i of the access in file offsets. */
static inline colio_run_t colio_access_run(const colio_access_t *acc, int64_t i)
{
    return colio_run_moved(acc->runs, i, acc->shift);
}

/* The view of an open file (MPI_File_set_view with datarep "native"). */
typedef struct colio_view {
    int64_t disp;
    int64_t etype_size;
    colio_flat_t *ftype;          /* flattened filetype */
    int ftype_owned;              /* 1: ours to free; 0: cached on the filetype, held (colio_flat_hold) */
} colio_view_t;

/*
 * Bytes of the view's data stream that lie in the file below byte limit
 * (where MPI_SEEK_END puts the file pointer: the data before the end of file).
 */
int64_t colio_view_bytes_below(const colio_view_t *view, int64_t limit);

/*
 * Pieces of nbytes of the view's data stream starting at etype offset
 * start (>= 0). The filetype must be monotonic (checked by set_view); one
 * whose data spills beyond its extent is accepted for accesses within one tile.
 */
int colio_access_from_view(const colio_view_t *view, int64_t start, int64_t nbytes,
                           colio_access_t *acc, colio_err_t *err);

/* Pieces of an explicit list; data packed in list order. Overlap: COLIO_ERR_ARG. */
int colio_access_from_list(int64_t n, const MPI_Offset *offsets, const MPI_Offset *lengths,
                           colio_access_t *acc, colio_err_t *err);

/* Drop every byte at or beyond eof (reads past the end of file); -1 when out of memory. */
int colio_access_clip(colio_access_t *acc, int64_t eof);

void colio_access_free(colio_access_t *acc);

/*
 * An access's runs kept past it (the key of a plan stored for reuse):
 * runs moved by shift, either the key's own allocation (colio_mem_*) or
 * those of a held flattening (flat, borrowed as the access had them).
 */
typedef struct colio_access_key {
    const colio_run_t *runs;
    int64_t n, shift;
    colio_flat_t *flat;
} colio_access_key_t;

/* Run i of a key in file offsets. */
static inline colio_run_t colio_key_run(const colio_access_key_t *key, int64_t i)
{
    return colio_run_moved(key->runs, i, key->shift);
}

/*
 * Move the access's runs into *key (an access's single run is copied; a
 * borrowed flattening changes holder); the access keeps its totals and no
 * runs, as after colio_access_drop_runs. -1 when out of memory (key empty).
 */
int colio_access_give_key(colio_access_t *acc, colio_access_key_t *key);
/* The access's runs as a key of their own: a borrowed flattening held once more, own runs copied; -1: no memory. */
int colio_access_copy_key(const colio_access_t *acc, colio_access_key_t *key);
void colio_access_key_free(colio_access_key_t *key);
/* Free the runs (let a borrowed flattening go); the access keeps its totals. */
void colio_access_drop_runs(colio_access_t *acc);

/* Sort pieces by offset (stable LSD radix sort; tmp holds n pieces). */
void colio_pieces_sort(colio_piece_t *p, int64_t n, colio_piece_t *tmp);

/* ---- user memory ---------------------------------------------------------- */

/* base + off without pointer arithmetic on NULL (MPI_BOTTOM with absolute displacements). */
static inline char *colio_addr(const void *base, int64_t off) { return (char *)((uintptr_t)base + (uintptr_t)off); }

typedef struct colio_memmap {
    char *base;
    const colio_flat_t *flat; /* NULL: the stream is contiguous at base */
} colio_memmap_t;

/* Copy stream bytes [pos, pos+len) out of user memory into contiguous dst. */
void colio_mem_gather(const colio_memmap_t *m, int64_t pos, int64_t len, void *dst);
/* Copy contiguous src into stream bytes [pos, pos+len) of user memory. */
void colio_mem_scatter(const colio_memmap_t *m, int64_t pos, int64_t len, const void *src);
/* Copy count blocks of len bytes, src_stride apart, into stream bytes [pos, pos + count*len). */
void colio_mem_scatter_strided(const colio_memmap_t *m, int64_t pos, const char *src, int64_t src_stride,
                               int64_t len, int64_t count);
/* Address of stream bytes [pos, pos+len) if they are contiguous in memory, else NULL. */
char *colio_mem_contig(const colio_memmap_t *m, int64_t pos, int64_t len);

#endif
