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
    int64_t s = l->stripe, k = off / s, rest = s - off % s;
    *sub_p = (int)(k % l->nsub);
    *phys_p = (k / l->nsub) * s + off % s;
    *stripe_end_p = off > INT64_MAX - rest ? INT64_MAX : off + rest; /* the last stripe may end past INT64_MAX */
}

int64_t colio_subfile_logical(const colio_subfile_layout_t *l, int sub, int64_t phys)
{
    int64_t s = l->stripe, q = phys / s, v;
    if (__builtin_mul_overflow(q, (int64_t)l->nsub, &v) || __builtin_add_overflow(v, (int64_t)sub, &v) ||
        __builtin_mul_overflow(v, s, &v) || __builtin_add_overflow(v, phys % s, &v))
        return INT64_MAX; /* beyond any file */
    return v;
}

int64_t colio_subfile_logical_end(const colio_subfile_layout_t *l, int sub, int64_t phys_size)
{
    if (phys_size <= 0)
        return 0;
    int64_t last = colio_subfile_logical(l, sub, phys_size - 1);
    return last == INT64_MAX ? INT64_MAX : last + 1;
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
static char *resolve(const char *path, const char *name)
{
    size_t dirlen = name[0] == '/' ? 0 : (size_t)(base_name(path) - path), namelen = strlen(name);
    char *out = malloc(dirlen + namelen + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, path, dirlen);
    memcpy(out + dirlen, name, namelen + 1);
    return out;
}

static void free_names(char **names, int n)
{
    for (int k = 0; names && k < n; k++)
        free(names[k]);
    free(names);
}

void colio_subfile_layout_free(colio_subfile_layout_t *l)
{
    free_names(l->names, l->nsub);
    free_names(l->written, l->nsub);
    memset(l, 0, sizeof *l);
}

static int alloc_names(colio_subfile_layout_t *l, int n)
{
    l->names = calloc((size_t)n, sizeof(char *));
    l->written = calloc((size_t)n, sizeof(char *));
    l->nsub = n;
    return l->names && l->written ? 0 : -ENOMEM;
}

int colio_subfile_layout_new(colio_subfile_layout_t *l, const char *path, int n, int64_t stripe)
{
    memset(l, 0, sizeof *l);
    l->stripe = stripe;
    int rc = alloc_names(l, n);
    for (int k = 0; rc == 0 && k < n; k++) {
        l->names[k] = colio_subfile_name(path, k);
        l->written[k] = l->names[k] ? strdup(base_name(l->names[k])) : NULL;
        rc = l->names[k] && l->written[k] ? 0 : -ENOMEM;
    }
    if (rc != 0)
        colio_subfile_layout_free(l);
    return rc;
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

/* One line of the metadata, NUL-terminated in a copy, without its '\r'. */
typedef struct meta_line {
    char text[4096];
    int no;
} meta_line_t;

/* 1: a line; 0: the end; -1: a line too long (a silent cut could change a name or a number). */
static int next_line(const char **p, const char *end, meta_line_t *line)
{
    if (*p >= end)
        return 0;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = (size_t)((nl ? nl : end) - *p);
    line->no++;
    if (n >= sizeof line->text)
        return -1;
    memcpy(line->text, *p, n);
    if (n > 0 && line->text[n - 1] == '\r')
        n--;
    line->text[n] = '\0';
    *p = nl ? nl + 1 : end;
    return 1;
}

/* A whole decimal integer, optional spaces around it, nothing else ("4m" is refused). */
static int whole_int64(const char *s, int64_t *v)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    while (end && (*end == ' ' || *end == '\t'))
        end++;
    if (errno || end == s || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

static int parse_header(const meta_line_t *line, char *msg, size_t msglen)
{
    size_t m = strlen(COLIO_SUBFILE_MAGIC);
    int64_t version = 0;
    if (strncmp(line->text, COLIO_SUBFILE_MAGIC, m) != 0 || (line->text[m] != ' ' && line->text[m] != '\t') ||
        whole_int64(line->text + m + 1, &version) != 0)
        return fail(msg, msglen, "line 1 is not \"%s <version>\"", COLIO_SUBFILE_MAGIC);
    if (version != COLIO_SUBFILE_FORMAT)
        return fail(msg, msglen, "format version %lld, this colio reads version %d", (long long)version,
                    COLIO_SUBFILE_FORMAT);
    return 0;
}

/* "subfile K NAME": the name of subfile K, the rest of the line (spaces included). */
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
    if ((l->written[k] = strdup(line->text + at)) == NULL || (l->names[k] = resolve(path, l->written[k])) == NULL)
        return fail(msg, msglen, "out of memory");
    return 0;
}

/* The keys with a number: stripe, logical_size, subfiles. */
static int parse_number(const meta_line_t *line, const char *key, colio_subfile_layout_t *l, int64_t *seen,
                        char *msg, size_t msglen)
{
    int64_t v = 0;
    if (whole_int64(line->text + strlen(key), &v) != 0)
        return fail(msg, msglen, "line %d: %s needs one whole number of bytes or subfiles", line->no, key);
    if (strcmp(key, "stripe") == 0) {
        if (v <= 0 || v > COLIO_SUBFILE_STRIPE_MAX)
            return fail(msg, msglen, "line %d: stripe must be 1..%lld", line->no, (long long)COLIO_SUBFILE_STRIPE_MAX);
        l->stripe = v, seen[0] = 1;
    } else if (strcmp(key, "logical_size") == 0) {
        if (v < 0)
            return fail(msg, msglen, "line %d: negative logical_size", line->no);
        l->size = v, seen[1] = 1;
    } else {
        if (v < 1 || v > COLIO_SUBFILE_MAX || l->names)
            return fail(msg, msglen, "line %d: the subfile count must be 1..%d and given once", line->no,
                        COLIO_SUBFILE_MAX);
        if (alloc_names(l, (int)v) != 0)
            return fail(msg, msglen, "out of memory");
    }
    return 0;
}

static int parse_key(const meta_line_t *line, const char *path, colio_subfile_layout_t *l, int64_t *seen, char *msg,
                     size_t msglen)
{
    static const char *const numbers[] = {"stripe", "logical_size", "subfiles"};
    char key[32];
    if (sscanf(line->text, "%31s", key) != 1 || key[0] == '#')
        return 0; /* blank or comment */
    if (strcmp(key, "subfile") == 0)
        return parse_subfile(line, path, l, msg, msglen);
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++)
        if (strcmp(key, numbers[i]) == 0)
            return parse_number(line, numbers[i], l, seen, msg, msglen);
    return 0; /* unknown keys: for later versions that stay readable */
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every subfile named, no two the same file by name, none the metadata file itself. */
static int check_names(const colio_subfile_layout_t *l, const char *path, char *msg, size_t msglen)
{
    for (int k = 0; k < l->nsub; k++)
        if (l->names[k] == NULL)
            return fail(msg, msglen, "subfile %d is not named", k);
    char **sorted = malloc(sizeof(char *) * (size_t)l->nsub);
    if (sorted == NULL)
        return fail(msg, msglen, "out of memory");
    memcpy(sorted, l->names, sizeof(char *) * (size_t)l->nsub);
    qsort(sorted, (size_t)l->nsub, sizeof(char *), by_name);
    int rc = 0;
    for (int k = 0; k < l->nsub && rc == 0; k++)
        if (strcmp(sorted[k], path) == 0 || (k > 0 && strcmp(sorted[k], sorted[k - 1]) == 0))
            rc = fail(msg, msglen, "subfile name %s is used twice or names the metadata file", sorted[k]);
    free(sorted);
    return rc;
}

int colio_subfile_meta_parse(const char *text, size_t len, const char *path, colio_subfile_layout_t *l,
                             char *msg, size_t msglen)
{
    meta_line_t line;
    static const char *const required[] = {"stripe", "logical_size", "subfiles"};
    memset(l, 0, sizeof *l);
    const char *p = text, *end = text + len;
    int64_t seen[3] = {0, 0, 0};
    line.no = 0;
    int got = next_line(&p, end, &line);
    int rc = got > 0 ? parse_header(&line, msg, msglen) : fail(msg, msglen, "empty");
    while (rc == 0 && (got = next_line(&p, end, &line)) > 0)
        rc = parse_key(&line, path, l, seen, msg, msglen);
    if (rc == 0 && got < 0)
        rc = fail(msg, msglen, "line %d is longer than %zu characters", line.no, sizeof line.text - 1);
    seen[2] = l->names != NULL;
    for (int i = 0; rc == 0 && i < 3; i++)
        if (!seen[i])
            rc = fail(msg, msglen, "no %s line", required[i]);
    if (rc == 0)
        rc = check_names(l, path, msg, msglen);
    if (rc != 0)
        colio_subfile_layout_free(l);
    return rc;
}

char *colio_subfile_meta_format(const colio_subfile_layout_t *l, const char *path)
{
    (void)path;
    size_t cap = 512, n = 0;
    for (int k = 0; k < l->nsub; k++)
        cap += strlen(l->written[k]) + 32;
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
    for (int k = 0; k < l->nsub; k++) /* names exactly as read: a rewrite keeps them */
        n += (size_t)snprintf(out + n, cap - n, "subfile %d %s\n", k, l->written[k]);
    if (n >= cap) { /* cannot happen with the size above; never hand out a cut text */
        free(out);
        return NULL;
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
