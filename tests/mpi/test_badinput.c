/*
 * Every public call against every kind of bad argument, from one table.
 *
 * calls[] lists each function of include/colio.h with its parameters, by
 * kind; bad[] lists, per parameter kind, the bad values a hostile caller
 * passes (NULL pointers, negative and huge counts, invalid, uncommitted and
 * null datatypes, bad offsets and whence, invalid hints, the wrong access
 * mode, closed and NULL handles, NULL and completed requests) and the code
 * colio answers with. Each (call, parameter, bad value) runs once with the
 * bad value on every rank and once on the last rank only, and the test
 * checks: every rank of a collective call returns that code with one
 * identical non-empty message (colio_last_error, or colio_last_open_error /
 * colio_last_error(NULL) where there is no handle); a local call fails on
 * the ranks given the bad value only; no rank dies or hangs (a watchdog
 * names the case); the file's bytes equal a copy taken before the call
 * (or, where a value is defined as harmless, such as a NULL status, the
 * copy plus what the call was asked to write). The test reads
 * include/colio.h (its first argument) and fails for a public function
 * without a row here.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

enum { FILE_BYTES = 4096, SLOT = 256, LEN = 48, NOFFSET = 8, COLIO_MSG_COPY = 600 }; /* rank r's call moves LEN bytes at r * SLOT + 8 */

/* Parameter kinds. */
typedef enum {
    P_COMM, P_PATH, P_AMODE, P_INFO, P_FH_OUT, P_FH_INOUT, P_FH, P_CFH, P_DISP, P_ETYPE, P_FILETYPE,
    P_BUF, P_COUNT, P_TYPE, P_OFFSET, P_STATUS, P_NLIST, P_OFFSETS, P_LENGTHS, P_REQ_OUT, P_REQ_INOUT,
    P_REQ, P_FLAG, P_NREQS, P_REQS, P_STATUSES, P_MREQ, P_SIZE_OUT, P_INFO_OUT, P_KEY, P_VALUE, P_VALUELEN,
    P_STATS_OUT, P_POS_OUT, P_SEEK_OFF, P_WHENCE, P_CODE, P_NONE
} param_t;

/* How a call reports. */
typedef enum {
    COLL,    /* collective on a handle: one agreed code and message on every rank */
    OPEN,    /* collective without a handle (colio_open): the message is colio_last_open_error() */
    NBCOLL,  /* nonblocking collective: the initiation's code, else the completion's (colio_wait) */
    LOCAL,   /* local: only the ranks given the bad value fail */
} class_t;

typedef struct call call_t;
typedef struct fn {
    const char *name;
    class_t cls;
    char dir;         /* 'w' writes, 'r' reads the file, 0 neither */
    int needs_req;    /* the call completes a request: one (an iread) is made first */
    param_t params[8];
    int (*invoke)(call_t *c);
} fn_t;

/* Everything a call may take; set up good, then one parameter is made bad. */
struct call {
    const fn_t *fn;
    MPI_Comm comm;
    const char *path;
    int amode;
    MPI_Info info;
    colio_file *fh, *open_fh, **fh_out, **fh_inout;
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    MPI_Offset off;
    MPI_Status st, *status;
    MPI_Count n;
    MPI_Offset offs[2], lens[2], *offsets, *lengths;
    colio_request *req, **req_out, **req_inout, *reqs[1], **reqs_p, *req_arg;
    int nreqs, flag, *flag_p;
    MPI_Status sts[1], *statuses;
    MPI_Request mreq, *mreq_p;
    MPI_Offset size, *size_p, pos, *pos_p, seek_off;
    MPI_Info info_used, *info_out;
    const char *key;
    char value[64], *value_p;
    int valuelen, hint_flag, *hint_flag_p, whence, code;
    colio_stats stats, *stats_p;
    const char *text; /* what colio_strerror / colio_last_error returned */
    int cls_out;      /* colio_mpi_error_class's answer */
    MPI_Datatype made; /* a type the bad value made, freed after the call */
};

/* A bad value of one parameter kind. */
typedef struct bad {
    param_t param;
    const char *what;
    int want;       /* the code; SUCCESS: defined as harmless (the call does its work) */
    int all_only;   /* reaches no other rank (no handle, no communicator): all ranks only for collective calls */
    int last_only;  /* makes sense on some ranks only (the ranks differ): collective calls only */
    int everyone;   /* apply runs on every rank and makes each rank's value itself */
    void (*apply)(call_t *c);
} bad_t;

static char path[512], other[600], fresh[600];
static unsigned char data[FILE_BYTES], rbuf[FILE_BYTES];
static const char *current = "setup";

/* ---- invokers ------------------------------------------------------------------------ */

