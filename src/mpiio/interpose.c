/*
 * libcolio_mpiio: colio's engine under unmodified MPI-IO programs, through
 * the MPI profiling interface. Each wrapper is defined as MPI_File_x and
 * exported as PMPI_File_x too (Fortran bindings call either name), so
 * preloading this library or linking it before the MPI library catches C
 * and Fortran programs alike; the real functions come from real.c.
 *
 * The real MPI file handle stays open and is what the program holds:
 * every call not intercepted keeps working on it. colio keeps the
 * individual file pointer itself (the MPI library's answer can be wrong:
 * MPICH 4.0.2 reports -1 after a view whose filetype has a lower bound
 * above 0): MPI_File_seek and MPI_File_get_position are answered from
 * colio's pointer, the MPI library's independent calls at the pointer move
 * it by what they asked for, and colio's calls at the pointer move the MPI
 * library's too (MPI_File_seek), so its own independent calls start right.
 * Views are set on both handles. colio's writes to a file it takes hold
 * byte-range locks (colio_lock_writes), so the MPI library's data sieving
 * on its own handle stays safe beside them. A file colio cannot
 * take (a datarep other than native, sequential mode, a path colio cannot
 * open) or a file in atomic mode goes to the MPI library unchanged; a
 * colio subfiled file cannot be opened (MPI_ERR_UNSUPPORTED_OPERATION); with
 * COLIO_VERBOSE=1, rank 0 says so once per file. COLIO_DISABLE=1 turns
 * interception off.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "colio.h"
#include "base/grequest.h"
#include "mpiio/pnetcdf.h"
#include "mpiio/real.h"
#include "subfile/layout.h"

/* Present in a process whose MPI-IO calls go through colio: colio-bench looks it up (dlsym) to label its runs. */
__attribute__((visibility("default"))) const char colio_mpiio_interposer[] = "libcolio_mpiio";

/* ---- files colio manages -------------------------------------------------------------- */

typedef struct managed {
    MPI_File fh;       /* the program's (real) handle */
    colio_file *cf;    /* colio's handle on the same file */
    int etype_size;    /* of the current view: file pointer units */
    int atomic;        /* MPI_File_set_atomicity(1): data calls go to the MPI library */
    MPI_Comm speaker;  /* rank 0 of this communicator speaks for the file (COLIO_VERBOSE) */
    colio_request *split; /* the split collective in progress (begin ... end) */
    int said_fallback;    /* COLIO_VERBOSE told that a call went to MPI-IO */
    struct managed *next;
} managed_t;

static managed_t *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
/* A wrapper is running: nested MPI-IO calls (from MPI itself) pass through. Initial-exec: a plain %fs load, not
   a __tls_get_addr call per data call; the library is linked or preloaded, so it is there when the program starts. */
static __thread int inside __attribute__((tls_model("initial-exec")));

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

/* One line to stderr in one write(2), so it never interleaves with the program's own lines. */
static void say_line(const char *line)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "libcolio_mpiio: %s\n", line);
    if (n >= (int)sizeof buf)
        n = (int)sizeof buf - 1, buf[n - 1] = '\n';
    fwrite(buf, 1, (size_t)n, stderr);
    fflush(stderr);
}

/* With COLIO_VERBOSE set, rank 0 of comm says what happens to a file (MPI_COMM_NULL: stay silent). */
static void verbose(MPI_Comm comm, const char *fmt, const char *a, const char *b)
{
    int rank = 0;
    if (!env_on("COLIO_VERBOSE") || comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char line[900];
        snprintf(line, sizeof line, fmt, a, b);
        say_line(line);
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

/*
 * colio's hints for a file the interposer takes: the program's, plus byte-range
 * locks on colio's writes (the MPI library's own handle may sieve beside them).
 */
static int colio_info(MPI_Info info, MPI_Info *mine)
{
    if (info == MPI_INFO_NULL ? MPI_Info_create(mine) : MPI_Info_dup(info, mine)) {
        *mine = MPI_INFO_NULL; /* no hints of ours: the file is not taken (never without the locks) */
        return -1;
    }
    MPI_Info_set(*mine, "colio_lock_writes", "automatic");
    return 0;
}

/* Rank 0 of comm says why a subfiled file is refused. */
static void say_subfiled(MPI_Comm comm, const char *filename)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char line[900];
        snprintf(line, sizeof line, "%s is a colio subfiled file; MPI-IO programs cannot open it through the "
                 "interposer (make one ordinary file with: colio-subfile join %s OUT)", filename, filename);
        say_line(line);
    }
}

