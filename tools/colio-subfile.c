/*
 * colio-subfile: look at, join and make subfiled files (docs/SUBFILING.md).
 *
 *   colio-subfile info PATH               the layout, and each subfile's state
 *   colio-subfile join PATH OUT           one ordinary file, byte-identical to the logical file
 *   colio-subfile split IN PATH N [STRIPE]  an ordinary file IN as the subfiled file PATH
 *
 * No MPI: runs on a login node. Exit status 0, 1 on a damaged or missing
 * subfile or any I/O error (the message names it), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "subfile/layout.h"

#define CHUNK ((int64_t)4 << 20)

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "colio-subfile: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 1;
}

static int64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* The metadata of path, parsed. */
static int load(const char *path, colio_subfile_layout_t *l)
{
    int64_t size = file_size(path);
    FILE *f = fopen(path, "rb");
    if (f == NULL || size < 0)
        return fail("%s: %s", path, strerror(errno));
    char *text = malloc((size_t)size + 1), msg[256];
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (text == NULL || (int64_t)got != size) {
        free(text);
        return fail("%s: %s", path, "cannot read it");
    }
    int rc = 0;
    if (!colio_subfile_meta_is(text, got))
        rc = fail("%s: %s", path, "not a subfiled file (no \"colio-subfile\" first line)");
    else if (colio_subfile_meta_parse(text, got, path, l, msg, sizeof msg) != 0)
        rc = fail("%s: invalid metadata: %s", path, msg);
    free(text);
    return rc;
}

/* Logical size: the metadata's, or further when a subfile holds more. */
static int64_t logical_size(const colio_subfile_layout_t *l)
{
    int64_t size = l->size;
    for (int k = 0; k < l->nsub; k++) {
        int64_t end = colio_subfile_logical_end(l, k, file_size(l->names[k]));
        size = end > size ? end : size;
    }
    return size;
}

/* Every subfile present and holding its share of the metadata's size. */
static int check(const colio_subfile_layout_t *l, int verbose)
{
    int bad = 0;
    for (int k = 0; k < l->nsub; k++) {
        int64_t have = file_size(l->names[k]), want = colio_subfile_expected(l, k, l->size);
        const char *state = have < 0 ? "MISSING" : have < want ? "TRUNCATED" : "ok";
        if (verbose)
            printf("  %-6d %-12" PRId64 " %-12" PRId64 " %-9s %s\n", k, have, want, state, l->names[k]);
        else if (have < want)
            fprintf(stderr, "colio-subfile: subfile %s is %s (%" PRId64 " bytes, the logical size needs %" PRId64 ")\n",
                    l->names[k], have < 0 ? "missing" : "truncated", have < 0 ? 0 : have, want);
        bad += have < want;
    }
    return bad;
}

static int info(const char *path)
{
    colio_subfile_layout_t l;
    if (load(path, &l) != 0)
        return 1;
    printf("%s: subfiled file, format %d\n  subfiles      %d\n  stripe        %" PRId64 "\n"
           "  logical size  %" PRId64 " (metadata), %" PRId64 " (subfiles)\n",
           path, COLIO_SUBFILE_FORMAT, l.nsub, l.stripe, l.size, logical_size(&l));
    printf("  %-6s %-12s %-12s %-9s %s\n", "index", "bytes", "needed", "state", "name");
    int bad = check(&l, 1);
    colio_subfile_layout_free(&l);
    return bad ? 1 : 0;
}

/* Read exactly len bytes at off, zeros past the end of fd. */
static int read_at(int fd, char *buf, int64_t len, int64_t off)
{
    int64_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, buf + got, (size_t)(len - got), off + got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += r;
    }
    memset(buf + got, 0, (size_t)(len - got));
    return 0;
}

static int write_at(int fd, const char *buf, int64_t len, int64_t off)
{
    int64_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(fd, buf + done, (size_t)(len - done), off + done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += w;
    }
    return 0;
}

static int *open_all(const colio_subfile_layout_t *l, int flags)
{
    int *fd = malloc(sizeof(int) * (size_t)l->nsub);
    for (int k = 0; fd && k < l->nsub; k++)
        if ((fd[k] = open(l->names[k], flags, 0666)) < 0) {
            fail("%s: %s", l->names[k], strerror(errno));
            while (k-- > 0)
                close(fd[k]);
            free(fd);
            return NULL;
        }
    return fd;
}

static void close_all(const colio_subfile_layout_t *l, int *fd)
{
    for (int k = 0; k < l->nsub; k++)
        close(fd[k]);
    free(fd);
}