static int i_open(call_t *c) { return colio_open(c->comm, c->path, c->amode, c->info, c->fh_out); }
static int i_close(call_t *c) { return colio_close(c->fh_inout); }
static int i_delete(call_t *c) { return colio_delete(c->path, c->info); }
static int i_set_view(call_t *c) { return colio_set_view(c->fh, c->disp, c->etype, c->filetype, c->info); }
static int i_write_all(call_t *c) { return colio_write_all(c->fh, c->buf, c->count, c->type, c->status); }
static int i_read_all(call_t *c) { return colio_read_all(c->fh, c->buf, c->count, c->type, c->status); }
static int i_write_at_all(call_t *c) { return colio_write_at_all(c->fh, c->off, c->buf, c->count, c->type, c->status); }
static int i_read_at_all(call_t *c) { return colio_read_at_all(c->fh, c->off, c->buf, c->count, c->type, c->status); }
static int i_write_list(call_t *c) { return colio_write_list_all(c->fh, c->n, c->offsets, c->lengths, c->buf); }
static int i_read_list(call_t *c) { return colio_read_list_all(c->fh, c->n, c->offsets, c->lengths, c->buf); }
static int i_iwrite_all(call_t *c) { return colio_iwrite_all(c->fh, c->buf, c->count, c->type, c->req_out); }
static int i_iread_all(call_t *c) { return colio_iread_all(c->fh, c->buf, c->count, c->type, c->req_out); }
static int i_iwrite_at_all(call_t *c) { return colio_iwrite_at_all(c->fh, c->off, c->buf, c->count, c->type, c->req_out); }
static int i_iread_at_all(call_t *c) { return colio_iread_at_all(c->fh, c->off, c->buf, c->count, c->type, c->req_out); }
static int i_iwrite_list(call_t *c) { return colio_iwrite_list_all(c->fh, c->n, c->offsets, c->lengths, c->buf, c->req_out); }
static int i_iread_list(call_t *c) { return colio_iread_list_all(c->fh, c->n, c->offsets, c->lengths, c->buf, c->req_out); }
static int i_test(call_t *c) { return colio_test(c->req_inout, c->flag_p, c->status); }
static int i_wait(call_t *c) { return colio_wait(c->req_inout, c->status); }
static int i_waitall(call_t *c) { return colio_waitall(c->nreqs, c->reqs_p, c->statuses); }
static int i_testall(call_t *c) { return colio_testall(c->nreqs, c->reqs_p, c->flag_p, c->statuses); }
static int i_get_mpi(call_t *c) { return colio_request_get_mpi(c->req_arg, c->mreq_p); }
static int i_sync(call_t *c) { return colio_sync(c->fh); }
static int i_complete(call_t *c) { return colio_complete(c->fh); }
static int i_get_size(call_t *c) { return colio_get_size(c->fh, c->size_p); }
static int i_set_info(call_t *c) { return colio_set_info(c->fh, c->info); }
static int i_get_info(call_t *c) { return colio_get_info(c->fh, c->info_out); }
static int i_get_hint(call_t *c) { return colio_get_hint(c->fh, c->key, c->value_p, c->valuelen, c->hint_flag_p); }
static int i_get_stats(call_t *c) { return colio_get_stats(c->fh, c->stats_p); }
static int i_get_position(call_t *c) { return colio_get_position(c->fh, c->pos_p); }
static int i_seek(call_t *c) { return colio_seek(c->fh, c->seek_off, c->whence); }

/* The calls that return no code: what they return must be usable whatever they are given. */
static int i_strerror(call_t *c)
{
    c->text = colio_strerror(c->code);
    return c->text && c->text[0] ? COLIO_SUCCESS : COLIO_ERR_INTERNAL;
}

static int i_error_class(call_t *c)
{
    c->cls_out = colio_mpi_error_class(c->code);
    int last = 0;
    MPI_Error_class(MPI_ERR_LASTCODE, &last);
    return c->cls_out > MPI_SUCCESS && c->cls_out <= MPI_ERR_LASTCODE ? COLIO_SUCCESS : COLIO_ERR_INTERNAL;
}

static int i_last_error(call_t *c)
{
    c->text = colio_last_error(c->fh);
    return c->text ? COLIO_SUCCESS : COLIO_ERR_INTERNAL;
}

static int i_last_open_error(call_t *c)
{
    c->text = colio_last_open_error();
    return c->text ? COLIO_SUCCESS : COLIO_ERR_INTERNAL;
}

/* Every public function of include/colio.h: its parameters by kind (P_NONE ends the list). */
static const fn_t calls[] = {
    {"colio_open", OPEN, 0, 0, {P_COMM, P_PATH, P_AMODE, P_INFO, P_FH_OUT, P_NONE}, i_open},
    {"colio_close", COLL, 0, 0, {P_FH_INOUT, P_NONE}, i_close},
    {"colio_delete", LOCAL, 0, 0, {P_PATH, P_INFO, P_NONE}, i_delete},
    {"colio_set_view", COLL, 0, 0, {P_FH, P_DISP, P_ETYPE, P_FILETYPE, P_INFO, P_NONE}, i_set_view},
    {"colio_write_all", COLL, 'w', 0, {P_FH, P_BUF, P_COUNT, P_TYPE, P_STATUS, P_NONE}, i_write_all},
    {"colio_read_all", COLL, 'r', 0, {P_FH, P_BUF, P_COUNT, P_TYPE, P_STATUS, P_NONE}, i_read_all},
    {"colio_write_at_all", COLL, 'w', 0, {P_FH, P_OFFSET, P_BUF, P_COUNT, P_TYPE, P_STATUS, P_NONE}, i_write_at_all},
    {"colio_read_at_all", COLL, 'r', 0, {P_FH, P_OFFSET, P_BUF, P_COUNT, P_TYPE, P_STATUS, P_NONE}, i_read_at_all},
    {"colio_write_list_all", COLL, 'w', 0, {P_FH, P_NLIST, P_OFFSETS, P_LENGTHS, P_BUF, P_NONE}, i_write_list},
    {"colio_read_list_all", COLL, 'r', 0, {P_FH, P_NLIST, P_OFFSETS, P_LENGTHS, P_BUF, P_NONE}, i_read_list},
    {"colio_iwrite_all", NBCOLL, 'w', 0, {P_FH, P_BUF, P_COUNT, P_TYPE, P_REQ_OUT, P_NONE}, i_iwrite_all},
    {"colio_iread_all", NBCOLL, 'r', 0, {P_FH, P_BUF, P_COUNT, P_TYPE, P_REQ_OUT, P_NONE}, i_iread_all},
    {"colio_iwrite_at_all", NBCOLL, 'w', 0, {P_FH, P_OFFSET, P_BUF, P_COUNT, P_TYPE, P_REQ_OUT, P_NONE},
     i_iwrite_at_all},
    {"colio_iread_at_all", NBCOLL, 'r', 0, {P_FH, P_OFFSET, P_BUF, P_COUNT, P_TYPE, P_REQ_OUT, P_NONE},
     i_iread_at_all},
    {"colio_iwrite_list_all", NBCOLL, 'w', 0, {P_FH, P_NLIST, P_OFFSETS, P_LENGTHS, P_BUF, P_REQ_OUT, P_NONE},
     i_iwrite_list},
    {"colio_iread_list_all", NBCOLL, 'r', 0, {P_FH, P_NLIST, P_OFFSETS, P_LENGTHS, P_BUF, P_REQ_OUT, P_NONE},
     i_iread_list},
    {"colio_test", LOCAL, 'r', 1, {P_REQ_INOUT, P_FLAG, P_STATUS, P_NONE}, i_test},
    {"colio_wait", LOCAL, 'r', 1, {P_REQ_INOUT, P_STATUS, P_NONE}, i_wait},
    {"colio_waitall", LOCAL, 'r', 1, {P_NREQS, P_REQS, P_STATUSES, P_NONE}, i_waitall},
    {"colio_testall", LOCAL, 'r', 1, {P_NREQS, P_REQS, P_FLAG, P_STATUSES, P_NONE}, i_testall},
    {"colio_request_get_mpi", LOCAL, 'r', 1, {P_REQ, P_MREQ, P_NONE}, i_get_mpi},
    {"colio_sync", COLL, 0, 0, {P_FH, P_NONE}, i_sync},
    {"colio_complete", COLL, 0, 0, {P_FH, P_NONE}, i_complete},
    {"colio_get_size", LOCAL, 0, 0, {P_FH, P_SIZE_OUT, P_NONE}, i_get_size},
    {"colio_set_info", COLL, 0, 0, {P_FH, P_INFO, P_NONE}, i_set_info},
    {"colio_get_info", LOCAL, 0, 0, {P_FH, P_INFO_OUT, P_NONE}, i_get_info},
    {"colio_get_hint", LOCAL, 0, 0, {P_FH, P_KEY, P_VALUE, P_VALUELEN, P_FLAG, P_NONE}, i_get_hint},
    {"colio_get_stats", LOCAL, 0, 0, {P_FH, P_STATS_OUT, P_NONE}, i_get_stats},
    {"colio_get_position", LOCAL, 0, 0, {P_FH, P_POS_OUT, P_NONE}, i_get_position},
    {"colio_seek", LOCAL, 0, 0, {P_FH, P_SEEK_OFF, P_WHENCE, P_NONE}, i_seek},
    {"colio_strerror", LOCAL, 0, 0, {P_CODE, P_NONE}, i_strerror},
    {"colio_mpi_error_class", LOCAL, 0, 0, {P_CODE, P_NONE}, i_error_class},
    {"colio_last_error", LOCAL, 0, 0, {P_CFH, P_NONE}, i_last_error},
    {"colio_last_open_error", LOCAL, 0, 0, {P_NONE}, i_last_open_error},
};

