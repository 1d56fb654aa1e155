/*
 * Subfiling: one logical file stored as several physical files (TAPIOCA,
 * Tessier et al. 2017, Sec. 5.4.2 and Fig. 7: one file per Pset). The
 * logical byte range is cut into stripes of `stripe` bytes dealt round-robin
 * to the subfiles: logical stripe k lives in subfile k mod n, as that
 * subfile's stripe k div n. PATH itself becomes a small text file naming the
 * subfiles (format in docs/SUBFILING.md). Everything here is pure: no MPI,
 * no file system, so it is tested on one rank and shared with the
 * colio-subfile tool.
 */
#ifndef COLIO_SUBFILE_LAYOUT_H
#define COLIO_SUBFILE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define COLIO_SUBFILE_FORMAT 1          /* the metadata format this colio writes and reads */
#define COLIO_SUBFILE_MAGIC "colio-subfile" /* first word of the metadata file */
#define COLIO_SUBFILE_MAX 65536          /* most subfiles one file may have */
#define COLIO_SUBFILE_STRIPE_MAX ((int64_t)1 << 40) /* largest stripe, as the hint's */

typedef struct colio_subfile_layout {
    int nsub;          /* 0: an ordinary file */
    int64_t stripe;    /* bytes of one stripe (> 0) */
    int64_t size;      /* logical size the metadata records */
    char **names;      /* nsub subfile paths, resolved against PATH's directory */
    char **written;    /* the same as the metadata writes them (relative to PATH's directory, or absolute) */
} colio_subfile_layout_t;

/* Where logical byte off lives: subfile, physical offset, and the end of its stripe (logical, at most INT64_MAX). */
void colio_subfile_locate(const colio_subfile_layout_t *l, int64_t off, int *sub_p, int64_t *phys_p,
                          int64_t *stripe_end_p);
/* Logical offset of physical byte phys of subfile sub (INT64_MAX when beyond any file). */
int64_t colio_subfile_logical(const colio_subfile_layout_t *l, int sub, int64_t phys);
/* The logical end (one past the last byte) that subfile sub of phys_size bytes holds; 0 if empty. */
int64_t colio_subfile_logical_end(const colio_subfile_layout_t *l, int sub, int64_t phys_size);
/* Bytes of the logical range [0, size) that subfile sub holds: its size in a complete file. */
int64_t colio_subfile_expected(const colio_subfile_layout_t *l, int sub, int64_t size);

/* The name colio gives subfile k of PATH: "PATH.sub.k" (malloc'd). */
char *colio_subfile_name(const char *path, int k);

/* Whether text (the first bytes of a file) starts like a subfile metadata file. */
int colio_subfile_meta_is(const char *text, size_t len);
/*
 * Parse metadata text read from path; names are resolved against path's
 * directory. 0, or -1 with a message naming what is wrong in msg (the line
 * when there is one).
 */
int colio_subfile_meta_parse(const char *text, size_t len, const char *path, colio_subfile_layout_t *l,
                             char *msg, size_t msglen);
/* The metadata text for layout l of file path (malloc'd, NUL-terminated); NULL when out of memory. */
char *colio_subfile_meta_format(const colio_subfile_layout_t *l, const char *path);
/* A layout of n subfiles named after path, size 0 (names malloc'd); 0 or -ENOMEM. */
int colio_subfile_layout_new(colio_subfile_layout_t *l, const char *path, int n, int64_t stripe);
void colio_subfile_layout_free(colio_subfile_layout_t *l);

/* The hint colio_subfiles: none, N, node, group:K, ionode. */
typedef enum {
    COLIO_SUBFILES_NONE = 0,
    COLIO_SUBFILES_COUNT,  /* n subfiles */
    COLIO_SUBFILES_NODE,   /* one per node */
    COLIO_SUBFILES_GROUP,  /* one per n nodes */
    COLIO_SUBFILES_IONODE, /* one per storage target of the network model */
} colio_subfiles_mode_t;

typedef struct colio_subfiles_spec {
    colio_subfiles_mode_t mode;
    int n;
} colio_subfiles_spec_t;

/* 0, or -1 when text is not a valid value of colio_subfiles. */
int colio_subfiles_parse(const char *text, colio_subfiles_spec_t *spec);

#endif
