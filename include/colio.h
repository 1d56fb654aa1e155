/*
 * colio: MPI collective file I/O with the two-phase method.
 *
 * This is the whole public API. Every call that takes a colio_file is
 * collective over the file's communicator unless its comment says "local".
 * Every call returns COLIO_SUCCESS (0) or a negative COLIO_ERR_* code, and a
 * collective call returns the same code on every rank, with the same message
 * (colio_last_error). Bad arguments are errors, never crashes: a bad value
 * on some ranks of a collective call fails it on every rank, except a NULL
 * or closed handle, which leaves the rank no way to reach the others (as
 * MPI_FILE_NULL in MPI). A handle colio_close closed (a copy kept elsewhere)
 * and a completed request are recognised as long as their memory has not
 * been reused (COLIO_ERR_ARG).
 *
 * A NULL status is MPI_STATUS_IGNORE, and a NULL statuses array
 * MPI_STATUSES_IGNORE: Open MPI defines those as NULL and MPICH does not, so
 * colio treats NULL alike under both.
 */
#ifndef COLIO_H
#define COLIO_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libcolio exports: the declarations below and nothing else (it is built with hidden visibility). */
#if defined(__GNUC__) || defined(__clang__)
#define COLIO_API __attribute__((visibility("default")))
#else
#define COLIO_API
#endif

#define COLIO_VERSION_MAJOR 0
#define COLIO_VERSION_MINOR 1
#define COLIO_VERSION_PATCH 0

/** Opaque handle to a collectively opened file. */
typedef struct colio_file colio_file;
/** Opaque handle to a nonblocking operation (colio_iwrite_all and the other colio_i* calls). */
typedef struct colio_request colio_request;

/*
 * Error codes. X-macro: X(NAME, value, "message"). colio_strerror() is
 * generated from the same list, so a code and its text cannot drift apart.
 */
#define COLIO_ERROR_MAP(X)                                                                 \
    X(SUCCESS, 0, "success")                                                               \
    X(ERR_ARG, -1, "invalid argument")                                                     \
    X(ERR_HINT, -2, "invalid hint value")                                                  \
    X(ERR_TYPE, -3, "invalid or unsupported datatype")                                     \
    X(ERR_ACCESS, -4, "permission denied or access mode forbids this operation")          \
    X(ERR_NOENT, -5, "no such file or directory")                                          \
    X(ERR_EXIST, -6, "file exists")                                                        \
    X(ERR_NOSPC, -7, "no space left on device")                                            \
    X(ERR_IO, -8, "input/output error")                                                    \
    X(ERR_NOMEM, -9, "out of memory")                                                      \
    X(ERR_MPI, -10, "MPI call failed")                                                     \
    X(ERR_READONLY, -11, "file is read-only")                                              \
    X(ERR_AMODE, -12, "invalid access mode")                                               \
    X(ERR_NOT_SAME, -13, "argument differs across ranks where it must be the same")       \
    X(ERR_BAD_FILE, -14, "invalid file name")                                              \
    X(ERR_QUOTA, -15, "disk quota exceeded")                                               \
    X(ERR_UNSUPPORTED, -16, "operation not supported")                                     \
    X(ERR_INTERNAL, -17, "internal error")

enum colio_error {
#define COLIO_ERROR_ENUM_(name, value, text) COLIO_##name = value,
    COLIO_ERROR_MAP(COLIO_ERROR_ENUM_)
#undef COLIO_ERROR_ENUM_
};

/** Timings (seconds) of the phases of two-phase I/O. */
typedef struct colio_phase_times {
    double total;         /**< wall time of the whole operation */
    double meta_exchange; /**< agreement on extents and offset/length lists to aggregators */
    double data_exchange; /**< moving data between ranks and aggregators, all rounds */
    double io;            /**< storage reads and writes by the calling thread, and its waits for the I/O helper's */
    double compute;       /**< flattening, splitting, sorting, merging, packing */
    double io_async;      /**< storage time of the I/O helper thread (colio_pipeline=2), overlapped with the rest */
} colio_phase_times;