/* ---- bad values ------------------------------------------------------------------------ */

static void a_comm_null(call_t *c) { c->comm = MPI_COMM_NULL; }
static void a_path_null(call_t *c) { c->path = NULL; }
static void a_path_empty(call_t *c) { c->path = ""; }
static void a_path_missing_dir(call_t *c) { c->path = "/nonexistent-colio-dir/file"; }
static void a_path_other(call_t *c) { c->path = other; }
static void a_path_other_create(call_t *c) /* everyone: a new file, but the last rank names another one */
{
    c->path = t_rank == t_nprocs - 1 ? other : fresh;
    c->amode |= MPI_MODE_CREATE;
}
static void a_amode_two(call_t *c) { c->amode = MPI_MODE_RDONLY | MPI_MODE_WRONLY; }
static void a_amode_none(call_t *c) { c->amode = 0; }
static void a_amode_rdonly_create(call_t *c) { c->amode = MPI_MODE_RDONLY | MPI_MODE_CREATE; }
static void a_amode_sequential(call_t *c) { c->amode = MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL; }
static void a_amode_differs(call_t *c) { c->amode = MPI_MODE_RDONLY; }
static void a_info_bad(call_t *c) { c->info = test_info("cb_nodes=abc"); }
static void a_info_bad_kernel(call_t *c) { c->info = test_info("colio_exchange=no-such-kernel"); }
static void a_fh_out_null(call_t *c) { c->fh_out = NULL; }
static void a_fh_inout_null(call_t *c) { c->fh_inout = NULL; }
static void a_fh_inout_nullfh(call_t *c)
{
    static colio_file *none;
    none = NULL;
    c->fh_inout = &none;
}
static colio_file *closed_handle; /* a handle's old value after colio_close (kept by a copy) */
static void a_fh_inout_closed(call_t *c)
{
    static colio_file *copy;
    copy = closed_handle;
    c->fh_inout = &copy;
}
static void a_fh_null(call_t *c) { c->fh = NULL; }
static void a_fh_closed(call_t *c) { c->fh = closed_handle; }
static void a_fh_other_mode(call_t *c); /* the file opened for the other direction: see setup */
static void a_disp_neg(call_t *c) { c->disp = -1; }
static void a_etype_null(call_t *c) { c->etype = MPI_DATATYPE_NULL; }
static void a_uncommitted(call_t *c, MPI_Datatype *slot)
{
    MPI_Type_contiguous(4, MPI_BYTE, &c->made);
    *slot = c->made;
}
static void a_etype_uncommitted(call_t *c) { a_uncommitted(c, &c->etype); }
static void a_filetype_null(call_t *c) { c->filetype = MPI_DATATYPE_NULL; }
static void a_filetype_uncommitted(call_t *c) { a_uncommitted(c, &c->filetype); }
static void a_filetype_overlap(call_t *c)
{
    int bl[2] = {8, 8};
    MPI_Aint d[2] = {0, 4};
    MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &c->made);
    MPI_Type_commit(&c->made);
    c->filetype = c->made;
}
static void a_filetype_negative(call_t *c)
{
    int bl[2] = {8, 8};
    MPI_Aint d[2] = {16, -16};
    MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &c->made);
    MPI_Type_commit(&c->made);
    c->filetype = c->made;
}
static void a_buf_null(call_t *c) { c->buf = NULL; }
static void a_count_neg(call_t *c) { c->count = -1; }
static void a_count_overflow(call_t *c)
{
    c->type = MPI_INT;
    c->count = INT64_MAX / 2; /* count * 4 bytes overflows */
}
static void a_count_past_end(call_t *c) { c->count = INT64_MAX - 4; } /* offset + count passes the largest offset */
static void a_type_null(call_t *c) { c->type = MPI_DATATYPE_NULL; }
static void a_type_uncommitted(call_t *c)
{
    MPI_Type_contiguous(LEN, MPI_BYTE, &c->made);
    c->type = c->made;
    c->count = 1;
}
static void a_offset_neg(call_t *c) { c->off = -1; }
static void a_offset_huge(call_t *c) { c->off = INT64_MAX; }
static void a_status_null(call_t *c) { c->status = NULL; }
static void a_nlist_neg(call_t *c) { c->n = -1; }
static void a_offsets_null(call_t *c) { c->offsets = NULL; }
static void a_offsets_neg(call_t *c) { c->offs[0] = -8; }
static void a_offsets_overlap(call_t *c) { c->offs[1] = c->offs[0] + 4; }
static void a_offsets_overflow(call_t *c) { c->offs[1] = INT64_MAX - 4; }
static void a_lengths_null(call_t *c) { c->lengths = NULL; }
static void a_lengths_neg(call_t *c) { c->lens[0] = -1; }
static void a_req_out_null(call_t *c) { c->req_out = NULL; }
static void a_req_inout_null(call_t *c) { c->req_inout = NULL; }
static colio_request *done_request; /* a completed request's old value (kept by a copy) */
static void a_req_inout_done(call_t *c)
{
    static colio_request *none;
    none = NULL;
    c->req_inout = &none; /* colio NULLs a request it completes: as MPI_REQUEST_NULL */
}
static void a_req_inout_stale(call_t *c)
{
    static colio_request *copy;
    copy = done_request;
    c->req_inout = &copy;
}
static void a_req_null(call_t *c) { c->req_arg = NULL; }
static void a_req_stale(call_t *c) { c->req_arg = done_request; }
static void a_flag_null(call_t *c)
{
    c->flag_p = NULL;
    c->hint_flag_p = NULL;
}
static void a_nreqs_neg(call_t *c) { c->nreqs = -1; }
static void a_reqs_null(call_t *c) { c->reqs_p = NULL; }
static void a_reqs_stale(call_t *c) { c->reqs[0] = done_request; }
static void a_statuses_null(call_t *c) { c->statuses = NULL; }
static void a_mreq_null(call_t *c) { c->mreq_p = NULL; }
static void a_size_null(call_t *c) { c->size_p = NULL; }
static void a_info_out_null(call_t *c) { c->info_out = NULL; }
static void a_key_null(call_t *c) { c->key = NULL; }
static void a_value_null(call_t *c) { c->value_p = NULL; }
static void a_valuelen_zero(call_t *c) { c->valuelen = 0; }
static void a_valuelen_neg(call_t *c) { c->valuelen = -1; }
static void a_stats_null(call_t *c) { c->stats_p = NULL; }
static void a_pos_null(call_t *c) { c->pos_p = NULL; }
static void a_seek_neg(call_t *c) { c->seek_off = -1; }
static void a_seek_overflow(call_t *c)
{
    c->seek_off = INT64_MAX;
    c->whence = MPI_SEEK_END;
}
static void a_whence_bad(call_t *c) { c->whence = 12345; }
static void a_code_unknown(call_t *c) { c->code = -12345; }
static void a_code_positive(call_t *c) { c->code = 77; }
static void a_cfh_null(call_t *c) { c->fh = NULL; }