/* Whether colio found a subfiled file (its metadata at the path): local. */
static int colio_subfiled(colio_file *cf)
{
    char value[32] = "none";
    int found = 0;
    colio_get_hint(cf, "colio_subfiles", value, sizeof value, &found);
    return found && strcmp(value, "none") != 0;
}

/*
 * Collective: open the file with colio too; 1 when colio took it, 0 when it
 * is left to MPI, -1 when it is a colio subfiled file (refused: the MPI
 * library's own handle, which serves the calls colio does not take, would
 * read and write the metadata as data), -2 when the ranks named different
 * files (refused: MPI cannot always tell, colio can, and each rank's writes
 * would go to its own file). No communication of its own: a rank
 * whose file name colio cannot open as a path still takes part in
 * colio_open with no path, whose agreed error leaves the file to MPI on
 * every rank. (Files the MPI library creates are never subfiled, whatever
 * colio_subfiles says: colio opens them after they exist.)
 */
static int attach(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File fh)
{
    if (amode & MPI_MODE_SEQUENTIAL) { /* the same amode on every rank (MPI) */
        verbose(comm, "%s: left to MPI-IO (%s)", filename, "sequential mode");
        return 0;
    }
    /* the real open created the file and handled EXCL; DELETE_ON_CLOSE is the real close's */
    int cmode = amode & ~(MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_CREATE);
    colio_file *cf = NULL;
    MPI_Info hints = MPI_INFO_NULL;
    int hinted = colio_info(info, &hints) == 0;
    managed_t *m = hinted ? calloc(1, sizeof *m) : NULL; /* before the open: a rank without one gives no path, and
                                                            colio_open's agreed error leaves the file to MPI everywhere */
    int rc = colio_open(comm, m ? plain_path(filename) : NULL, cmode, hints, &cf);
    if (hints != MPI_INFO_NULL)
        MPI_Info_free(&hints);
    if (rc == COLIO_ERR_NOT_SAME) { /* the ranks opened different files: writes would land in both */
        free(m);
        verbose(comm, "%s: refused (colio_open: %s)", filename, colio_last_open_error());
        return -2;
    }
    if (rc != COLIO_SUCCESS) {
        free(m);
        verbose(comm, "%s: left to MPI-IO (colio_open: %s)", filename, colio_last_open_error());
        return 0;
    }
    if (colio_subfiled(cf)) { /* agreed: every rank read the same metadata */
        free(m);
        say_subfiled(comm, filename);
        colio_close(&cf);
        return -1;
    }
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    *m = (managed_t){.fh = fh, .cf = cf, .etype_size = 1, .speaker = rank == 0 ? MPI_COMM_SELF : MPI_COMM_NULL};
    add(m);
    verbose(comm, "%s: through colio%s", filename, "");
    return 1;
}

/*
 * A failed open's error goes through the file error handler of
 * MPI_FILE_NULL. MPICH takes MPI_File_call_errhandler(MPI_FILE_NULL);
 * Open MPI refuses it (MPI_ERR_ARG, fatal), so there the handler is raised
 * on a read-only handle of the same file, which takes MPI_FILE_NULL's
 * handler when opened, and that handle is closed again.
 */
static void raise_open_error(MPI_Comm comm, const char *filename, int code)
{
#ifdef OPEN_MPI
    MPI_File tmp;
    if (colio_real()->File_open(comm, filename, MPI_MODE_RDONLY, MPI_INFO_NULL, &tmp) == MPI_SUCCESS) {
        MPI_File_call_errhandler(tmp, code);
        colio_real()->File_close(&tmp);
    }
#else
    (void)comm, (void)filename;
    MPI_File_call_errhandler(MPI_FILE_NULL, code);
#endif
}