/** Counters of one collective operation, or summed over many. */
typedef struct colio_op_stats {
    colio_phase_times time;
    int64_t bytes;       /**< bytes this rank asked to move */
    int64_t pieces;      /**< contiguous file pieces in this rank's request */
    int64_t rounds;      /**< two-phase rounds this rank took part in */
    int64_t io_calls;    /**< storage calls made by this rank */
    int64_t io_bytes;    /**< bytes this rank moved to or from storage (incl. read-modify-write) */
    int64_t sent_bytes;  /**< data bytes this rank sent to other ranks */
    int64_t recv_bytes;  /**< data bytes this rank received from other ranks */
    int64_t memory;      /**< bytes of buffers colio held for the operation on this rank (peak) */
    int aggregators;     /**< number of aggregators (0: independent path) */
    int is_aggregator;   /**< 1 if this rank was an aggregator */
    char meta_kernel[16]; /**< exchange kernel of the metadata ("" when no exchange ran; totals: the last) */
    char data_kernel[16]; /**< exchange kernel of the data rounds */
    int64_t messages;     /**< point-to-point messages this rank posted (metadata and data) */
    int64_t max_requests; /**< most MPI requests this rank had in flight at once in an exchange */
    int64_t max_fanin;    /**< peers of the busiest aggregator (senders of a write, receivers of a read) */
    double exchange_min;  /**< fastest rank's metadata + data exchange time (s), agreed over all ranks */
    double exchange_max;  /**< slowest rank's: max - min is the straggler spread */
    int64_t plans_reused; /**< operations that reused a stored exchange plan (colio_plan_cache) */
    char placement[16];   /**< aggregator placement strategy that chose the aggregators */
    int64_t hop_bytes;    /**< shuffle hop-bytes over all ranks: bytes x distance (0 itself, 1 same node, else network hops) */
    int64_t max_link_bytes; /**< most shuffle bytes crossing one link of the modelled network (colio_topology) */
    int64_t agg_bytes_max;  /**< bytes of the busiest aggregator's file domain (balance; totals: the largest) */
    int64_t agg_bytes_min;  /**< bytes of the idlest aggregator's file domain */
    double predicted_cost;  /**< the cost model's time for the slowest file domain, TAPIOCA's max C1 + C2 (s) */
    char strategy[12];      /**< the call's path: "two-phase", "direct", "early" (every piece went before the
                                 agreement), "staged" (this rank's piece went to its node's first rank,
                                 colio_stage_bytes), "none" (nothing to move); totals: the last */
    double predicted_two_phase; /**< the strategy model's seconds for two-phase I/O (0: not modelled) */
    double predicted_direct;    /**< ... for the direct path (colio_storage_model) */
    int64_t meta_messages;      /**< point-to-point messages of the metadata phase this rank posted: the counts
                                     step (colio_counts) and the offset/length lists */
    int64_t detour_bytes;       /**< bytes this rank moved through colio's memory only to keep a copy off a slow
                                     address shift (COLIO_MISALIGNED_READS: direct pieces bounced, two-phase
                                     messages put aside) */
    int64_t express;            /**< 1: the call ended without colio's operation machinery, one piece moved and
                                     agreed on (colio_express); totals: how many calls did */
    int64_t io_jobs_handed;     /**< storage jobs this rank handed to the I/O executor (colio_io_executor) to run
                                     beside the call: nonblocking and pipelined operations, and the direct path's
                                     jobs where storage calls wait (they run at once, their waits overlapping) */
    int64_t meta_words;         /**< two-phase: words (8 bytes) a record of the offset/length lists takes: 1 a
                                     piece packed (the call within 4 GiB of file), 2 a piece, 4 a strided run;
                                     0 without lists (other paths); totals: the last call's that had lists */
    int64_t work_runs;          /**< records (a piece, or a strided run of them) colio's own code walked on this
                                     rank: its request's, built and split by domain, and every round's slices'
                                     on both sides; with work_pieces and work_bytes, the units of the
                                     simulator's modelled compute (docs/SCALE.md, "Computation") */
    int64_t work_pieces;        /**< the pieces of every round's slices on both sides (a strided run's each) */
    int64_t work_bytes;         /**< bytes colio copied in memory itself: packed slices, an aggregator's own runs */
} colio_op_stats;