#define WRONG_MODE (-1000) /* want: COLIO_ERR_READONLY for a write, COLIO_ERR_ACCESS for a read */

static const bad_t bad[] = {
    /* no communicator reaches the other ranks: every rank must pass it (as MPI_File_open with MPI_COMM_NULL) */
    {P_COMM, "MPI_COMM_NULL", COLIO_ERR_ARG, 1, 0, 0, a_comm_null},
    {P_PATH, "NULL path", COLIO_ERR_BAD_FILE, 0, 0, 0, a_path_null},
    {P_PATH, "empty path", COLIO_ERR_BAD_FILE, 0, 0, 0, a_path_empty},
    {P_PATH, "a path in a missing directory", COLIO_ERR_NOENT, 0, 0, 0, a_path_missing_dir},
    {P_PATH, "another existing file", COLIO_ERR_NOT_SAME, 0, 1, 0, a_path_other},
    {P_PATH, "another existing file, creating a new one", COLIO_ERR_NOT_SAME, 0, 1, 1, a_path_other_create},
    {P_AMODE, "RDONLY|WRONLY", COLIO_ERR_AMODE, 0, 0, 0, a_amode_two},
    {P_AMODE, "no access mode", COLIO_ERR_AMODE, 0, 0, 0, a_amode_none},
    {P_AMODE, "RDONLY|CREATE", COLIO_ERR_AMODE, 0, 0, 0, a_amode_rdonly_create},
    {P_AMODE, "SEQUENTIAL", COLIO_ERR_UNSUPPORTED, 0, 0, 0, a_amode_sequential},
    {P_AMODE, "another access mode", COLIO_ERR_NOT_SAME, 0, 1, 0, a_amode_differs},
    {P_INFO, "invalid hint value", COLIO_ERR_HINT, 0, 0, 0, a_info_bad},
    {P_INFO, "unknown exchange kernel", COLIO_ERR_HINT, 0, 0, 0, a_info_bad_kernel},
    {P_FH_OUT, "NULL handle pointer", COLIO_ERR_ARG, 0, 0, 0, a_fh_out_null},
    /* without a handle a rank cannot reach the others: all ranks only, as MPI with MPI_FILE_NULL */
    {P_FH_INOUT, "NULL handle pointer", COLIO_ERR_ARG, 1, 0, 0, a_fh_inout_null},
    {P_FH_INOUT, "NULL handle", COLIO_ERR_ARG, 1, 0, 0, a_fh_inout_nullfh},
    {P_FH_INOUT, "closed handle", COLIO_ERR_ARG, 1, 0, 0, a_fh_inout_closed},
    {P_FH, "NULL handle", COLIO_ERR_ARG, 1, 0, 0, a_fh_null},
    {P_FH, "closed handle", COLIO_ERR_ARG, 1, 0, 0, a_fh_closed},
    {P_FH, "file open for the other direction", WRONG_MODE, 1, 0, 0, a_fh_other_mode},
    {P_DISP, "negative displacement", COLIO_ERR_ARG, 0, 0, 0, a_disp_neg},
    {P_ETYPE, "MPI_DATATYPE_NULL", COLIO_ERR_TYPE, 0, 0, 0, a_etype_null},
    {P_ETYPE, "uncommitted", COLIO_ERR_TYPE, 0, 0, 0, a_etype_uncommitted},
    {P_FILETYPE, "MPI_DATATYPE_NULL", COLIO_ERR_TYPE, 0, 0, 0, a_filetype_null},
    {P_FILETYPE, "uncommitted", COLIO_ERR_TYPE, 0, 0, 0, a_filetype_uncommitted},
    {P_FILETYPE, "overlapping pieces on a writable file", COLIO_ERR_TYPE, 0, 0, 0, a_filetype_overlap},
    {P_FILETYPE, "negative displacement", COLIO_ERR_TYPE, 0, 0, 0, a_filetype_negative},
    {P_BUF, "NULL buffer", COLIO_ERR_ARG, 0, 0, 0, a_buf_null},
    {P_COUNT, "negative", COLIO_ERR_ARG, 0, 0, 0, a_count_neg},
    {P_COUNT, "count * type size overflows", COLIO_ERR_ARG, 0, 0, 0, a_count_overflow},
    {P_COUNT, "past the largest file offset", COLIO_ERR_ARG, 0, 0, 0, a_count_past_end},
    {P_TYPE, "MPI_DATATYPE_NULL", COLIO_ERR_TYPE, 0, 0, 0, a_type_null},
    {P_TYPE, "uncommitted", COLIO_ERR_TYPE, 0, 0, 0, a_type_uncommitted},
    {P_OFFSET, "negative", COLIO_ERR_ARG, 0, 0, 0, a_offset_neg},
    {P_OFFSET, "INT64_MAX", COLIO_ERR_ARG, 0, 0, 0, a_offset_huge},
    /* defined in colio.h: a NULL status is MPI_STATUS_IGNORE (which Open MPI defines as NULL) */
    {P_STATUS, "NULL status (ignored)", COLIO_SUCCESS, 0, 0, 0, a_status_null},
    {P_NLIST, "negative", COLIO_ERR_ARG, 0, 0, 0, a_nlist_neg},
    {P_OFFSETS, "NULL offsets", COLIO_ERR_ARG, 0, 0, 0, a_offsets_null},
    {P_OFFSETS, "a negative offset", COLIO_ERR_ARG, 0, 0, 0, a_offsets_neg},
    {P_OFFSETS, "overlapping pieces", COLIO_ERR_ARG, 0, 0, 0, a_offsets_overlap},
    {P_OFFSETS, "offset + length overflows", COLIO_ERR_ARG, 0, 0, 0, a_offsets_overflow},
    {P_LENGTHS, "NULL lengths", COLIO_ERR_ARG, 0, 0, 0, a_lengths_null},
    {P_LENGTHS, "a negative length", COLIO_ERR_ARG, 0, 0, 0, a_lengths_neg},
    {P_REQ_OUT, "NULL request pointer", COLIO_ERR_ARG, 0, 0, 0, a_req_out_null},
    {P_REQ_INOUT, "NULL request pointer", COLIO_ERR_ARG, 0, 0, 0, a_req_inout_null},
    /* defined: a completed request is NULL, as MPI_REQUEST_NULL (done at once, empty status) */
    {P_REQ_INOUT, "completed request (NULL)", COLIO_SUCCESS, 0, 0, 0, a_req_inout_done},
    {P_REQ_INOUT, "completed request (an old copy)", COLIO_ERR_ARG, 0, 0, 0, a_req_inout_stale},
    {P_REQ, "NULL request", COLIO_ERR_ARG, 0, 0, 0, a_req_null},
    {P_REQ, "completed request (an old copy)", COLIO_ERR_ARG, 0, 0, 0, a_req_stale},
    {P_FLAG, "NULL flag", COLIO_ERR_ARG, 0, 0, 0, a_flag_null},
    {P_NREQS, "negative count", COLIO_ERR_ARG, 0, 0, 0, a_nreqs_neg},
    {P_REQS, "NULL array", COLIO_ERR_ARG, 0, 0, 0, a_reqs_null},
    {P_REQS, "a completed request (an old copy)", COLIO_ERR_ARG, 0, 0, 0, a_reqs_stale},
    {P_STATUSES, "NULL statuses (ignored)", COLIO_SUCCESS, 0, 0, 0, a_statuses_null},
    {P_MREQ, "NULL MPI request", COLIO_ERR_ARG, 0, 0, 0, a_mreq_null},
    {P_SIZE_OUT, "NULL", COLIO_ERR_ARG, 0, 0, 0, a_size_null},
    {P_INFO_OUT, "NULL", COLIO_ERR_ARG, 0, 0, 0, a_info_out_null},
    {P_KEY, "NULL", COLIO_ERR_ARG, 0, 0, 0, a_key_null},
    {P_VALUE, "NULL", COLIO_ERR_ARG, 0, 0, 0, a_value_null},
    {P_VALUELEN, "zero", COLIO_ERR_ARG, 0, 0, 0, a_valuelen_zero},
    {P_VALUELEN, "negative", COLIO_ERR_ARG, 0, 0, 0, a_valuelen_neg},
    {P_STATS_OUT, "NULL", COLIO_ERR_ARG, 0, 0, 0, a_stats_null},
    {P_POS_OUT, "NULL", COLIO_ERR_ARG, 0, 0, 0, a_pos_null},
    {P_SEEK_OFF, "before the view's start", COLIO_ERR_ARG, 0, 0, 0, a_seek_neg},
    {P_SEEK_OFF, "INT64_MAX past the end", COLIO_ERR_ARG, 0, 0, 0, a_seek_overflow},
    {P_WHENCE, "unknown", COLIO_ERR_ARG, 0, 0, 0, a_whence_bad},
    /* no code to return: a usable answer is the defined outcome */
    {P_CODE, "unknown code", COLIO_SUCCESS, 0, 0, 0, a_code_unknown},
    {P_CODE, "positive code", COLIO_SUCCESS, 0, 0, 0, a_code_positive},
    {P_CFH, "NULL handle", COLIO_SUCCESS, 0, 0, 0, a_cfh_null},
    {P_CFH, "closed handle", COLIO_SUCCESS, 0, 0, 0, a_fh_closed},
};