/* Whether path is a colio subfiled file: its first bytes are subfiling metadata. */
static int path_is_subfiled(const char *path)
{
    char head[64];
    FILE *f = path ? fopen(path, "rb") : NULL;
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return colio_subfile_meta_is(head, n);
}

/*
 * Collective, for opens with MPI_MODE_DELETE_ON_CLOSE only: a subfiled file
 * refused after the MPI library opened it would be deleted by its close, so
 * rank 0 looks first (one broadcast, in this mode alone).
 */
static int refuse_subfiled_first(MPI_Comm comm, const char *filename)
{
    int rank = 0, yes = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        yes = path_is_subfiled(plain_path(filename));
    MPI_Bcast(&yes, 1, MPI_INT, 0, comm);
    if (yes) {
        say_subfiled(comm, filename);
        raise_open_error(comm, filename, MPI_ERR_UNSUPPORTED_OPERATION);
    }
    return yes;
}

/*
 * Close the MPI library's handle of a refused open. MPICH 4.0.2 releases a
 * file's error handler at close without having taken it at open, so a
 * program that then frees its handler fails an assertion (plain MPICH does
 * the same after any open and close): one reference is taken first, which
 * at worst keeps a handler object alive elsewhere.
 */
static void forget_file(MPI_File *fh)
{
#ifdef MPICH
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_File_get_errhandler(*fh, &eh);
#endif
    colio_real()->File_close(fh);
}

/* PnetCDF's driver (pnetcdf.c): said once per process, by rank 0 of the first open's communicator. */
static void say_pnetcdf_note(MPI_Comm comm)
{
    static int said;
    const char *note = colio_pnetcdf_note();
    if (note && !said) {
        said = 1;
        verbose(comm, "%s%s", note, "");
    }
}

/* Every MPI_Info_set passes; one of PnetCDF's nc_driver tells colio the program chose a driver itself. */
int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    int rc = colio_real()->Info_set(info, key, value);
    if (rc == MPI_SUCCESS && !inside)
        colio_pnetcdf_info_set(key, value);
    return rc;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    const colio_real_t *r = colio_real();
    if (inside || env_on("COLIO_DISABLE"))
        return r->File_open(comm, filename, amode, info, fh);
    if ((amode & MPI_MODE_DELETE_ON_CLOSE) && refuse_subfiled_first(comm, filename)) {
        *fh = MPI_FILE_NULL;
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    say_pnetcdf_note(comm);
    inside = 1;
    const char *path = filename ? plain_path(filename) : NULL;
    int is_new = (amode & MPI_MODE_CREATE) && path && access(path, F_OK) != 0;
    int rc = r->File_open(comm, filename, amode, info, fh);
    int taken = rc == MPI_SUCCESS ? attach(comm, filename, amode, info, *fh) : 0;
    if (taken < 0) {
        int code = taken == -1 ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_NOT_SAME;
        forget_file(fh);
        raise_open_error(comm, filename, code);
        if (taken == -2 && is_new) /* the refused open leaves no file that was not there before */
            unlink(path);
        *fh = MPI_FILE_NULL;
        rc = code;
    }
    inside = 0;
    return rc;
}

/* MPI_File_delete of a subfiled file removes its subfiles too (colio_delete); any other file is MPI's. */
int MPI_File_delete(const char *filename, MPI_Info info)
{
    const colio_real_t *r = colio_real();
    const char *path = filename ? plain_path(filename) : NULL;
    if (inside || env_on("COLIO_DISABLE") || !path_is_subfiled(path))
        return r->File_delete(filename, info);
    int rc = colio_delete(path, info);
    return rc == COLIO_SUCCESS ? MPI_SUCCESS : colio_mpi_error_class(rc);
}

