/* Where a public call's own failure is told (engine/file.h). */
#include "engine/file.h"

#include <stdarg.h>
#include <stdio.h>

int colio_fail(colio_file *fh, int code, const char *fmt, ...)
{
    char *msg = colio_file_valid(fh) ? fh->last_err.msg : colio_err_thread_msg();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, COLIO_ERRMSG_LEN, fmt, ap);
    va_end(ap);
    if (colio_file_valid(fh))
        fh->last_err.code = code;
    return code;
}