/* ---- one case -------------------------------------------------------------------------- */

static MPI_Offset my_off(void) { return (MPI_Offset)t_rank * SLOT + NOFFSET; }

static int is_write(const fn_t *f) { return f->dir == 'w'; }

/* The case's file is opened for the other direction than the call's (a_fh_other_mode). */
static int other_mode;
static void a_fh_other_mode(call_t *c) { (void)c; }

static char delpath[600]; /* what a good colio_delete removes: a file of this rank's */

static void good_call(call_t *c, const fn_t *f)
{
    memset(c, 0, sizeof *c);
    c->fn = f;
    c->comm = MPI_COMM_WORLD;
    c->path = f->invoke == i_delete ? delpath : path;
    c->amode = MPI_MODE_RDWR;
    c->info = MPI_INFO_NULL;
    c->fh_out = &c->open_fh;
    c->etype = MPI_BYTE;
    c->filetype = MPI_BYTE;
    c->buf = is_write(f) ? (void *)data : (void *)rbuf;
    c->count = LEN;
    c->type = MPI_BYTE;
    c->off = my_off();
    c->status = &c->st;
    c->n = 2;
    c->offs[0] = my_off(), c->lens[0] = LEN / 2;
    c->offs[1] = my_off() + LEN / 2, c->lens[1] = LEN - LEN / 2;
    c->offsets = c->offs, c->lengths = c->lens;
    c->req_out = &c->req;
    c->req_inout = &c->req;
    c->reqs_p = c->reqs;
    c->nreqs = 1;
    c->flag_p = &c->flag;
    c->statuses = c->sts;
    c->mreq = MPI_REQUEST_NULL;
    c->mreq_p = &c->mreq;
    c->size_p = &c->size;
    c->info_used = MPI_INFO_NULL;
    c->info_out = &c->info_used;
    c->key = "cb_nodes";
    c->value_p = c->value;
    c->valuelen = (int)sizeof c->value;
    c->hint_flag_p = &c->hint_flag;
    c->stats_p = &c->stats;
    c->pos_p = &c->pos;
    c->seek_off = 1;
    c->whence = MPI_SEEK_SET;
    c->code = COLIO_ERR_IO;
    c->made = MPI_DATATYPE_NULL;
}