int MPI_File_close(MPI_File *fh)
{
    const colio_real_t *r = colio_real();
    managed_t *m = fh && !inside ? find(*fh) : NULL;
    int crc = COLIO_SUCCESS;
    if (m) {
        inside = 1;
        crc = colio_close(&m->cf); /* colio's writes reach the file before MPI closes (and maybe deletes) it */
        drop(m);
        inside = 0;
    }
    /* colio's failure (say, ENOSPC flushing) is raised on the handle while it still exists */
    int code = crc == COLIO_SUCCESS ? MPI_SUCCESS : mpi_result(*fh, crc);
    int rc = r->File_close(fh);
    return code != MPI_SUCCESS ? code : rc;
}

/* ---- view, hints, atomicity, sync ------------------------------------------------------ */

/*
 * The file goes to the MPI library from now on: after it accepted a call
 * colio cannot follow (another data representation, a view or hint colio
 * refused), the two handles would disagree otherwise. Collective, like the
 * calls that get here (colio's errors are agreed on every rank).
 */
static void release(managed_t *m, const char *what, const char *why)
{
    verbose(m->speaker, "%s: this file goes to MPI-IO from now on (%s)", what, why);
    colio_close(&m->cf);
    drop(m);
}

/* release() after colio refused what the MPI library took: colio's reason is said. */
static void release_refused(managed_t *m, const char *what)
{
    char why[256];
    snprintf(why, sizeof why, "colio: %s", colio_last_error(m->cf));
    release(m, what, why);
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                      MPI_Info info)
{
    const colio_real_t *r = colio_real();
    int rc = r->File_set_view(fh, disp, etype, filetype, datarep, info);
    managed_t *m = inside ? NULL : find(fh);
    if (rc != MPI_SUCCESS || m == NULL)
        return rc;
    inside = 1;
    if (datarep && strcasecmp(datarep, "native") != 0) /* colio moves native bytes only */
        release(m, "set_view", "a data representation other than native");
    else if (colio_set_view(m->cf, disp, etype, filetype, info) != COLIO_SUCCESS)
        release_refused(m, "set_view");
    else
        MPI_Type_size(etype, &m->etype_size);
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
        if (colio_set_info(m->cf, info) != COLIO_SUCCESS)
            release_refused(m, "set_info");
        inside = 0;
    }
    return rc;
}

/* colio's operations in flight on m end (collective, as the calls that ask for it are). */
static void complete_in_flight(managed_t *m)
{
    inside = 1;
    colio_complete(m->cf);
    inside = 0;
}

int MPI_File_set_atomicity(MPI_File fh, int flag)
{
    const colio_real_t *r = colio_real();
    managed_t *m = inside ? NULL : find(fh);
    if (m && flag && !m->atomic) /* colio's operations end before the MPI library's writes begin */
        complete_in_flight(m);
    int rc = r->File_set_atomicity(fh, flag);
    if (rc == MPI_SUCCESS && m)
        m->atomic = flag; /* colio takes no locks: atomic mode is MPI-IO's */
    return rc;
}

/*
 * Size changes are the MPI library's; colio's operations in flight end
 * first: a truncation must not race a pending write, and ROMIO's
 * preallocate reads and rewrites the bytes already in the file, which
 * would put back what a colio write in flight is changing.
 */