/** Statistics kept on a file handle (local to the calling rank). */
typedef struct colio_stats {
    int64_t operations;   /**< collective data operations completed on this handle */
    colio_op_stats last;  /**< the most recent operation */
    colio_op_stats total; /**< sum over all operations (memory, aggregators: the largest seen) */
} colio_stats;

/**
 * Collectively open @p path. On failure *fh is set to NULL. Every rank must
 * name the same file (paths may differ: the file's inode is compared, and
 * its device where all ranks share a node): otherwise COLIO_ERR_NOT_SAME,
 * and a file the open created is removed again. A NULL @p fh on some ranks
 * fails the open on every rank (COLIO_ERR_ARG).
 */
COLIO_API int colio_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, colio_file **fh);
/** Collectively close; *fh is NULL on return whatever the outcome. */
COLIO_API int colio_close(colio_file **fh);
/**
 * Local, as MPI_File_delete: remove @p path and, when it is a subfiled file
 * (hint colio_subfiles), every subfile its metadata names. COLIO_ERR_NOENT
 * when there is no such file; the message is colio_last_open_error().
 */
COLIO_API int colio_delete(const char *path, MPI_Info info);
/** Set the file view, as MPI_File_set_view with datarep "native". Resets the file pointer. */
COLIO_API int colio_set_view(colio_file *fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                   MPI_Info info);

/** Collective write at the individual file pointer (which advances, in etypes). */
COLIO_API int colio_write_all(colio_file *fh, const void *buf, MPI_Count count, MPI_Datatype memtype,
                    MPI_Status *status);
/** Collective read at the individual file pointer (which advances, in etypes). */
COLIO_API int colio_read_all(colio_file *fh, void *buf, MPI_Count count, MPI_Datatype memtype,
                   MPI_Status *status);
/** Collective write at @p offset (in etypes, relative to the view). */
COLIO_API int colio_write_at_all(colio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                       MPI_Datatype memtype, MPI_Status *status);
/** Collective read at @p offset (in etypes, relative to the view). */
COLIO_API int colio_read_at_all(colio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                      MPI_Datatype memtype, MPI_Status *status);

/**
 * Collective write of an explicit request list: @p n pieces (absolute file byte
 * offsets and lengths, the view does not apply), data packed contiguously in
 * @p buf in list order. Lists need not be sorted; pieces of one call must not
 * overlap (COLIO_ERR_ARG).
 */
COLIO_API int colio_write_list_all(colio_file *fh, MPI_Count n, const MPI_Offset offsets[],
                         const MPI_Offset lengths[], const void *buf);
/** Collective read of an explicit request list; see colio_write_list_all. */
COLIO_API int colio_read_list_all(colio_file *fh, MPI_Count n, const MPI_Offset offsets[],
                        const MPI_Offset lengths[], void *buf);

/*
 * Nonblocking collective calls. Each is collective (every rank calls the
 * same ones in the same order) but local: it returns at once with a request
 * the operation is completed through. Many may be outstanding on one file;
 * their results equal the same blocking calls made in issue order. The
 * individual file pointer moves at initiation. Buffers (and for the list
 * calls the data buffer; the offset/length arrays are copied) belong to
 * colio until completion. Errors, the same on every rank, are returned by
 * the call that completes the operation. Operations progress inside any
 * colio call and, with colio_progress=thread, in a progress thread. Given
 * a NULL @p req, a call completes its operation before it returns, failing
 * it on every rank (COLIO_ERR_ARG; the other ranks see it at completion).
 */
COLIO_API int colio_iwrite_all(colio_file *fh, const void *buf, MPI_Count count, MPI_Datatype memtype,
                     colio_request **req);
COLIO_API int colio_iread_all(colio_file *fh, void *buf, MPI_Count count, MPI_Datatype memtype,
                    colio_request **req);
COLIO_API int colio_iwrite_at_all(colio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                        MPI_Datatype memtype, colio_request **req);
COLIO_API int colio_iread_at_all(colio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype memtype, colio_request **req);
COLIO_API int colio_iwrite_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[],
                          const void *buf, colio_request **req);
