/*
 * Test helpers. CHECK records a failure and carries on, so a failing rank
 * still takes part in every collective; test_finish() combines the failures
 * of all ranks. Expected file contents are always computed independently of
 * colio: by formula, plain POSIX pread/pwrite, or MPI's own datatype engine
 * (MPI_Pack / MPI_Unpack), never by calling colio a second time.
 */
#ifndef COLIO_TESTUTIL_H
#define COLIO_TESTUTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "colio.h"

extern int t_rank, t_nprocs, t_failures;

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            t_failures++;                                                                \
            fprintf(stderr, "[rank %d] %s:%d: CHECK(%s) failed: ", t_rank, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                \
            fprintf(stderr, "\n");                                                       \
        }                                                                                \
    } while (0)

/* A colio call's result against the expected code, with the handle's message on mismatch. */
#define CHECK_RC(rc, expected, fh)                                                       \
    CHECK((rc) == (expected), "got %d (%s), expected %d (%s); detail: %s", (rc), colio_strerror(rc), \
          (expected), colio_strerror(expected), (fh) ? colio_last_error(fh) : colio_last_open_error())

void test_init(int *argc, char ***argv);
/* Unit tests that need no MPI: print the verdict, return the exit code. */
int unit_finish(const char *name);
/* Combine failures across ranks; print the verdict; finalize. Returns the exit code. */
int test_finish(const char *name);
/* Sum of a local count over all ranks. */
int test_all_failures(void);

/*
 * COLIO_TEST_ROTATE="key=v1,v2,...": each call sets key on info to the next
 * value in turn, so a matrix run covers every value across its cases (e.g.
 * every file-domain layout under one placement). No-op when unset.
 */
void test_rotate_info(MPI_Info info);

/* rc must be `want` on every rank, with one identical non-empty message (containing must_contain if given). */
void expect_all(int rc, int want, const colio_file *fh, const char *what, const char *must_contain);

/* A new MPI_Info holding "key=value;key=value" (NULL or empty: none). */
MPI_Info test_info(const char *hints);
/* path opened on every rank of MPI_COMM_WORLD with hints ("key=value;..."); NULL (the error checked) when it failed. */
colio_file *test_open(const char *path, int amode, const char *hints);

/* Keep COLIO_HINTS aside while a test sets its own, and put it back (a matrix run's hints stay). */
void save_env_hints(void);
void restore_env_hints(void);

/*
 * The machine's nodes as MPI sees them (MPI_Comm_split_type(SHARED)): the
 * lowest world rank on rank r's node and its number of ranks. Collective on
 * the first call (then kept).
 */
void test_node_of(int r, int *first, int *n);
/* The most ranks any node holds. */
int test_largest_node(void);

/* A scratch path unique to this run: <dir>/colio-<tag>-<pid of rank 0>. */
void test_path(char *out, size_t len, const char *tag);
/* Rank 0 removes the file, and its subfiles when subfiled (after a barrier). */
void test_unlink(const char *path);
/* The same on the calling rank only, no barrier. */
void test_unlink_local(const char *path);

/* xorshift64: the unit tests' reproducible random numbers (each keeps its own state). */
static inline uint64_t test_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Deterministic content generators. */
static inline unsigned char pattern_old(int64_t off) { return (unsigned char)((off * 131 + 17) ^ 0xA5); }
static inline unsigned char pattern_new(int rank, int64_t i, int salt)
{
    return (unsigned char)(i * 7 + rank * 41 + salt * 13 + 1);
}

/*
 * Rank 0 writes size bytes of pattern_old with plain pwrite, truncating first.
 * With COLIO_TEST_SUBFILING=1 (the correctness matrix under subfiling) the
 * file is removed and made again through colio, so it is subfiled as
 * COLIO_HINTS (colio_subfiles=...) ask; every read below then goes through
 * the tests' own reader of subfiled files (testutil.c), independent of colio.
 */
void test_prefill(const char *path, int64_t size);
/* Read the whole file (size given) on the calling rank: plain pread, or through the subfiles. */
int test_read_file(const char *path, unsigned char *buf, int64_t size);
/* Bytes [off, off + len) as above; bytes read (short at the end of file), -1 if missing. */
int64_t test_pread(const char *path, void *buf, int64_t len, int64_t off);
/* Write bytes [off, off + len) behind colio's back: plain pwrite, or into the subfiles. 0 or -1. */
int test_pwrite(const char *path, const void *buf, int64_t len, int64_t off);
/* File size with stat (a subfiled file: its logical size), -1 if missing. */
int64_t test_file_size(const char *path);
/* Whether path is a subfiled file's metadata. */
int test_is_subfiled(const char *path);
/* The number of subfiles a subfiled file's metadata names (the tests' own reader); 0 for an ordinary file. */
int test_subfile_count(const char *path);

/*
 * Expected effect of one rank's view write: bytes [skip, skip+nbytes) of the
 * view's data stream (the stream itself given) land at the file offsets the
 * view assigns them. Fills image (size bytes) where mask is set, using
 * MPI_Unpack with the filetype as the oracle.
 */
int view_image(MPI_Offset disp, MPI_Datatype filetype, int64_t skip, const unsigned char *stream,
               int64_t nbytes, unsigned char *image, unsigned char *mask, int64_t size);

/* The stream a view read returns: MPI_Pack of the file image through the filetype. */
int view_stream(MPI_Offset disp, MPI_Datatype filetype, int64_t skip, const unsigned char *image,
                int64_t size, unsigned char *stream, int64_t nbytes);

/* Collective: rank 0 compares the file's first size bytes with image (the first wrong byte reported);
   every rank gets the number of wrong bytes (a file rank 0 cannot read counts one more). */
int64_t test_check_file(const char *path, const unsigned char *image, int64_t size, const char *what);

/*
 * Combine per-rank (image, mask) to rank 0 and compare the file with
 * old-content-where-unmasked. Returns mismatches (on rank 0; 0 elsewhere).
 */
int64_t verify_file_images(const char *path, const unsigned char *image, const unsigned char *mask, int64_t size,
                           const char *what);

/*
 * The data calls as the tests make them: blocking, or with COLIO_TEST_NB=wait
 * the nonblocking call then colio_wait, so the whole correctness matrix runs
 * through the nonblocking API too. COLIO_TEST_THREADS=multiple makes
 * test_init ask for MPI_THREAD_MULTIPLE (colio_progress=thread possible).
 */
int tu_nonblocking(void);
int tu_write_all(colio_file *fh, const void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st);
int tu_read_all(colio_file *fh, void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st);
int tu_write_at_all(colio_file *fh, MPI_Offset off, const void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st);
int tu_read_at_all(colio_file *fh, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st);
int tu_write_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[], const void *buf);
int tu_read_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[], void *buf);

#endif