/* What the file holds: rank 0 reads it (FILE_BYTES, or less where it ends), every rank gets it. */
static void snapshot(const char *p, unsigned char *img, int64_t *len)
{
    int64_t got = 0;
    if (t_rank == 0) {
        memset(img, 0, FILE_BYTES);
        got = test_pread(p, img, FILE_BYTES, 0);
    }
    MPI_Bcast(&got, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(img, FILE_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD);
    *len = got;
}

/* The image after a call that did its work: the writes of every rank, at the offsets good_call gives them. */
static void apply_writes(unsigned char *img, int64_t *len)
{
    for (int r = 0; r < t_nprocs; r++) {
        MPI_Offset at = (MPI_Offset)r * SLOT + NOFFSET;
        for (int i = 0; i < LEN; i++)
            img[at + i] = pattern_new(r, i, 3);
        if (at + LEN > *len)
            *len = at + LEN;
    }
}

typedef struct outcome {
    int rc;
    char msg[COLIO_MSG_COPY];
} outcome_t;

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h >> 1;
}

static void say(const char *what, int sig)
{
    char line[512];
    int n = snprintf(line, sizeof line, "[rank %d] test_badinput: %s%.0d in case %s\n", t_rank, what, sig, current);
    if (write(2, line, (size_t)n) < 0)
        _exit(3);
}

static void on_alarm(int sig)
{
    (void)sig;
    say("hung", 0);
    _exit(3);
}

