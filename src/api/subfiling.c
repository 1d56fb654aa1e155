/*
 * Subfiling at the file level (TAPIOCA Sec. 5.4.2): whether PATH is or
 * becomes a subfiled file, making and checking its subfiles, keeping the
 * metadata's logical size true. PATH is then a small text file (format in
 * subfile/layout.c, documented in docs/SUBFILING.md); the bytes live in the
 * subfiles, reached through the subfiling store (store/subfile.c). All
 * file system work goes through the hints' backend, so the fault backend
 * injects failures here too and the null backend (which keeps nothing)
 * makes every file new. Each collective step agrees on its errors; the
 * subfiles' work is spread over the ranks (subfile k on rank k mod p).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/open.h"
#include "store/backends.h"

#define META_MAX ((int64_t)64 << 20) /* a metadata file larger than this is not one */
#define STRIPE_DEFAULT ((int64_t)1 << 20)

static int keeps_content(const colio_file *fh) { return !(fh->base->caps & COLIO_STORE_CAP_NO_CONTENT); }

/* Metadata and subfile sizes go through the backend's bookkeeping one (no injected faults). */
static const colio_store_ops_t *books(const colio_file *fh)
{
    return fh->base->bookkeeping ? fh->base->bookkeeping : fh->base;
}

static int errno_error(colio_err_t *err, int neg, const char *what, const char *path)
{
    return colio_err_set(err, colio_err_from_errno(-neg), "colio_open: %s: %s: %s (errno %d)", path, what,
                         strerror(-neg), -neg);
}

/* ---- decide: what PATH is ---------------------------------------------------------- */

typedef enum { PATH_ORDINARY = 0, PATH_SUBFILED = 1, PATH_NEW_SUBFILED = 2 } path_kind_t;

/* Whole file through the backend into a NUL-terminated buffer (size known). */
static int read_all(const colio_store_ops_t *ops, colio_store_t *st, int64_t size, char **text_p)
{
    char *text = malloc((size_t)size + 1);
    int64_t got = 0;
    if (text == NULL)
        return -ENOMEM;
    int rc = colio_store_pread(ops, st, text, size, 0, &got);
    if (rc == 0 && got != size)
        rc = -EIO; /* it shrank while read: not trusted */
    if (rc != 0) {
        free(text);
        return rc;
    }
    text[size] = '\0';
    *text_p = text;
    return 0;
}

/* Does path exist, how large, and is it subfile metadata (then its text); ops: a bookkeeping backend. */
static int probe_path(const colio_store_ops_t *ops, const colio_hints_t *h, const char *path, int *exists_p,
                      int64_t *size_p, char **meta_p, colio_err_t *err)
{
    colio_store_t *st = NULL;
    int readable = 0;
    *exists_p = 0, *size_p = 0, *meta_p = NULL;
    if (ops->caps & COLIO_STORE_CAP_NO_CONTENT)
        return 0;
    int rc = ops->open(path, COLIO_STORE_READ, h, 0, &st, &readable);
    if (rc != 0) /* missing, or unreadable: the ordinary open decides and reports */
        return 0;
    *exists_p = 1;
    char head[64];
    int64_t got = 0;
    rc = ops->size(st, size_p);
    if (rc == 0 && *size_p > 0)
        rc = colio_store_pread(ops, st, head, (int64_t)sizeof head, 0, &got);
    if (rc == 0 && colio_subfile_meta_is(head, (size_t)got)) {
        if (*size_p > META_MAX)
            colio_err_set(err, COLIO_ERR_IO, "%s: subfile metadata larger than %lld bytes", path, (long long)META_MAX);
        else
            rc = read_all(ops, st, *size_p, meta_p);
    }
    ops->close(st);
    if (rc != 0)
        errno_error(err, rc, "reading it", path);
    return err->code;
}

/* Distinct storage targets of the nodes (ionode): 1 without a network model. */
static int count_targets(const colio_topo_t *t)
{
    if (t->net == NULL)
        return 1;
    int n = colio_net_ntargets(t->net), count = 0;
    char *used = calloc((size_t)n, 1);
    if (used == NULL)
        return 1;
    for (int k = 0; k < t->nnodes; k++) {
        int target = colio_net_io_target(t->net, k);
        if (target >= 0 && target < n && !used[target])
            used[target] = 1, count++;
    }
    free(used);
    return count > 0 ? count : 1;
}