static void complete_before_resize(MPI_File fh)
{
    managed_t *m = inside ? NULL : find(fh);
    if (m)
        complete_in_flight(m);
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    complete_before_resize(fh);
    return colio_real()->File_set_size(fh, size);
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    complete_before_resize(fh);
    return colio_real()->File_preallocate(fh, size);
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

#define REAL(name) colio_real()->File_##name

typedef enum { WRITE, READ } kind_t;
#define AT_POINTER ((MPI_Offset)INT64_MIN) /* offset argument of a call at the individual file pointer */

static MPI_Count request_bytes(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    MPI_Type_size_x(type, &size);
    return count * size;
}

/* The explicit offset of a call: given, or colio's individual file pointer. */
static int where(managed_t *m, MPI_Offset off, MPI_Offset *at)
{
    *at = off;
    return off == AT_POINTER ? mpi_result(m->fh, colio_get_position(m->cf, at)) : MPI_SUCCESS;
}

/*
 * After a call at the file pointer that started at etype `at`: both
 * pointers past the request (also for reads that met the end of file, as
 * ROMIO and OMPIO do); the MPI library's is moved too, for its own
 * independent calls.
 */
static int move_pointers(managed_t *m, MPI_Offset at, MPI_Count count, MPI_Datatype type)
{
    MPI_Offset to = at + request_bytes(count, type) / m->etype_size;
    int rc = mpi_result(m->fh, colio_seek(m->cf, to, MPI_SEEK_SET));
    return rc != MPI_SUCCESS ? rc : colio_real()->File_seek(m->fh, to, MPI_SEEK_SET);
}

/*
 * A call the MPI library made at the individual file pointer (independent,
 * or collective on a file in atomic mode) moved its pointer: colio's moves
 * by the request, as MPI defines the move (new offset = old offset + the
 * request's etypes, even for a read that meets the end of file), and the
 * MPI library's is set to the same place. Libraries differ there (MPICH
 * 4.0.2 moves a blocking read by the bytes read, and its own pointer goes
 * wrong after a filetype with a lower bound above 0), and its next call must
 * start where MPI_File_get_position says.
 */
static int follow(MPI_File fh, int rc, MPI_Count count, MPI_Datatype type)
{
    managed_t *m = inside || rc != MPI_SUCCESS ? NULL : find(fh);
    MPI_Offset at = 0;
    if (m == NULL || colio_seek(m->cf, request_bytes(count, type) / m->etype_size, MPI_SEEK_CUR) != COLIO_SUCCESS ||
        colio_get_position(m->cf, &at) != COLIO_SUCCESS)
        return rc;
    return colio_real()->File_seek(fh, at, MPI_SEEK_SET);
}

/*
 * A call colio cannot make (COLIO_ERR_UNSUPPORTED: say, a memory type with
 * a combiner it does not decode, or an access across overlapping filetype
 * tiles) goes to the MPI library at the same explicit offset. A type that
 * is invalid (COLIO_ERR_TYPE: uncommitted, MPI_DATATYPE_NULL) fails the call
 * here, through the file's error handler once, as the MPI library would.
 */
static int fallback_call(managed_t *m, kind_t k, MPI_Offset at, void *buf, MPI_Count count, MPI_Datatype type,
                         MPI_Status *st)
{
    if (!m->said_fallback) {
        char why[256];
        snprintf(why, sizeof why, "%s", colio_last_error(m->cf));
        verbose(m->speaker, "a collective call went to MPI-IO (colio: %s)%s", why, "");
        m->said_fallback = 1;
    }
    /* colio's operations still in flight end first (a collective, as this call is on every rank): their
       writes may take no byte-range locks (colio_lock_writes=automatic), and the MPI library's collective
       write may read back and rewrite spans around its pieces */
    int drained = k == WRITE ? colio_complete(m->cf) : COLIO_SUCCESS;
    if (drained != COLIO_SUCCESS)
        return mpi_result(m->fh, drained);
    if (count <= INT_MAX)
        return k == WRITE ? REAL(write_at_all)(m->fh, at, buf, (int)count, type, st)
                          : REAL(read_at_all)(m->fh, at, buf, (int)count, type, st);
#if MPI_VERSION >= 4
    return k == WRITE ? REAL(write_at_all_c)(m->fh, at, buf, count, type, st)
                      : REAL(read_at_all_c)(m->fh, at, buf, count, type, st);
#else
    return mpi_result(m->fh, COLIO_ERR_ARG); /* unreachable: MPI-3 counts are ints */
#endif
}

static int blocking_call(managed_t *m, kind_t k, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type,
                         MPI_Status *status)
{
    MPI_Offset at;
    int rc = where(m, off, &at);
    if (rc != MPI_SUCCESS)
        return rc;
    inside = 1;
    /* the program's status as it gave it: MPI_STATUS_IGNORE spares the call filling one (an MPI call) */
    int crc = k == WRITE ? colio_write_at_all(m->cf, at, buf, count, type, status)
                         : colio_read_at_all(m->cf, at, buf, count, type, status);
    if (crc == COLIO_ERR_UNSUPPORTED) /* what colio cannot do (agreed on every rank): all fall back */
        rc = fallback_call(m, k, at, buf, count, type, status);
    else
        rc = mpi_result(m->fh, crc);
    inside = 0;
    if (off == AT_POINTER && rc == MPI_SUCCESS) /* a failed call leaves the pointer */
        rc = move_pointers(m, at, count, type);
    return rc;
}

/* Start a nonblocking colio operation; at the file pointer, the pointer moves now by the request (MPI). */
static int start_call(managed_t *m, kind_t k, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type,
                      colio_request **cr)
{
    MPI_Offset at;
    int rc = where(m, off, &at);
    if (rc != MPI_SUCCESS)
        return rc;
    inside = 1;
    int crc = k == WRITE ? colio_iwrite_at_all(m->cf, at, buf, count, type, cr)
                         : colio_iread_at_all(m->cf, at, buf, count, type, cr);
    inside = 0;
    if (crc != COLIO_SUCCESS)
        return mpi_result(m->fh, crc);
    return off == AT_POINTER ? move_pointers(m, at, count, type) : MPI_SUCCESS;
}

/* ---- generalized requests for operations colio completed at once ---------------------- */

typedef struct done_state {
    MPI_Status status;
    int code;
} done_state_t;

static int done_query(void *state, MPI_Status *status)
{
    done_state_t *d = state;
    return colio_grequest_status(status, &d->status, d->code);
}

static int done_free(void *state)
{
    free(state);
    return MPI_SUCCESS;
}

/*
 * The program's MPI_Request for a colio operation: colio's own generalized
 * request when the progress thread runs (MPI_THREAD_MULTIPLE); otherwise
 * the operation is completed here and a completed generalized request
 * returned (legal: a nonblocking call may complete before it returns).
 */
static int to_mpi_request(managed_t *m, colio_request *cr, MPI_Request *req)
{
    if (colio_request_get_mpi(cr, req) == COLIO_SUCCESS)
        return MPI_SUCCESS;
    done_state_t *d = malloc(sizeof *d);
    inside = 1;
    int crc = colio_wait(&cr, d ? &d->status : MPI_STATUS_IGNORE);
    inside = 0;
    if (d == NULL || crc != COLIO_SUCCESS) { /* completed here: the error is the call's (agreed on every rank) */
        int err = crc != COLIO_SUCCESS ? crc : COLIO_ERR_NOMEM;
        free(d);
        *req = MPI_REQUEST_NULL;
        return mpi_result(m->fh, err);
    }
    d->code = MPI_SUCCESS;
    int rc = MPI_Grequest_start(done_query, done_free, colio_grequest_no_cancel, d, req);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    return MPI_Grequest_complete(*req);
}

static int nonblocking_call(managed_t *m, kind_t k, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type,
                            MPI_Request *req)
{
    colio_request *cr = NULL;
    /* no place for the request: colio completes the call with its agreed error on every rank */
    int rc = start_call(m, k, off, buf, count, type, req ? &cr : NULL);
    return rc != MPI_SUCCESS || req == NULL ? rc : to_mpi_request(m, cr, req);
}

/* Split collectives: one per file at a time (MPI), begun as a nonblocking operation. */
static int split_begin(managed_t *m, kind_t k, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type)
{
    if (m->split)
        return mpi_result(m->fh, COLIO_ERR_ARG); /* MPI: a split collective is already active on the file */
    return start_call(m, k, off, buf, count, type, &m->split);
}

static int split_end(managed_t *m, MPI_Status *status)
{
    if (m->split == NULL)
        return mpi_result(m->fh, COLIO_ERR_ARG);
    inside = 1;
    int crc = colio_wait(&m->split, status);
    inside = 0;
    return mpi_result(m->fh, crc);
}

/*
 * The wrappers, one family at a time; CT is the count type, S the suffix
 * (_c: MPI-4 large counts). A handle colio does not take goes to the MPI
 * library's function of the same name.
 */
#define DATA_WRAPPERS(CT, S)                                                                                    \
    int MPI_File_write_all##S(MPI_File fh, const void *buf, CT count, MPI_Datatype t, MPI_Status *st)         \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? blocking_call(m, WRITE, AT_POINTER, (void *)buf, count, t, st)                             \
                 : follow(fh, REAL(write_all##S)(fh, buf, count, t, st), count, t);                                                  \
    }                                                                                                          \
    int MPI_File_read_all##S(MPI_File fh, void *buf, CT count, MPI_Datatype t, MPI_Status *st)                \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? blocking_call(m, READ, AT_POINTER, buf, count, t, st) : follow(fh, REAL(read_all##S)(fh, buf, count, t, st), count, t); \
    }                                                                                                          \
    int MPI_File_write_at_all##S(MPI_File fh, MPI_Offset off, const void *buf, CT count, MPI_Datatype t,      \
                                 MPI_Status *st)                                                               \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? blocking_call(m, WRITE, off, (void *)buf, count, t, st)                                    \
                 : REAL(write_at_all##S)(fh, off, buf, count, t, st);                                          \
    }                                                                                                          \
    int MPI_File_read_at_all##S(MPI_File fh, MPI_Offset off, void *buf, CT count, MPI_Datatype t,             \
                                MPI_Status *st)                                                                \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? blocking_call(m, READ, off, buf, count, t, st) : REAL(read_at_all##S)(fh, off, buf, count, t, st); \
    }                                                                                                          \
    int MPI_File_iwrite_all##S(MPI_File fh, const void *buf, CT count, MPI_Datatype t, MPI_Request *rq)       \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? nonblocking_call(m, WRITE, AT_POINTER, (void *)buf, count, t, rq)                          \
                 : follow(fh, REAL(iwrite_all##S)(fh, buf, count, t, rq), count, t);                                                 \
    }                                                                                                          \
    int MPI_File_iread_all##S(MPI_File fh, void *buf, CT count, MPI_Datatype t, MPI_Request *rq)              \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? nonblocking_call(m, READ, AT_POINTER, buf, count, t, rq)                                   \
                 : follow(fh, REAL(iread_all##S)(fh, buf, count, t, rq), count, t);                                                  \
    }                                                                                                          \
    int MPI_File_iwrite_at_all##S(MPI_File fh, MPI_Offset off, const void *buf, CT count, MPI_Datatype t,     \
                                  MPI_Request *rq)                                                             \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? nonblocking_call(m, WRITE, off, (void *)buf, count, t, rq)                                 \
                 : REAL(iwrite_at_all##S)(fh, off, buf, count, t, rq);                                         \
    }                                                                                                          \
    int MPI_File_iread_at_all##S(MPI_File fh, MPI_Offset off, void *buf, CT count, MPI_Datatype t,            \
                                 MPI_Request *rq)                                                              \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? nonblocking_call(m, READ, off, buf, count, t, rq)                                          \
                 : REAL(iread_at_all##S)(fh, off, buf, count, t, rq);                                          \
    }                                                                                                          \
    int MPI_File_write_all_begin##S(MPI_File fh, const void *buf, CT count, MPI_Datatype t)                   \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? split_begin(m, WRITE, AT_POINTER, (void *)buf, count, t)                                   \
                 : follow(fh, REAL(write_all_begin##S)(fh, buf, count, t), count, t);                                                \
    }                                                                                                          \
    int MPI_File_read_all_begin##S(MPI_File fh, void *buf, CT count, MPI_Datatype t)                          \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? split_begin(m, READ, AT_POINTER, buf, count, t) : follow(fh, REAL(read_all_begin##S)(fh, buf, count, t), count, t); \
    }                                                                                                          \
    int MPI_File_write_at_all_begin##S(MPI_File fh, MPI_Offset off, const void *buf, CT count, MPI_Datatype t) \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? split_begin(m, WRITE, off, (void *)buf, count, t)                                          \
                 : REAL(write_at_all_begin##S)(fh, off, buf, count, t);                                        \
    }                                                                                                          \
    int MPI_File_read_at_all_begin##S(MPI_File fh, MPI_Offset off, void *buf, CT count, MPI_Datatype t)       \
    {                                                                                                          \
        managed_t *m = taken(fh);                                                                              \
        return m ? split_begin(m, READ, off, buf, count, t) : REAL(read_at_all_begin##S)(fh, off, buf, count, t); \
    }

/* The MPI library's independent calls at the individual file pointer; colio's pointer follows. */
#define POINTER_WRAPPERS(CT, S)                                                                                 \
    int MPI_File_write##S(MPI_File fh, const void *buf, CT count, MPI_Datatype t, MPI_Status *st)             \
    {                                                                                                          \
        return follow(fh, REAL(write##S)(fh, buf, count, t, st), count, t);                                    \
    }                                                                                                          \
    int MPI_File_read##S(MPI_File fh, void *buf, CT count, MPI_Datatype t, MPI_Status *st)                    \
    {                                                                                                          \
        return follow(fh, REAL(read##S)(fh, buf, count, t, st), count, t);                                     \
    }                                                                                                          \
    int MPI_File_iwrite##S(MPI_File fh, const void *buf, CT count, MPI_Datatype t, MPI_Request *rq)           \
    {                                                                                                          \
        return follow(fh, REAL(iwrite##S)(fh, buf, count, t, rq), count, t);                                   \
    }                                                                                                          \
    int MPI_File_iread##S(MPI_File fh, void *buf, CT count, MPI_Datatype t, MPI_Request *rq)                  \
    {                                                                                                          \
        return follow(fh, REAL(iread##S)(fh, buf, count, t, rq), count, t);                                    \
    }

DATA_WRAPPERS(int, )
POINTER_WRAPPERS(int, )
#if MPI_VERSION >= 4
DATA_WRAPPERS(MPI_Count, _c)
POINTER_WRAPPERS(MPI_Count, _c)
#endif

/* MPI_File_seek: the MPI library's pointer moves (its independent calls use it), colio's is the answer. */
/*
 * MPI_File_seek: colio moves its pointer (SEEK_CUR and SEEK_END from its own
 * position and its own end of file in the view), then the MPI library's
 * goes to the same place by SEEK_SET, for its own later calls.
 */
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    managed_t *m = inside ? NULL : find(fh);
    if (m == NULL)
        return REAL(seek)(fh, offset, whence);
    MPI_Offset at = 0;
    int rc = mpi_result(fh, colio_seek(m->cf, offset, whence));
    if (rc == MPI_SUCCESS)
        rc = mpi_result(fh, colio_get_position(m->cf, &at));
    return rc == MPI_SUCCESS ? REAL(seek)(fh, at, MPI_SEEK_SET) : rc;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    managed_t *m = inside ? NULL : find(fh); /* colio's answer, a NULL offset included (ROMIO would crash) */
    return m ? mpi_result(fh, colio_get_position(m->cf, offset)) : REAL(get_position)(fh, offset);
}

/* The end of a split collective colio began; one MPI began goes back to MPI. */
static managed_t *split_owner(MPI_File fh)
{
    managed_t *m = inside ? NULL : find(fh);
    return m && m->split ? m : NULL;
}

int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    managed_t *m = split_owner(fh);
    return m ? split_end(m, status) : REAL(write_all_end)(fh, buf, status);
}

int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    managed_t *m = split_owner(fh);
    return m ? split_end(m, status) : REAL(read_all_end)(fh, buf, status);
}

int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    managed_t *m = split_owner(fh);
    return m ? split_end(m, status) : REAL(write_at_all_end)(fh, buf, status);
}

int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    managed_t *m = split_owner(fh);
    return m ? split_end(m, status) : REAL(read_at_all_end)(fh, buf, status);
}

/* ---- the PMPI names: the same wrappers (Fortran bindings call these) ------------------ */

#define COLIO_PMPI_ALIAS_(name, params) int PMPI_##name params __attribute__((alias("MPI_" #name)));
COLIO_WRAPPED_FUNCS(COLIO_PMPI_ALIAS_)
#undef COLIO_PMPI_ALIAS_
