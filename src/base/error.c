/* Error codes, messages and collective error agreement. */
#include "base/error.h"
#include "base/agree.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char thread_msg[COLIO_ERRMSG_LEN];

char *colio_err_thread_msg(void) { return thread_msg; }

const char *colio_strerror(int err)
{
    switch (err) {
#define COLIO_ERROR_CASE_(name, value, text) \
    case value:                              \
        return text;
        COLIO_ERROR_MAP(COLIO_ERROR_CASE_)
#undef COLIO_ERROR_CASE_
    default:
        return "unknown colio error code";
    }
}

int colio_mpi_error_class(int err)
{
    switch (err) {
    case COLIO_SUCCESS:
        return MPI_SUCCESS;
    case COLIO_ERR_ARG:
        return MPI_ERR_ARG;
    case COLIO_ERR_HINT:
        return MPI_ERR_INFO_VALUE;
    case COLIO_ERR_TYPE:
        return MPI_ERR_TYPE;
    case COLIO_ERR_ACCESS:
        return MPI_ERR_ACCESS;
    case COLIO_ERR_NOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case COLIO_ERR_EXIST:
        return MPI_ERR_FILE_EXISTS;
    case COLIO_ERR_NOSPC:
        return MPI_ERR_NO_SPACE;
    case COLIO_ERR_NOMEM:
        return MPI_ERR_NO_MEM;
    case COLIO_ERR_READONLY:
        return MPI_ERR_READ_ONLY;
    case COLIO_ERR_AMODE:
        return MPI_ERR_AMODE;
    case COLIO_ERR_NOT_SAME:
        return MPI_ERR_NOT_SAME;
    case COLIO_ERR_BAD_FILE:
        return MPI_ERR_BAD_FILE;
    case COLIO_ERR_QUOTA:
        return MPI_ERR_QUOTA;
    case COLIO_ERR_UNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case COLIO_ERR_INTERNAL:
        return MPI_ERR_INTERN;
    default: /* COLIO_ERR_IO, COLIO_ERR_MPI */
        return MPI_ERR_IO;
    }
}

