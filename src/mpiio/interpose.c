/*
 * libcolio_mpiio: colio's engine under unmodified MPI-IO programs, through
 * the MPI profiling interface. Each wrapper is defined as MPI_File_x and
 * exported as PMPI_File_x too (Fortran bindings call either name), so
 * preloading this library or linking it before the MPI library catches C
 * and Fortran programs alike; the real functions come from real.c.
 *
 * The real MPI file handle stays open and is what the program holds:
 * every call not intercepted keeps working on it. The individual file
 * pointer lives there only: an intercepted call at the file pointer reads
 * it (MPI_File_get_position), runs colio at that explicit offset, and moves
 * it (MPI_File_seek). Views are set on both handles. A file colio cannot
 * take (a datarep other than native, sequential mode, a path colio cannot
 * open) or a file in atomic mode goes to the MPI library unchanged; with
 * COLIO_VERBOSE=1, rank 0 says so once per file. COLIO_DISABLE=1 turns
 * interception off.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "colio.h"
#include "mpiio/real.h"

/* ---- files colio manages -------------------------------------------------------------- */

typedef struct managed {
    MPI_File fh;       /* the program's (real) handle */
    colio_file *cf;    /* colio's handle on the same file */
    int etype_size;    /* of the current view: file pointer units */
    int atomic;        /* MPI_File_set_atomicity(1): data calls go to the MPI library */
    MPI_Comm speaker;  /* rank 0 of this communicator speaks for the file (COLIO_VERBOSE) */
    struct managed *next;
} managed_t;

static managed_t *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int inside; /* a wrapper is running: nested MPI-IO calls (from MPI itself) pass through */

static managed_t *find(MPI_File fh)
{
    pthread_mutex_lock(&files_lock);
    managed_t *m = files;
    while (m && m->fh != fh)
        m = m->next;
    pthread_mutex_unlock(&files_lock);
    return m;
}

static void add(managed_t *m)
{
    pthread_mutex_lock(&files_lock);
    m->next = files;
    files = m;
    pthread_mutex_unlock(&files_lock);
}

static void drop(managed_t *m)
{
    pthread_mutex_lock(&files_lock);
    managed_t **p = &files;
    while (*p && *p != m)
        p = &(*p)->next;
    if (*p)
        *p = m->next;
    pthread_mutex_unlock(&files_lock);
    free(m);
}

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* With COLIO_VERBOSE set, rank 0 of comm says what happens to a file (MPI_COMM_NULL: stay silent). */
static void verbose(MPI_Comm comm, const char *fmt, const char *a, const char *b)
{
    int rank = 0;
    if (!env_on("COLIO_VERBOSE") || comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        fprintf(stderr, "libcolio_mpiio: ");
        fprintf(stderr, fmt, a, b);
        fputc('\n', stderr);
    }
}

/* The data calls colio runs for this handle, or NULL: the MPI library's. */
static managed_t *taken(MPI_File fh)
{
    if (inside)
        return NULL;
    managed_t *m = find(fh);
    return m && !m->atomic ? m : NULL;
}

/* An MPI error for a colio error, through the file's error handler as MPI does. */
static int mpi_result(MPI_File fh, int rc)
{
    if (rc == COLIO_SUCCESS)
        return MPI_SUCCESS;
    int code = colio_mpi_error_class(rc);
    MPI_File_call_errhandler(fh, code);
    return code;
}

/* ---- open and close ------------------------------------------------------------------- */

/* ROMIO's "fs:path" prefixes colio can open as plain paths; NULL for anything else. */
static const char *plain_path(const char *name)
{
    static const char *const prefixes[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "xfs:", "panfs:"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncasecmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return name + strlen(prefixes[i]);
    const char *colon = strchr(name, ':');
    return colon && colon - name > 1 && !strchr(name, '/') ? NULL : name;
}

/* Collective: open the file with colio too, when every rank can; else leave it to MPI. */
static void attach(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File fh)
{
    const char *path = plain_path(filename);
    int ok = path != NULL && !(amode & MPI_MODE_SEQUENTIAL), all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        verbose(comm, "%s: left to MPI-IO (%s)", filename, "sequential mode or a file system prefix colio lacks");
        return;
    }
    /* the real open created the file and handled EXCL; DELETE_ON_CLOSE is the real close's */
    int cmode = amode & ~(MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_CREATE);
    colio_file *cf = NULL;
    if (colio_open(comm, path, cmode, info, &cf) != COLIO_SUCCESS) {
        verbose(comm, "%s: left to MPI-IO (colio_open: %s)", filename, colio_last_open_error());
        return;
    }
    managed_t *m = calloc(1, sizeof *m);
    if (m == NULL) { /* collective from here on would diverge: give it up everywhere */
        colio_close(&cf);
        return;
    }
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    *m = (managed_t){.fh = fh, .cf = cf, .etype_size = 1, .speaker = rank == 0 ? MPI_COMM_SELF : MPI_COMM_NULL};
    add(m);
    verbose(comm, "%s: through colio%s", filename, "");
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    const colio_real_t *r = colio_real();
    if (inside || env_on("COLIO_DISABLE"))
        return r->File_open(comm, filename, amode, info, fh);
    inside = 1;
    int rc = r->File_open(comm, filename, amode, info, fh);
    if (rc == MPI_SUCCESS)
        attach(comm, filename, amode, info, *fh);
    inside = 0;
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    const colio_real_t *r = colio_real();
    managed_t *m = fh && !inside ? find(*fh) : NULL;
    if (m) {
        inside = 1;
        colio_close(&m->cf); /* colio's writes reach the file before MPI closes (and maybe deletes) it */
        drop(m);
        inside = 0;
    }
    return r->File_close(fh);
}