static void on_crash(int sig)
{
    say("signal ", sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* An MPI call colio made with a bad value failed where errors are fatal (MPI_COMM_WORLD's handler). */
static void on_mpi_error(MPI_Comm *comm, int *code, ...)
{
    char text[MPI_MAX_ERROR_STRING] = "", what[MPI_MAX_ERROR_STRING + 32];
    int len = 0;
    MPI_Error_string(*code, text, &len);
    snprintf(what, sizeof what, "MPI error (%s)", text);
    say(what, 0);
    MPI_Abort(*comm, 5);
}

/* Open the case's file: read-write, or for the other direction than the call's. */
static colio_file *open_for(const fn_t *f)
{
    int amode = MPI_MODE_RDWR;
    if (other_mode)
        amode = is_write(f) ? MPI_MODE_RDONLY : MPI_MODE_WRONLY;
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    CHECK(rc == COLIO_SUCCESS, "%s: cannot open the case's file: %s", current, colio_last_open_error());
    return fh;
}

/* A request to complete: an iread of this rank's bytes. */
static void make_request(call_t *c, colio_file *fh)
{
    int rc = colio_iread_at_all(fh, my_off(), rbuf, LEN, MPI_BYTE, &c->req);
    CHECK(rc == COLIO_SUCCESS, "%s: cannot start the request", current);
    c->reqs[0] = c->req_arg = c->req;
}

/*
 * A closed handle's and a completed request's old pointers, kept in copies
 * (as a careless program would), made just before the case that passes
 * them: colio recognises such a copy until its memory is reused.
 */
static void make_stale(void)
{
    colio_file *fh = NULL;
    colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    colio_request *r = NULL;
    colio_iread_at_all(fh, my_off(), rbuf, LEN, MPI_BYTE, &r);
    done_request = r;
    colio_wait(&r, MPI_STATUS_IGNORE);
    closed_handle = fh;
    colio_close(&fh);
}

static int uses_stale(const bad_t *b)
{
    return b->apply == a_fh_closed || b->apply == a_fh_inout_closed || b->apply == a_req_inout_stale ||
           b->apply == a_req_stale || b->apply == a_reqs_stale;
}

/*
 * What a good call of f returns here: success, but colio_request_get_mpi
 * without the progress thread (COLIO_ERR_UNSUPPORTED: nothing would
 * complete the MPI request).
 */
static int good_rc(const fn_t *f, colio_file *fh)
{
    if (f->invoke != i_get_mpi)
        return COLIO_SUCCESS;
    char v[32] = "";
    int flag = 0, level = 0;
    colio_get_hint(fh, "colio_progress", v, sizeof v, &flag);
    MPI_Query_thread(&level);
    return flag && strcmp(v, "thread") == 0 && level == MPI_THREAD_MULTIPLE ? COLIO_SUCCESS : COLIO_ERR_UNSUPPORTED;
}

/*
 * A collective call gives the bad value's code on every rank, with one
 * message; a local call gives it where the value was bad, elsewhere what a
 * good call gives.
 */
static void check_outcome(const fn_t *f, int want, int good, int here, outcome_t o)
{
    int collective = f->cls != LOCAL;
    int expect = collective || here ? want : good;
    CHECK(o.rc == expect, "%s: got %s (%d), expected %s; message: %s", current, colio_strerror(o.rc), o.rc,
          colio_strerror(expect), o.msg);
    if (expect != COLIO_SUCCESS)
        CHECK(o.msg[0] != '\0', "%s: empty message for %s", current, colio_strerror(o.rc));
    int64_t in[4] = {o.rc, -o.rc, (int64_t)hash_text(o.msg), -(int64_t)hash_text(o.msg)}, out[4];
    MPI_Allreduce(in, out, 4, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (collective) {
        CHECK(out[0] == -out[1], "%s: ranks returned different codes (mine %d)", current, o.rc);
        CHECK(out[2] == -out[3], "%s: ranks hold different messages (mine: %s)", current, o.msg);
    }
}

/*
 * The bytes after the case: unchanged, or with the call's writes where it
 * did its work. A write that failed for another rank's bad argument may
 * have moved a good rank's one piece already (early direct access moves it
 * before the agreement; docs/DESIGN.md): each good rank's bytes are then
 * all new or all old, the bad ranks' old, and every other byte unchanged.
 */
static void check_bytes(const fn_t *f, const unsigned char *before, int64_t before_len, int worked, int read_done,
                        int scope_last)
{
    static unsigned char want[FILE_BYTES], now[FILE_BYTES], wrote[FILE_BYTES];
    int64_t want_len = before_len, now_len = 0, wrote_len = before_len;
    memcpy(want, before, FILE_BYTES);
    memcpy(wrote, before, FILE_BYTES);
    if (is_write(f))
        apply_writes(wrote, &wrote_len);
    if (worked && is_write(f))
        memcpy(want, wrote, FILE_BYTES), want_len = wrote_len;
    snapshot(path, now, &now_len);
    int early = !worked && is_write(f) && scope_last && f->cls != OPEN;
    for (int r = 0; early && r < t_nprocs - 1; r++) { /* a good rank's piece that went before the agreement */
        MPI_Offset at = (MPI_Offset)r * SLOT + NOFFSET;
        if (at + LEN <= now_len && memcmp(now + at, wrote + at, LEN) == 0)
            memcpy(want + at, wrote + at, LEN), want_len = at + LEN > want_len ? at + LEN : want_len;
    }
    CHECK(now_len == want_len, "%s: the file is %lld bytes, expected %lld", current, (long long)now_len,
          (long long)want_len);
    int64_t bad_at = -1;
    for (int64_t i = 0; i < want_len && i < FILE_BYTES && bad_at < 0; i++)
        if (now[i] != want[i])
            bad_at = i;
    CHECK(bad_at < 0, "%s: byte %lld is %d, expected %d", current, (long long)bad_at, bad_at >= 0 ? now[bad_at] : 0,
          bad_at >= 0 ? want[bad_at] : 0);
    if (read_done)
        CHECK(memcmp(rbuf, before + my_off(), LEN) == 0, "%s: the read returned wrong bytes", current);
}

/* A plain file of len bytes, made anew. */
static void make_file(const char *p, const void *buf, size_t len)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, buf, len) == (ssize_t)len, "cannot make %s", p);
    if (fd >= 0)
        close(fd);
}

/* Another file, and a file that must not come to exist, for the open cases. */
static void prepare_open_files(void)
{
    if (t_rank == 0) {
        unsigned char b[FILE_BYTES];
        for (int i = 0; i < FILE_BYTES; i++)
            b[i] = (unsigned char)(pattern_old(i) ^ 0x5A);
        make_file(other, b, FILE_BYTES);
        test_unlink_local(fresh);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_open_files(void)
{
    unsigned char b[FILE_BYTES];
    int64_t len = 0;
    snapshot(other, b, &len);
    int same = len == FILE_BYTES;
    for (int i = 0; same && i < FILE_BYTES; i++)
        same = b[i] == (unsigned char)(pattern_old(i) ^ 0x5A);
    CHECK(same, "%s: the other file changed", current);
    struct stat sb;
    CHECK(stat(fresh, &sb) != 0, "%s: the open left behind %s, which was not there before", current, fresh);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 remakes the files next */
}

/* Bad values that leave a call without a handle to keep its message, and the calls on sets of requests:
   colio_last_error(NULL) has it. */
static int takes_handle(const fn_t *f, const bad_t *b)
{
    param_t p = b->param;
    int set = f->invoke == i_waitall || f->invoke == i_testall; /* calls on a set of requests: always there */
    return (p == P_FH && b->apply != a_fh_other_mode) || p == P_FH_INOUT || p == P_CFH || p == P_REQ_INOUT ||
           p == P_REQ || set;
}

/* The call at the bad value, where it applies; a nonblocking call's outcome comes with its completion. */
static outcome_t run_call(call_t *c, const bad_t *b, int here, colio_file *fh)
{
    if (here || b->everyone)
        b->apply(c);
    int uses_fp = c->fn->invoke == i_write_all || c->fn->invoke == i_read_all || c->fn->invoke == i_iwrite_all ||
                  c->fn->invoke == i_iread_all;
    if (uses_fp && fh)
        colio_seek(fh, my_off(), MPI_SEEK_SET);
    outcome_t o;
    o.rc = c->fn->invoke(c);
    if (c->fn->cls == NBCOLL && o.rc == COLIO_SUCCESS)
        o.rc = colio_wait(&c->req, MPI_STATUS_IGNORE);
    if (c->reqs_p == c->reqs && c->reqs[0] == NULL)
        c->req = NULL; /* waitall / testall completed it */
    if (c->mreq != MPI_REQUEST_NULL)
        c->req = NULL; /* MPI completes it now (colio_request_get_mpi) */
    int no_handle = c->fn->cls == OPEN || fh == NULL || (takes_handle(c->fn, b) && (here || c->fn->cls != LOCAL));
    snprintf(o.msg, sizeof o.msg, "%s",
             o.rc == COLIO_SUCCESS ? ""
             : c->fn->cls == OPEN  ? colio_last_open_error()
             : no_handle           ? colio_last_error(NULL)
                                   : colio_last_error(fh));
    return o;
}

/* Undo what the case left: a request in flight (its read checked), a handle, a type or info it made. */
static int clean_up(call_t *c, colio_file **fh)
{
    int read_done = 0;
    if (c->fn->needs_req && c->req != NULL) {
        int rc = colio_wait(&c->req, MPI_STATUS_IGNORE);
        CHECK(rc == COLIO_SUCCESS, "%s: the request failed at its completion: %s", current, colio_strerror(rc));
        read_done = rc == COLIO_SUCCESS;
    }
    if (c->mreq != MPI_REQUEST_NULL) {
        MPI_Status st;
        MPI_Wait(&c->mreq, &st);
        read_done = st.MPI_ERROR == MPI_SUCCESS;
    }
    if (c->open_fh)
        colio_close(&c->open_fh);
    if (c->info_used != MPI_INFO_NULL)
        MPI_Info_free(&c->info_used);
    if (c->info != MPI_INFO_NULL)
        MPI_Info_free(&c->info);
    if (c->made != MPI_DATATYPE_NULL)
        MPI_Type_free(&c->made);
    if (*fh)
        colio_close(fh);
    return read_done;
}

static int cases, failed_cases, first_case; /* --from K: start at case K (to go on past a case that hangs) */

/* Calls that need no open file of the case's. */
static int needs_file(const fn_t *f)
{
    return !(f->cls == OPEN || f->invoke == i_delete || f->invoke == i_strerror || f->invoke == i_error_class ||
             f->invoke == i_last_open_error);
}

static void run_case(const fn_t *f, int param, const bad_t *b, int scope_last)
{
    char name[256];
    snprintf(name, sizeof name, "%d %s, parameter %d: %s, on %s", cases, f->name, param + 1, b->what,
             scope_last ? "the last rank" : "every rank");
    current = name;
    if (cases < first_case) {
        cases++;
        return;
    }
    int before_failures = t_failures;
    alarm(60);
    test_prefill(path, FILE_BYTES);
    if (f->cls == OPEN)
        prepare_open_files();
    if (f->invoke == i_delete)
        make_file(delpath, "x", 1);
    if (uses_stale(b))
        make_stale();
    int here = !scope_last || t_rank == t_nprocs - 1;
    other_mode = b->apply == a_fh_other_mode;
    colio_file *fh = needs_file(f) ? open_for(f) : NULL;
    for (int i = 0; i < FILE_BYTES; i++)
        data[i] = pattern_new(t_rank, i, 3);
    memset(rbuf, 0, sizeof rbuf);
    call_t c;
    good_call(&c, f);
    c.fh = fh;
    c.fh_inout = &fh;
    int good = good_rc(f, fh);
    if (f->needs_req && fh)
        make_request(&c, fh);
    static unsigned char before[FILE_BYTES];
    int64_t before_len = 0;
    snapshot(path, before, &before_len);
    int want = b->want == WRONG_MODE ? (is_write(f) ? COLIO_ERR_READONLY : COLIO_ERR_ACCESS) : b->want;
    if (f->invoke == i_get_mpi && want == COLIO_SUCCESS)
        want = good;
    outcome_t o = run_call(&c, b, here, fh);
    if (f->cls == OPEN && o.rc != COLIO_SUCCESS && c.fh_out)
        CHECK(*c.fh_out == NULL, "%s: a failed open left a handle", current);
    if (f->invoke == i_close && o.rc == COLIO_SUCCESS)
        CHECK(fh == NULL, "%s: close left the handle", current);
    int read_done = clean_up(&c, &fh); /* first: a request another rank still waits for completes */
    check_outcome(f, want, good, here, o);
    /* where a value is harmless the call did its work; a request's iread completes in clean_up */
    int worked = o.rc == COLIO_SUCCESS && f->cls != LOCAL && f->dir != 0;
    MPI_Allreduce(MPI_IN_PLACE, &worked, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int read_checked = f->dir == 'r' && (f->needs_req ? read_done : worked);
    check_bytes(f, before, before_len, worked, read_checked, scope_last);
    if (f->cls == OPEN)
        check_open_files();
    if (f->invoke == i_delete)
        test_unlink_local(delpath);
    alarm(0);
    cases++;
    int mine = t_failures > before_failures, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    failed_cases += any;
    if (t_rank == 0 && (any || getenv("COLIO_TEST_VERBOSE")))
        printf("%-100s %-12s %s\n", name, colio_strerror(o.rc), any ? "FAIL" : "ok");
}

/* ---- the table covers the header ----------------------------------------------------------- */

static const fn_t *find_fn(const char *name)
{
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (strcmp(calls[i].name, name) == 0)
            return &calls[i];
    return NULL;
}

/* Every "COLIO_API type name(" of the header has a row. */
static void check_coverage(const char *header)
{
    FILE *f = fopen(header, "r");
    CHECK(f != NULL, "cannot read %s", header ? header : "(no header given)");
    if (f == NULL)
        return;
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char *api = strstr(line, "COLIO_API ");
        char *paren = api ? strchr(api, '(') : NULL;
        if (api == NULL || paren == NULL || strstr(line, "#define"))
            continue;
        char *end = paren;
        while (end > api && end[-1] == ' ')
            end--;
        char *start = end;
        while (start > api && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                               (start[-1] >= '0' && start[-1] <= '9')))
            start--;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
        found++;
        CHECK(find_fn(name) != NULL, "public function %s has no row in test_badinput's table", name);
    }
    fclose(f);
    CHECK(found == (int)(sizeof calls / sizeof *calls), "%s declares %d functions, the table has %zu", header, found,
          sizeof calls / sizeof *calls);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    signal(SIGALRM, on_alarm);
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    MPI_Errhandler fatal;
    MPI_Comm_create_errhandler(on_mpi_error, &fatal);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, fatal);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, fatal); /* MPI-4: errors of calls without an object */
    check_coverage(argc > 1 ? argv[1] : NULL);
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], "--from") == 0)
            first_case = atoi(argv[i + 1]);
    test_path(path, sizeof path, "badinput");
    snprintf(other, sizeof other, "%s.other", path);
    snprintf(fresh, sizeof fresh, "%s.fresh", path);
    snprintf(delpath, sizeof delpath, "%s.delete.%d", path, t_rank);
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        const fn_t *f = &calls[i];
        for (int p = 0; f->params[p] != P_NONE; p++)
            for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
                const bad_t *b = &bad[k];
                if (b->param != f->params[p] || (b->apply == a_fh_other_mode && f->dir == 0) ||
                    (b->last_only && (f->cls == LOCAL || t_nprocs == 1)))
                    continue; /* a direction only data calls have; ranks that differ only where they must agree */
                if (!b->last_only)
                    run_case(f, p, b, 0);
                if (t_nprocs > 1 && !(f->cls != LOCAL && b->all_only))
                    run_case(f, p, b, 1);
            }
    }
    current = "done";
    if (t_rank == 0)
        printf("test_badinput: %d cases, %d failed\n", cases, failed_cases);
    test_unlink(path);
    if (t_rank == 0) {
        test_unlink_local(other);
        test_unlink_local(fresh);
    }
    return test_finish("test_badinput");
}
