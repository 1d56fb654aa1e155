/* Subfile layout arithmetic and the metadata file's text format (layout.h). */
#include "subfile/layout.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arithmetic --------------------------------------------------------------- */

void colio_subfile_locate(const colio_subfile_layout_t *l, int64_t off, int *sub_p, int64_t *phys_p,
                          int64_t *stripe_end_p)
{
    int64_t s = l->stripe, k = off / s;
    *sub_p = (int)(k % l->nsub);
    *phys_p = (k / l->nsub) * s + off % s;
    *stripe_end_p = (k + 1) * s;
}

int64_t colio_subfile_logical(const colio_subfile_layout_t *l, int sub, int64_t phys)
{
    int64_t s = l->stripe, q = phys / s;
    return (q * l->nsub + sub) * s + phys % s;
}

int64_t colio_subfile_logical_end(const colio_subfile_layout_t *l, int sub, int64_t phys_size)
{
    return phys_size <= 0 ? 0 : colio_subfile_logical(l, sub, phys_size - 1) + 1;
}

int64_t colio_subfile_expected(const colio_subfile_layout_t *l, int sub, int64_t size)
{
    if (size <= 0)
        return 0;
    int64_t s = l->stripe, n = l->nsub, last = (size - 1) / s; /* last logical stripe */
    if (last < sub)
        return 0;
    int64_t mine = last - (last - sub) % n; /* this subfile's last stripe at or before it */
    int64_t q = mine / n;
    return mine == last ? q * s + (size - 1) % s + 1 : (q + 1) * s;
}

/* ---- names -------------------------------------------------------------------- */