/* Logical [off, off + len) between the subfiles and buf, stripe piece by piece. */
static int move(const colio_subfile_layout_t *l, const int *fd, char *buf, int64_t len, int64_t off, int to_subfiles)
{
    for (int64_t x = off; x < off + len;) {
        int k;
        int64_t phys, stripe_end;
        colio_subfile_locate(l, x, &k, &phys, &stripe_end);
        int64_t n = (stripe_end < off + len ? stripe_end : off + len) - x;
        int rc = to_subfiles ? write_at(fd[k], buf + (x - off), n, phys) : read_at(fd[k], buf + (x - off), n, phys);
        if (rc != 0)
            return fail("%s: %s", l->names[k], strerror(errno));
        x += n;
    }
    return 0;
}

static int join(const char *path, const char *out)
{
    colio_subfile_layout_t l;
    if (load(path, &l) != 0)
        return 1;
    int rc = check(&l, 0) ? 1 : 0;
    int *fd = rc ? NULL : open_all(&l, O_RDONLY);
    int ofd = fd ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
    char *buf = malloc((size_t)CHUNK);
    if (fd && (ofd < 0 || buf == NULL))
        rc = fail("%s: %s", out, strerror(errno));
    int64_t size = logical_size(&l);
    for (int64_t off = 0; fd && rc == 0 && off < size; off += CHUNK) {
        int64_t n = size - off < CHUNK ? size - off : CHUNK;
        rc = move(&l, fd, buf, n, off, 0);
        if (rc == 0 && write_at(ofd, buf, n, off) != 0)
            rc = fail("%s: %s", out, strerror(errno));
    }
    if (ofd >= 0 && close(ofd) != 0 && rc == 0)
        rc = fail("%s: %s", out, strerror(errno));
    if (fd)
        close_all(&l, fd);
    free(buf);
    colio_subfile_layout_free(&l);
    return rc || fd == NULL ? 1 : 0;
}

static int parse_count(const char *s, int64_t max, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        return -1;
    *out = v;
    return 0;
}

static int write_meta(const colio_subfile_layout_t *l, const char *path)
{
    char *text = colio_subfile_meta_format(l, path);
    FILE *f = text ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(text, 1, strlen(text), f) == strlen(text);
    ok = (f && fclose(f) == 0) && ok;
    free(text);
    return ok ? 0 : fail("%s: %s", path, strerror(errno));
}

static int split(const char *in, const char *path, const char *count, const char *stripe)
{
    int64_t n = 0, s = (int64_t)1 << 20, size = file_size(in);
    if (parse_count(count, COLIO_SUBFILE_MAX, &n) != 0 || (stripe && parse_count(stripe, COLIO_SUBFILE_STRIPE_MAX, &s) != 0))
        return fail("bad subfile count %s or stripe %s", count, stripe ? stripe : "");
    if (size < 0)
        return fail("%s: %s", in, strerror(errno));
    colio_subfile_layout_t l;
    if (colio_subfile_layout_new(&l, path, (int)n, s) != 0)
        return fail("%s%s", "out of memory", "");
    l.size = size;
    int ifd = open(in, O_RDONLY), rc = ifd < 0 ? fail("%s: %s", in, strerror(errno)) : 0;
    int *fd = rc ? NULL : open_all(&l, O_WRONLY | O_CREAT | O_TRUNC);
    char *buf = malloc((size_t)CHUNK);
    rc = rc || fd == NULL || buf == NULL;
    for (int64_t off = 0; rc == 0 && off < size; off += CHUNK) {
        int64_t n = size - off < CHUNK ? size - off : CHUNK;
        rc = read_at(ifd, buf, n, off) != 0 ? fail("%s: %s", in, strerror(errno)) : move(&l, fd, buf, n, off, 1);
    }
    for (int k = 0; rc == 0 && k < l.nsub; k++) /* every subfile holds its share, holes included */
        if (truncate(l.names[k], colio_subfile_expected(&l, k, size)) != 0)
            rc = fail("%s: %s", l.names[k], strerror(errno));
    if (rc == 0)
        rc = write_meta(&l, path); /* last: the file is complete once its metadata exists */
    if (fd)
        close_all(&l, fd);
    if (ifd >= 0)
        close(ifd);
    free(buf);
    colio_subfile_layout_free(&l);
    return rc ? 1 : 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: colio-subfile info PATH\n"
                    "       colio-subfile join PATH OUT\n"
                    "       colio-subfile split IN PATH SUBFILES [STRIPE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "info") == 0)
        return info(argv[2]);
    if (argc == 4 && strcmp(argv[1], "join") == 0)
        return join(argv[2], argv[3]);
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "split") == 0)
        return split(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
    return usage();
}