/* ---- view, hints, atomicity, sync ------------------------------------------------------ */

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                      MPI_Info info)
{
    const colio_real_t *r = colio_real();
    int rc = r->File_set_view(fh, disp, etype, filetype, datarep, info);
    managed_t *m = inside ? NULL : find(fh);
    if (rc != MPI_SUCCESS || m == NULL)
        return rc;
    inside = 1;
    if (datarep && strcasecmp(datarep, "native") != 0) { /* colio moves native bytes only */
        verbose(m->speaker, "data representation %s: this file goes to MPI-IO from now on%s", datarep, "");
        colio_close(&m->cf);
        drop(m);
    } else {
        MPI_Type_size(etype, &m->etype_size);
        rc = mpi_result(fh, colio_set_view(m->cf, disp, etype, filetype, info));
    }
    inside = 0;
    return rc;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
    const colio_real_t *r = colio_real();
    int rc = r->File_set_info(fh, info);
    managed_t *m = inside ? NULL : find(fh);
    if (rc == MPI_SUCCESS && m) {
        inside = 1;
        rc = mpi_result(fh, colio_set_info(m->cf, info));
        inside = 0;
    }
    return rc;
}

int MPI_File_set_atomicity(MPI_File fh, int flag)
{
    const colio_real_t *r = colio_real();
    int rc = r->File_set_atomicity(fh, flag);
    managed_t *m = inside ? NULL : find(fh);
    if (rc == MPI_SUCCESS && m)
        m->atomic = flag; /* colio takes no locks: atomic mode is MPI-IO's */
    return rc;
}

int MPI_File_sync(MPI_File fh)
{
    const colio_real_t *r = colio_real();
    managed_t *m = inside ? NULL : find(fh);
    if (m) {
        inside = 1;
        int rc = colio_sync(m->cf);
        inside = 0;
        if (rc != COLIO_SUCCESS)
            return mpi_result(fh, rc);
    }
    return r->File_sync(fh);
}

/* ---- collective data access ----------------------------------------------------------- */

typedef enum { WRITE, READ } kind_t;

static int at_offset(managed_t *m, kind_t k, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type,
                     MPI_Status *status)
{
    inside = 1;
    int rc = k == WRITE ? colio_write_at_all(m->cf, off, buf, count, type, status)
                        : colio_read_at_all(m->cf, off, buf, count, type, status);
    inside = 0;
    return mpi_result(m->fh, rc);
}

/*
 * At the real handle's file pointer, which then moves past what was
 * accessed: the request for writes, what was read for reads (as colio's
 * own read_all does at the end of file).
 */
static int at_pointer(managed_t *m, kind_t k, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    const colio_real_t *r = colio_real();
    MPI_Offset pos = 0;
    int rc = r->File_get_position(m->fh, &pos);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Status st;
    rc = at_offset(m, k, pos, buf, count, type, &st);
    MPI_Count bytes = 0;
    if (k == READ)
        MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    else {
        int size = 0;
        MPI_Type_size(type, &size);
        bytes = count * size;
    }
    int srk = r->File_seek(m->fh, pos + bytes / m->etype_size, MPI_SEEK_SET);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return rc != MPI_SUCCESS ? rc : srk;
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    managed_t *m = taken(fh);
    return m ? at_pointer(m, WRITE, (void *)buf, count, datatype, status)
             : colio_real()->File_write_all(fh, buf, count, datatype, status);
}

int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    managed_t *m = taken(fh);
    return m ? at_pointer(m, READ, buf, count, datatype, status)
             : colio_real()->File_read_all(fh, buf, count, datatype, status);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    managed_t *m = taken(fh);
    return m ? at_offset(m, WRITE, offset, (void *)buf, count, datatype, status)
             : colio_real()->File_write_at_all(fh, offset, buf, count, datatype, status);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    managed_t *m = taken(fh);
    return m ? at_offset(m, READ, offset, buf, count, datatype, status)
             : colio_real()->File_read_at_all(fh, offset, buf, count, datatype, status);
}

/* ---- the PMPI names: the same wrappers (Fortran bindings call these) ------------------ */

#define COLIO_PMPI_ALIAS_(name, params) int PMPI_##name params __attribute__((alias("MPI_" #name)));
COLIO_WRAPPED_FUNCS(COLIO_PMPI_ALIAS_)
#undef COLIO_PMPI_ALIAS_