int colio_err_set(colio_err_t *e, int code, const char *fmt, ...)
{
    if (e->code != 0 || code == 0)
        return code;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

int colio_err_from_errno(int errnum)
{
    switch (errnum) {
    case 0:
        return COLIO_SUCCESS;
    case ENOENT:
        return COLIO_ERR_NOENT;
    case EEXIST:
        return COLIO_ERR_EXIST;
    case EACCES:
    case EPERM:
        return COLIO_ERR_ACCESS;
    case EROFS:
        return COLIO_ERR_READONLY;
    case ENOSPC:
    case EFBIG:
        return COLIO_ERR_NOSPC;
    case EDQUOT:
        return COLIO_ERR_QUOTA;
    case ENOMEM:
        return COLIO_ERR_NOMEM;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
        return COLIO_ERR_BAD_FILE;
    case EINVAL:
        return COLIO_ERR_ARG;
    case ENOTSUP:
        return COLIO_ERR_UNSUPPORTED;
    default:
        return COLIO_ERR_IO;
    }
}

int colio_err_from_mpi(colio_err_t *e, int mpi_rc, const char *what)
{
    if (mpi_rc == MPI_SUCCESS)
        return COLIO_SUCCESS;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", mpi_rc);
    return colio_err_set(e, COLIO_ERR_MPI, "%s: %s", what, text);
}

/* Ranks fit in 32 bits; the code occupies the high bits, so MIN orders by code first. */
int64_t colio_err_key(int code, int rank)
{
    return code == 0 ? 0 : (int64_t)code * ((int64_t)1 << 32) + (int64_t)rank;
}

int colio_err_key_code(int64_t key)
{
    if (key == 0)
        return 0;
    int64_t rank = key & 0xffffffffLL;
    return (int)((key - rank) / ((int64_t)1 << 32));
}

int colio_err_key_rank(int64_t key) { return (int)(key & 0xffffffffLL); }

int colio_err_agree(MPI_Comm comm, colio_err_t *e) { return colio_err_agree_same(comm, e, 0, NULL, NULL); }

/* Everyone reports the first failing rank's code and words (min_key != 0). */
int colio_err_adopt_key(MPI_Comm comm, colio_err_t *e, int64_t min_key)
{
    int rc = MPI_Bcast(e->msg, COLIO_ERRMSG_LEN, MPI_CHAR, colio_err_key_rank(min_key), comm);
    if (rc != MPI_SUCCESS)
        e->msg[0] = '\0';
    colio_err_adopt(e, min_key);
    return e->code;
}

int colio_err_agree_words(MPI_Comm comm, colio_err_t *e, int64_t *root, int nroot, const int64_t *range, int nrange,
                          int64_t *lo, int64_t *hi)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int64_t in[1 + COLIO_AGREE_ROOT_MAX + 2 * COLIO_AGREE_RANGE_MAX], out[1 + COLIO_AGREE_ROOT_MAX + 2 * COLIO_AGREE_RANGE_MAX];
    nroot = nroot < COLIO_AGREE_ROOT_MAX ? nroot : COLIO_AGREE_ROOT_MAX;
    nrange = nrange < COLIO_AGREE_RANGE_MAX ? nrange : COLIO_AGREE_RANGE_MAX;
    int64_t *in_range = in + 1 + nroot, *out_range = out + 1 + nroot;
    in[0] = colio_err_key(e->code, rank);
    for (int i = 0; i < nroot; i++)
        in[1 + i] = rank == 0 ? root[i] : INT64_MAX; /* MIN keeps rank 0's */
    for (int i = 0; i < nrange; i++) /* MIN of -w is -MAX of w (words are never INT64_MIN) */
        in_range[2 * i] = range[i], in_range[2 * i + 1] = -range[i];
    int rc = colio_allreduce_yielding(in, out, 1 + nroot + 2 * nrange, MPI_INT64_T, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) {
        colio_err_clear(e);
        return colio_err_from_mpi(e, rc, "error agreement (MPI_Allreduce)");
    }
    for (int i = 0; i < nroot; i++)
        root[i] = out[1 + i];
    for (int i = 0; i < nrange; i++)
        lo[i] = out_range[2 * i], hi[i] = -out_range[2 * i + 1];
    return out[0] == 0 ? COLIO_SUCCESS : colio_err_adopt_key(comm, e, out[0]);
}

int colio_err_agree_root(MPI_Comm comm, colio_err_t *e, int64_t *words, int n)
{
    return colio_err_agree_words(comm, e, words, n, NULL, 0, NULL, NULL);
}

int colio_err_agree_same(MPI_Comm comm, colio_err_t *e, int64_t value, const char *what, int *any)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int64_t in[5] = {colio_err_key(e->code, rank), value, -value, any ? -(int64_t)(*any & 1) : 0,
                     any ? -(int64_t)((*any >> 1) & 1) : 0},
            out[5];
    int rc = colio_allreduce_yielding(in, out, 5, MPI_INT64_T, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) {
        colio_err_clear(e);
        return colio_err_from_mpi(e, rc, "error agreement (MPI_Allreduce)");
    }
    if (any)
        *any = (out[3] < 0) | (out[4] < 0) << 1;
    int64_t min_key = out[0];
    if (min_key == 0 && out[1] != -out[2]) { /* known to every rank alike: no message to fetch */
        colio_err_clear(e);
        return colio_err_set(e, COLIO_ERR_NOT_SAME, "%s differs across ranks", what ? what : "a value");
    }
    return min_key == 0 ? COLIO_SUCCESS : colio_err_adopt_key(comm, e, min_key);
}

void colio_err_adopt(colio_err_t *e, int64_t min_key)
{
    char detail[COLIO_ERRMSG_LEN];
    memcpy(detail, e->msg, sizeof detail);
    detail[sizeof detail - 1] = '\0';
    e->code = colio_err_key_code(min_key);
    snprintf(e->msg, sizeof e->msg, "rank %d: %.490s", colio_err_key_rank(min_key),
             detail[0] ? detail : colio_strerror(e->code));
}
