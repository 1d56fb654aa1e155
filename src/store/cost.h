/*
 * What storage calls cost on a file system, the storage terms of the
 * per-call path choice (engine/strategy.c, engine/model.h; docs/DESIGN.md,
 * "Call paths"): seconds per call and bytes per second for writes
 * and reads, the node's memory copy bandwidth, and what a second stream
 * running at once adds. Measured once per file system by a short probe
 * (rank 0, at the first open that needs it), kept for the process and in a
 * cache file (hint colio_storage_cache, environment COLIO_STORAGE_CACHE),
 * or given by the hint colio_storage_model. The probe also learns whether the
 * file system takes O_DIRECT and how fast, which the automatic value of
 * direct_write / direct_read follows (colio_figures_direct).
 */
#ifndef COLIO_STORE_COST_H
#define COLIO_STORE_COST_H

#include <stdint.h>

typedef struct colio_store_figures {
    double write_call, write_bw; /* seconds per write call (beyond its bytes), bytes per second */
    double read_call, read_bw;   /* the same for reads */
    double copy_bw;              /* memcpy bytes per second: packing, sieving, shared-memory messages */
    double write_streams;        /* bytes: aggregate speed of two concurrent writers over one: 0.25 .. 1
                                    (serialised, or worse: they contend) .. 2 (independent) */
    double read_streams;         /* ... of two concurrent readers */
    double write_call_streams;   /* calls: the same for small calls (their cost per call overlaps or not) */
    double read_call_streams;
    double flushed_write_bw;     /* bytes per second of a big buffered write and its fdatasync (-1: unknown) */
    double direct_write_bw;      /* bytes per second of big aligned writes with O_DIRECT: 0 where the file
                                    system refuses direct I/O, -1 not measured (figures given without it) */
    double direct_read_bw;       /* ... of reads */
    double direct_write_call;    /* seconds per aligned 4 KiB O_DIRECT write beyond its bytes (-1: unknown) */
    double direct_read_call;     /* ... read */
    int shared;                  /* a network file system: every node adds its own client's bandwidth */
    int fixed;                   /* no model: the fixed rules choose (colio_storage_model=off, or storage
                                    without a cost, as the null backend without colio_null_latency) */
} colio_store_figures_t;

/* The words an agreement carries them in (int64_t each): picoseconds, bytes/s, thousandths. */
#define COLIO_FIGURES_WORDS 16
void colio_figures_pack(const colio_store_figures_t *f, int64_t w[COLIO_FIGURES_WORDS]);
void colio_figures_unpack(const int64_t w[COLIO_FIGURES_WORDS], colio_store_figures_t *f);

/* Figures of a typical parallel file system, for storage that cannot be probed. */
void colio_figures_default(colio_store_figures_t *f);

/*
 * colio_storage_model: "probe", "off", or figures as "write_call=S,write_bw=B,
 * read_call=S,read_bw=B,copy_bw=B,write_streams=X,read_streams=X,write_call_streams=X,
 * read_call_streams=X,flushed_write_bw=B,direct_write_bw=B,direct_read_bw=B,direct_write_call=S,direct_read_call=S,shared=0|1"
 * (any subset, the rest from colio_figures_default; units: seconds and
 * bytes per second, k/M/G suffixes allowed on bandwidths). 0, or -1 when
 * the text is none of these; *given is set when it names figures (then *f
 * holds them).
 */
int colio_figures_parse(const char *spec, colio_store_figures_t *f, int *given);

/*
 * What the automatic value of direct_write / direct_read takes from f: the
 * bytes from which a storage write (read) costs less with O_DIRECT than
 * buffered, by the figures; INT64_MAX (none) unless the probe measured the
 * file system's big direct calls clearly faster than its buffered ones. A
 * buffered write is charged its flush (flushed_write_bw, where measured):
 * its bytes reach the device all the same, after the call or at the sync.
 */
void colio_figures_direct(const colio_store_figures_t *f, int64_t *write_min, int64_t *read_min);

/* Writes (reads) costed as O_DIRECT calls from now on, where the direct figures were measured. */
void colio_figures_as_direct(colio_store_figures_t *f, int writes, int reads);

/* One line of text for messages and the statistics: "write 1.2us+2.5GB/s, read ...". */
void colio_figures_describe(const colio_store_figures_t *f, char *buf, int len);

/*
 * The figures of the file system holding path, a file open there: kept by
 * this process, else read from the cache file, else measured by the probe
 * (a scratch file created and unlinked at once in path's directory) and
 * written to the cache file. cache: the hint colio_storage_cache ("" for
 * COLIO_STORAGE_CACHE or $XDG_CACHE_HOME/colio/storage-figures, "none": no
 * file). 0, or -errno when the directory cannot hold a scratch file (then
 * the defaults are kept for this file system and returned).
 */
int colio_figures_of_path(const char *path, const char *cache, colio_store_figures_t *f);

/* The cache file's name for a colio_storage_cache value (NULL: none); buf holds it. */
const char *colio_figures_cache_file(const char *cache, char *buf, int len);
/* Read the figures kept under key in file (0 when found); write or replace them (0 or -errno). */
int colio_figures_cache_get(const char *file, const char *key, colio_store_figures_t *f);
int colio_figures_cache_put(const char *file, const char *key, const colio_store_figures_t *f);

#endif