/* How many subfiles the hint asks for, on these nodes. */
static int subfile_count(const colio_subfiles_spec_t *spec, const colio_topo_t *t)
{
    switch (spec->mode) {
    case COLIO_SUBFILES_COUNT:
        return spec->n;
    case COLIO_SUBFILES_NODE:
        return t->nnodes;
    case COLIO_SUBFILES_GROUP:
        return (t->nnodes + spec->n - 1) / spec->n;
    case COLIO_SUBFILES_IONODE:
        return count_targets(t);
    default:
        return 0;
    }
}

static int64_t subfile_stripe(const colio_hints_t *h)
{
    return h->subfile_stripe > 0 ? h->subfile_stripe : h->striping_unit > 0 ? h->striping_unit : STRIPE_DEFAULT;
}

/* Rank 0: the metadata text every rank parses, and what PATH is. */
static path_kind_t rank0_decide(colio_file *fh, const colio_topo_t *topo, char **text_p, colio_err_t *err)
{
    int exists = 0;
    int64_t size = 0;
    colio_subfiles_spec_t spec;
    colio_subfiles_parse(fh->hints.subfiles, &spec);
    if (probe_path(books(fh), &fh->hints, fh->path, &exists, &size, text_p, err) != 0 || *text_p)
        return *text_p ? PATH_SUBFILED : PATH_ORDINARY;
    /* like striping hints, a layout is chosen when the file is made: an existing file keeps its own
       (an empty one too: it may be a device or a file another program holds) */
    if (spec.mode == COLIO_SUBFILES_NONE || exists || !(fh->amode & MPI_MODE_CREATE))
        return PATH_ORDINARY;
    colio_subfile_layout_t lay;
    if (colio_subfile_layout_new(&lay, fh->path, subfile_count(&spec, topo), subfile_stripe(&fh->hints)) != 0 ||
        (*text_p = colio_subfile_meta_format(&lay, fh->path)) == NULL)
        colio_err_set(err, COLIO_ERR_NOMEM, "colio_open: out of memory for the subfile layout");
    colio_subfile_layout_free(&lay);
    return *text_p ? PATH_NEW_SUBFILED : PATH_ORDINARY;
}

/* Every rank gets rank 0's text and parses it, so every rank holds the same layout. */
static int share_layout(colio_file *fh, int64_t kind, int64_t len, char *text, colio_err_t *err)
{
    char *buf = fh->rank == 0 ? text : malloc((size_t)len + 1);
    if (buf == NULL)
        colio_err_set(err, COLIO_ERR_NOMEM, "colio_open: out of memory for the subfile metadata");
    if (colio_err_agree(fh->comm, err) == 0) {
        int rc = MPI_Bcast(buf, (int)len, MPI_CHAR, 0, fh->comm);
        char msg[256];
        if (rc != MPI_SUCCESS)
            colio_err_from_mpi(err, rc, "MPI_Bcast of the subfile metadata");
        else if (colio_subfile_meta_parse(buf, (size_t)len, fh->path, &fh->sub, msg, sizeof msg) != 0)
            colio_err_set(err, COLIO_ERR_IO, "colio_open: %s: not valid colio subfile metadata: %s",
                          fh->path, msg);
        fh->sub_creating = kind == PATH_NEW_SUBFILED;
    }
    if (buf != text)
        free(buf);
    return colio_err_agree(fh->comm, err);
}

int colio_subfiling_decide(colio_file *fh, const colio_topo_t *topo, colio_err_t *err)
{
    char *text = NULL;
    int64_t hdr[2] = {PATH_ORDINARY, 0};
    if (fh->rank == 0 && err->code == 0) {
        hdr[0] = rank0_decide(fh, topo, &text, err);
        hdr[1] = text ? (int64_t)strlen(text) : 0;
    }
    if (colio_err_agree_root(fh->comm, err, hdr, 2) != 0) { /* rank 0's decision travels with the agreement */
        free(text);
        return err->code;
    }
    int rc = hdr[0] == PATH_ORDINARY ? COLIO_SUCCESS : share_layout(fh, hdr[0], hdr[1], text, err);
    free(text);
    if (rc != 0) /* agreed: every rank then goes on as with an ordinary file, so their collectives match */
        colio_subfile_layout_free(&fh->sub);
    return rc;
}