COLIO_API int colio_iread_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[],
                         void *buf, colio_request **req);
/** Progress; when the operation is done set *flag, fill status, free and NULL *req. A NULL *req is done. */
COLIO_API int colio_test(colio_request **req, int *flag, MPI_Status *status);
/** Complete the operation: fill status, free and NULL *req; returns the operation's agreed result. */
COLIO_API int colio_wait(colio_request **req, MPI_Status *status);
/** Complete all (any order of completion is safe); statuses[i].MPI_ERROR holds each result; returns the first error. */
COLIO_API int colio_waitall(int n, colio_request *reqs[], MPI_Status statuses[]);
/** Progress all; *flag when every one is done (then as colio_waitall), else nothing is released. */
COLIO_API int colio_testall(int n, colio_request *reqs[], int *flag, MPI_Status statuses[]);
/**
 * A generalized MPI request for the operation, completed by the progress
 * thread (colio_progress=thread; COLIO_ERR_UNSUPPORTED otherwise), usable
 * with MPI_Wait, MPI_Test, MPI_Waitall... Afterwards complete the operation
 * through MPI only: the colio request is freed with the MPI request. The
 * status carries the byte count and, in MPI_ERROR, an MPI error class for a
 * failed operation (set MPI_ERRORS_RETURN to see it instead of aborting).
 */
COLIO_API int colio_request_get_mpi(colio_request *req, MPI_Request *mreq);

/** Collective: flush every rank's writes to storage. */
COLIO_API int colio_sync(colio_file *fh);
/** Collective: complete every operation of fh still in flight (what set_view and close do first). */
COLIO_API int colio_complete(colio_file *fh);
/** Local: current size of the file in bytes. */
COLIO_API int colio_get_size(colio_file *fh, MPI_Offset *size);
/** Collective: change hints between operations (invalid values: COLIO_ERR_HINT). */
COLIO_API int colio_set_info(colio_file *fh, MPI_Info info);
/** Local: a new info object with every hint in effect; free it with MPI_Info_free. */
COLIO_API int colio_get_info(colio_file *fh, MPI_Info *info_used);
/**
 * Local, as MPI_Info_get on what colio_get_info returns, without building
 * the MPI_Info: *flag is 1 and value holds the hint's value in effect (cut to
 * valuelen - 1 characters), or *flag is 0 for an unknown or empty key.
 */
COLIO_API int colio_get_hint(colio_file *fh, const char *key, char *value, int valuelen, int *flag);
/** Local: statistics of the last operation and totals since open. */
COLIO_API int colio_get_stats(colio_file *fh, colio_stats *stats);
/** Local: the individual file pointer, in etypes relative to the view. */
COLIO_API int colio_get_position(colio_file *fh, MPI_Offset *offset);
/**
 * Local, as MPI_File_seek: move the individual file pointer to offset etypes
 * (MPI_SEEK_SET), offset past where it is (MPI_SEEK_CUR) or offset past the
 * end of file (MPI_SEEK_END: past the view's data below the file's size).
 * A position before the view's start is COLIO_ERR_ARG.
 */
COLIO_API int colio_seek(colio_file *fh, MPI_Offset offset, int whence);
/** Local: text of an error code. Never NULL. */
COLIO_API const char *colio_strerror(int err);
/** Local: the MPI error class closest to a colio error code (MPI_SUCCESS for COLIO_SUCCESS). */
COLIO_API int colio_mpi_error_class(int err);
/**
 * Local: the detailed message of the last error on this handle (path, errno
 * text, failing rank), identical on every rank for collective errors; "" if
 * none. With a NULL (or closed) @p fh: the calling thread's message of the
 * last call that failed with no open handle to keep it (as
 * colio_last_open_error). Never NULL.
 */
COLIO_API const char *colio_last_error(const colio_file *fh);
/**
 * Local: the calling thread's message of the last call that failed with no
 * open handle to keep it: colio_open, colio_delete, a call given a NULL or
 * closed handle or a NULL or completed request, and colio_waitall /
 * colio_testall; "" after a successful colio_open.
 */
COLIO_API const char *colio_last_open_error(void);

#ifdef __cplusplus
}
#endif
#endif /* COLIO_H */