char *colio_subfile_name(const char *path, int k)
{
    size_t len = strlen(path) + 24;
    char *name = malloc(len);
    if (name)
        snprintf(name, len, "%s.sub.%d", path, k);
    return name;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* name as written in the metadata (relative: the directory may move), resolved against path's directory. */
static char *resolve(const char *path, const char *name, size_t namelen)
{
    size_t dirlen = name[0] == '/' ? 0 : (size_t)(base_name(path) - path);
    char *out = malloc(dirlen + namelen + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, path, dirlen);
    memcpy(out + dirlen, name, namelen);
    out[dirlen + namelen] = '\0';
    return out;
}

void colio_subfile_layout_free(colio_subfile_layout_t *l)
{
    if (l->names)
        for (int k = 0; k < l->nsub; k++)
            free(l->names[k]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

int colio_subfile_layout_new(colio_subfile_layout_t *l, const char *path, int n, int64_t stripe)
{
    memset(l, 0, sizeof *l);
    l->names = calloc((size_t)n, sizeof(char *));
    if (l->names == NULL)
        return -ENOMEM;
    l->nsub = n;
    l->stripe = stripe;
    for (int k = 0; k < n; k++)
        if ((l->names[k] = colio_subfile_name(path, k)) == NULL) {
            colio_subfile_layout_free(l);
            return -ENOMEM;
        }
    return 0;
}

/* ---- metadata text -------------------------------------------------------------- */

int colio_subfile_meta_is(const char *text, size_t len)
{
    size_t m = strlen(COLIO_SUBFILE_MAGIC);
    return len > m && memcmp(text, COLIO_SUBFILE_MAGIC, m) == 0 && (text[m] == ' ' || text[m] == '\t');
}

static int fail(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return -1;
}

/* One line of the metadata, NUL-terminated in a copy. */
typedef struct meta_line {
    char text[4096];
    int no;
} meta_line_t;

static int next_line(const char **p, const char *end, meta_line_t *line)
{
    if (*p >= end)
        return 0;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = (size_t)((nl ? nl : end) - *p);
    if (n >= sizeof line->text)
        n = sizeof line->text - 1;
    memcpy(line->text, *p, n);
    line->text[n] = '\0';
    line->no++;
    *p = nl ? nl + 1 : end;
    return 1;
}

static int parse_header(const meta_line_t *line, char *msg, size_t msglen)
{
    int version = 0;
    char magic[32];
    if (sscanf(line->text, "%31s %d", magic, &version) != 2 || strcmp(magic, COLIO_SUBFILE_MAGIC) != 0)
        return fail(msg, msglen, "line 1 is not \"%s <version>\"", COLIO_SUBFILE_MAGIC);
    if (version != COLIO_SUBFILE_FORMAT)
        return fail(msg, msglen, "format version %d, this colio reads version %d", version, COLIO_SUBFILE_FORMAT);
    return 0;
}

/* "subfile K NAME": the name of subfile K. */
static int parse_subfile(const meta_line_t *line, const char *path, colio_subfile_layout_t *l, char *msg,
                         size_t msglen)
{
    int k = -1, at = 0;
    if (l->names == NULL)
        return fail(msg, msglen, "line %d: a subfile before the subfile count", line->no);
    if (sscanf(line->text, "subfile %d %n", &k, &at) != 1 || at == 0 || line->text[at] == '\0')
        return fail(msg, msglen, "line %d: expected \"subfile <index> <name>\"", line->no);
    if (k < 0 || k >= l->nsub)
        return fail(msg, msglen, "line %d: subfile index %d out of range 0..%d", line->no, k, l->nsub - 1);
    if (l->names[k])
        return fail(msg, msglen, "line %d: subfile %d named twice", line->no, k);
    const char *name = line->text + at;
    size_t n = strcspn(name, " \t\r");
    if ((l->names[k] = resolve(path, name, n)) == NULL)
        return fail(msg, msglen, "out of memory");
    return 0;
}

static int parse_key(const meta_line_t *line, const char *path, colio_subfile_layout_t *l, char *msg,
                     size_t msglen)
{
    char key[32];
    int64_t v = 0;
    if (sscanf(line->text, "%31s", key) != 1 || key[0] == '#')
        return 0; /* blank or comment */
    if (strcmp(key, "subfile") == 0)
        return parse_subfile(line, path, l, msg, msglen);
    if (sscanf(line->text, "%*s %" SCNd64, &v) != 1)
        return fail(msg, msglen, "line %d: key %s without a number", line->no, key);
    if (strcmp(key, "stripe") == 0) {
        if (v <= 0)
            return fail(msg, msglen, "line %d: stripe must be positive", line->no);
        l->stripe = v;
    } else if (strcmp(key, "logical_size") == 0) {
        if (v < 0)
            return fail(msg, msglen, "line %d: negative logical_size", line->no);
        l->size = v;
    } else if (strcmp(key, "subfiles") == 0) {
        if (v < 1 || v > COLIO_SUBFILE_MAX || l->names)
            return fail(msg, msglen, "line %d: subfile count must be 1..%d and given once", line->no,
                        COLIO_SUBFILE_MAX);
        l->nsub = (int)v;
        if ((l->names = calloc((size_t)v, sizeof(char *))) == NULL)
            return fail(msg, msglen, "out of memory");
    }
    return 0; /* unknown keys: for later versions that stay readable */
}

int colio_subfile_meta_parse(const char *text, size_t len, const char *path, colio_subfile_layout_t *l,
                             char *msg, size_t msglen)
{
    memset(l, 0, sizeof *l);
    const char *p = text, *end = text + len;
    meta_line_t line = {.no = 0};
    int rc = next_line(&p, end, &line) ? parse_header(&line, msg, msglen) : fail(msg, msglen, "empty");
    while (rc == 0 && next_line(&p, end, &line))
        rc = parse_key(&line, path, l, msg, msglen);
    if (rc == 0 && (l->nsub == 0 || l->stripe == 0))
        rc = fail(msg, msglen, "the subfile count or the stripe is missing");
    for (int k = 0; rc == 0 && k < l->nsub; k++)
        if (l->names[k] == NULL)
            rc = fail(msg, msglen, "subfile %d is not named", k);
    if (rc != 0)
        colio_subfile_layout_free(l);
    return rc;
}

char *colio_subfile_meta_format(const colio_subfile_layout_t *l, const char *path)
{
    size_t cap = 512 + (size_t)l->nsub * (strlen(base_name(path)) + 48), n = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    n += (size_t)snprintf(out + n, cap - n,
                          "%s %d\n"
                          "# One logical file stored as the subfiles below; this file holds no data.\n"
                          "# Logical stripe k is stripe k/subfiles of subfile k%%subfiles.\n"
                          "# colio reads it transparently; colio-subfile join makes one ordinary file.\n"
                          "stripe %" PRId64 "\nlogical_size %" PRId64 "\nsubfiles %d\n",
                          COLIO_SUBFILE_MAGIC, COLIO_SUBFILE_FORMAT, l->stripe, l->size, l->nsub);
    for (int k = 0; k < l->nsub && n < cap; k++) {
        /* written relative to the metadata's directory when they share it */
        const char *name = l->names[k];
        size_t dirlen = (size_t)(base_name(path) - path);
        if (strncmp(name, path, dirlen) == 0 && !strchr(name + dirlen, '/'))
            name += dirlen;
        n += (size_t)snprintf(out + n, cap - n, "subfile %d %s\n", k, name);
    }
    return out;
}

/* ---- the hint ---------------------------------------------------------------------- */

static int positive_int(const char *s, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < 1 || v > COLIO_SUBFILE_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

int colio_subfiles_parse(const char *text, colio_subfiles_spec_t *spec)
{
    memset(spec, 0, sizeof *spec);
    if (text[0] == '\0' || strcmp(text, "none") == 0 || strcmp(text, "disable") == 0)
        return 0;
    if (strcmp(text, "node") == 0)
        return spec->mode = COLIO_SUBFILES_NODE, 0;
    if (strcmp(text, "ionode") == 0)
        return spec->mode = COLIO_SUBFILES_IONODE, 0;
    if (strncmp(text, "group:", 6) == 0) {
        spec->mode = COLIO_SUBFILES_GROUP;
        return positive_int(text + 6, &spec->n);
    }
    spec->mode = COLIO_SUBFILES_COUNT;
    return positive_int(text, &spec->n);
}