/* ---- open: make or check the subfiles ------------------------------------------------- */

/* text into path through the bookkeeping backend: written whole, cut to its length, synced when asked. */
static int put_text(colio_file *fh, const char *path, int flags, const char *text, int sync)
{
    colio_store_t *st = NULL;
    int readable = 0, rc = books(fh)->open(path, flags | COLIO_STORE_WRITE, &fh->hints, fh->rank, &st, &readable);
    if (rc != 0)
        return rc;
    int64_t len = (int64_t)strlen(text);
    rc = colio_store_pwrite(books(fh), st, text, len, 0);
    if (rc == 0)
        rc = books(fh)->truncate(st, len);
    if (rc == 0 && sync)
        rc = books(fh)->sync(st);
    int crc = books(fh)->close(st);
    return rc ? rc : crc;
}

/*
 * The metadata text for fh->sub into PATH. A new file's is written in place
 * (flags: CREATE, EXCL as asked); a rewrite (logical size at close and
 * sync) goes to PATH.colio-new, synced, then renamed over PATH, so a crash
 * leaves the old metadata or the new one, never half of one (a backend
 * without rename rewrites in place).
 */
static int write_meta(colio_file *fh, int flags, colio_err_t *err)
{
    char *text = colio_subfile_meta_format(&fh->sub, fh->path), *tmp = NULL;
    int rc = text ? 0 : -ENOMEM;
    if (rc == 0 && ((flags & COLIO_STORE_CREATE) || books(fh)->rename == NULL))
        rc = put_text(fh, fh->path, flags, text, 0);
    else if (rc == 0) {
        size_t len = strlen(fh->path) + 16;
        rc = (tmp = malloc(len)) ? 0 : -ENOMEM;
        if (rc == 0) {
            snprintf(tmp, len, "%s.colio-new", fh->path);
            rc = put_text(fh, tmp, COLIO_STORE_CREATE, text, 1);
        }
        if (rc == 0)
            rc = books(fh)->rename(tmp, fh->path);
        if (rc != 0 && tmp)
            books(fh)->unlink(tmp);
    }
    free(text);
    free(tmp);
    if (rc != 0)
        colio_err_set(err, colio_err_from_errno(-rc), "%s: writing the subfile metadata: %s (errno %d)", fh->path,
                      strerror(-rc), -rc);
    return err->code;
}

/* Subfile k made empty (a new file's subfiles replace any stale ones of that name). */
static int create_subfile(colio_file *fh, int k, colio_err_t *err)
{
    colio_store_t *st = NULL;
    int readable = 0;
    int rc = books(fh)->open(fh->sub.names[k], COLIO_STORE_WRITE | COLIO_STORE_CREATE, &fh->hints, fh->rank, &st,
                            &readable);
    if (rc == 0) {
        rc = books(fh)->truncate(st, 0);
        int crc = books(fh)->close(st);
        rc = rc ? rc : crc;
    }
    if (rc != 0)
        colio_err_set(err, colio_err_from_errno(-rc), "colio_open: %s: creating subfile %s: %s (errno %d)",
                      fh->path, fh->sub.names[k], strerror(-rc), -rc);
    return err->code;
}

/* Physical size of subfile k through the backend (flags: how to open it). */
static int subfile_size(const colio_file *fh, int k, int flags, int64_t *size_p)
{
    colio_store_t *st = NULL;
    int readable = 0;
    int rc = books(fh)->open(fh->sub.names[k], flags, &fh->hints, fh->rank, &st, &readable);
    if (rc != 0)
        return rc;
    rc = books(fh)->size(st, size_p);
    int crc = books(fh)->close(st);
    return rc ? rc : crc;
}

/* Subfile k of an existing file: there, and holding its part of the logical size. */
static int check_subfile(colio_file *fh, int k, int flags, colio_err_t *err)
{
    int64_t size = 0, want = colio_subfile_expected(&fh->sub, k, fh->sub.size);
    int rc = subfile_size(fh, k, flags, &size);
    if (rc == -ENOENT)
        return colio_err_set(err, COLIO_ERR_NOENT, "colio_open: %s: subfile %s is missing", fh->path,
                             fh->sub.names[k]);
    if (rc != 0)
        return colio_err_set(err, colio_err_from_errno(-rc), "colio_open: %s: subfile %s: %s (errno %d)", fh->path,
                             fh->sub.names[k], strerror(-rc), -rc);
    if (size < want)
        return colio_err_set(err, COLIO_ERR_IO,
                             "colio_open: %s: subfile %s is truncated: %lld bytes, the logical size %lld needs %lld",
                             fh->path, fh->sub.names[k], (long long)size, (long long)fh->sub.size, (long long)want);
    return COLIO_SUCCESS;
}

/* The subfiles this rank aggregates for: its group's, opened at once. */
static int own_subfiles(const colio_file *fh, int *eager)
{
    if (fh->cfg.ngroups == 0)
        return 0;
    eager[0] = fh->cfg.group_of_rank[fh->rank];
    return 1;
}

int colio_subfiling_open(colio_file *fh, int flags, colio_err_t *err)
{
    int plain = flags & ~(COLIO_STORE_CREATE | COLIO_STORE_EXCL);
    if (fh->sub_creating && keeps_content(fh)) {
        if (fh->rank == 0 && err->code == 0) /* a new file (rank0_decide): a failed open removes it */
            fh->made_here = write_meta(fh, flags & (COLIO_STORE_CREATE | COLIO_STORE_EXCL), err) == 0;
        if (colio_err_agree(fh->comm, err) != 0)
            return err->code;
        /* every rank names the metadata rank 0 wrote, before any makes subfiles named after its own path */
        int64_t id[COLIO_OPEN_ID_WORDS], lo[COLIO_OPEN_ID_WORDS], hi[COLIO_OPEN_ID_WORDS];
        colio_open_identity(fh, id);
        if (colio_err_agree_words(fh->comm, err, NULL, 0, id, COLIO_OPEN_ID_WORDS, lo, hi) != 0 ||
            colio_open_same(lo, hi, err) != 0)
            return err->code;
        for (int k = fh->rank; k < fh->sub.nsub && err->code == 0; k += fh->nprocs)
            create_subfile(fh, k, err);
    } else if (!fh->sub_creating && (flags & COLIO_STORE_EXCL)) { /* its metadata was read: it exists */
        colio_err_set(err, COLIO_ERR_EXIST, "colio_open: %s: %s (errno %d)", fh->path, strerror(EEXIST), EEXIST);
    } else if (keeps_content(fh)) {
        for (int k = fh->rank; k < fh->sub.nsub && err->code == 0; k += fh->nprocs)
            check_subfile(fh, k, plain, err);
    }
    if (colio_err_agree(fh->comm, err) != 0)
        return err->code;
    int eager[1];
    int rc = colio_store_subfile_open(&fh->sub, fh->base, plain, &fh->hints, fh->rank, eager, own_subfiles(fh, eager),
                                      &fh->st, &fh->readable);
    if (rc != 0) {
        fh->st = NULL;
        errno_error(err, rc, "opening its subfiles", fh->path);
    }
    fh->store = &colio_store_subfile;
    return err->code; /* agreed by the caller */
}

/* ---- settle: the metadata's logical size ------------------------------------------------ */

/*
 * The logical size the subfiles hold (their furthest byte), agreed over the
 * ranks; have[i] keeps the size of this rank's i-th subfile (rank + i*p).
 */
static int logical_size(colio_file *fh, int flags, int64_t *have, int64_t *size_p, colio_err_t *err)
{
    int64_t mine = fh->sub.size, all = 0;
    for (int k = fh->rank, i = 0; k < fh->sub.nsub && err->code == 0; k += fh->nprocs, i++) {
        int rc = subfile_size(fh, k, flags, &have[i]);
        if (rc != 0)
            colio_err_set(err, colio_err_from_errno(-rc), "%s: subfile %s: size: %s", fh->path, fh->sub.names[k],
                          strerror(-rc));
        int64_t end = colio_subfile_logical_end(&fh->sub, k, have[i]);
        mine = end > mine ? end : mine;
    }
    int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MAX, fh->comm);
    if (rc != MPI_SUCCESS && err->code == 0)
        colio_err_from_mpi(err, rc, "MPI_Allreduce of the logical size");
    *size_p = all;
    return colio_err_agree(fh->comm, err);
}

/* Subfile k, of have bytes, grown (a hole, no data) to its share of logical size size. */
static int extend_subfile(colio_file *fh, int k, int flags, int64_t have, int64_t size, colio_err_t *err)
{
    int64_t want = colio_subfile_expected(&fh->sub, k, size);
    colio_store_t *st = NULL;
    int readable = 0, rc = 0;
    if (have >= want)
        return err->code;
    rc = books(fh)->open(fh->sub.names[k], flags, &fh->hints, fh->rank, &st, &readable);
    if (rc == 0) {
        rc = books(fh)->truncate(st, want);
        int crc = books(fh)->close(st);
        rc = rc ? rc : crc;
    }
    if (rc != 0)
        colio_err_set(err, colio_err_from_errno(-rc), "%s: subfile %s: extending to %lld bytes: %s", fh->path,
                      fh->sub.names[k], (long long)want, strerror(-rc));
    return err->code;
}

int colio_subfiling_settle(colio_file *fh, colio_err_t *err)
{
    if (fh->sub.nsub == 0 || !keeps_content(fh) || !(fh->amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR)))
        return err->code;
    int flags = COLIO_STORE_WRITE, mine = fh->rank < fh->sub.nsub ? (fh->sub.nsub - fh->rank - 1) / fh->nprocs + 1 : 0;
    int64_t size = 0, *have = calloc((size_t)mine + 1, sizeof(int64_t));
    if (have == NULL)
        colio_err_set(err, COLIO_ERR_NOMEM, "%s: out of memory settling the subfiles", fh->path);
    if (logical_size(fh, flags, have, &size, err) != 0) { /* a failed allocation joins the agreement */
        free(have);
        return err->code;
    }
    for (int k = fh->rank, i = 0; k < fh->sub.nsub && err->code == 0; k += fh->nprocs, i++)
        extend_subfile(fh, k, flags, have[i], size, err);
    free(have);
    if (colio_err_agree(fh->comm, err) != 0)
        return err->code;
    int changed = size != fh->sub.size;
    fh->sub.size = size;
    if (changed && fh->rank == 0)
        write_meta(fh, 0, err);
    return colio_err_agree(fh->comm, err);
}

int colio_subfiling_unlink(colio_file *fh, colio_err_t *err)
{
    for (int k = fh->rank; k < fh->sub.nsub && keeps_content(fh); k += fh->nprocs) {
        int rc = books(fh)->unlink(fh->sub.names[k]);
        if (rc != 0 && err->code == 0)
            colio_err_set(err, colio_err_from_errno(-rc), "colio_close: unlink %s: %s", fh->sub.names[k],
                          strerror(-rc));
    }
    return colio_err_agree(fh->comm, err);
}

/* ---- colio_delete ------------------------------------------------------------------------ */

/* The subfiles of path, when it is a subfiled file (a layout with nsub > 0), through backend ops. */
static int layout_of(const colio_store_ops_t *ops, const colio_hints_t *h, const char *path,
                     colio_subfile_layout_t *lay, colio_err_t *err)
{
    int exists = 0;
    int64_t size = 0;
    char *text = NULL, msg[256];
    memset(lay, 0, sizeof *lay);
    if (probe_path(ops, h, path, &exists, &size, &text, err) != 0 || text == NULL)
        return err->code;
    if (colio_subfile_meta_parse(text, strlen(text), path, lay, msg, sizeof msg) != 0)
        colio_err_set(err, COLIO_ERR_IO, "colio_delete: %s: not valid colio subfile metadata: %s", path, msg);
    free(text);
    return err->code;
}

int colio_subfiling_delete(const char *path, const colio_hints_t *h, colio_err_t *err)
{
    const colio_store_ops_t *ops = colio_store_find(h->backend);
    ops = ops->bookkeeping ? ops->bookkeeping : ops;
    colio_subfile_layout_t lay;
    if (layout_of(ops, h, path, &lay, err) != 0)
        return err->code;
    for (int k = 0; k < lay.nsub; k++) { /* subfiles first: the metadata goes last, so a failure leaves it */
        int rc = ops->unlink(lay.names[k]);
        if (rc != 0 && rc != -ENOENT && err->code == 0)
            colio_err_set(err, colio_err_from_errno(-rc), "colio_delete: %s: %s", lay.names[k], strerror(-rc));
    }
    colio_subfile_layout_free(&lay);
    int rc = err->code == 0 ? ops->unlink(path) : 0;
    if (rc != 0)
        colio_err_set(err, colio_err_from_errno(-rc), "colio_delete: %s: %s", path, strerror(-rc));
    return err->code;
}
