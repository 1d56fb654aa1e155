/*
 * Inputs of the E3SM-IO workload: decomposition maps (NetCDF classic CDF-1,
 * CDF-2 or CDF-5 files written by E3SM-IO's dat2decomp) and output headers
 * (the text `ncdump -h` prints). Both readers are small and self-contained:
 * the benchmark needs no NetCDF library.
 */
#ifndef COLIO_BENCH_E3SM_INPUT_H
#define COLIO_BENCH_E3SM_INPUT_H

#include <stddef.h>
#include <stdint.h>

#define E3SM_MAX_DIMS 8

/* One decomposition Dk: which elements of a (ndims)-array each map process owns. */
typedef struct e3sm_decomp {
    int ndims;
    int64_t dims[E3SM_MAX_DIMS];  /* slowest first */
    int nprocs;                   /* processes of the run the map comes from */
    int64_t *nreqs;               /* nprocs: requests of each process */
    int64_t *first;               /* nprocs: index of each process's first request */
    int64_t *offsets, *lengths;   /* total: flattened element index and run length */
    int64_t total;
} e3sm_decomp_t;

typedef struct e3sm_map {
    int ndecomp;
    e3sm_decomp_t *d;
} e3sm_map_t;

int e3sm_map_read(const char *path, e3sm_map_t *map, char *err, size_t errlen);
void e3sm_map_free(e3sm_map_t *map);

typedef struct cdl_dim {
    char name[128];
    int64_t size;     /* 0 for the record (UNLIMITED) dimension */
    int64_t records;  /* record dimension: the "(N currently)" count, at least 1 */
} cdl_dim_t;

typedef struct cdl_var {
    char name[128];
    int elem_size;    /* bytes per element: 1 char/byte, 2 short, 4 int/float, 8 double/int64 */
    int ndims;
    int dim[E3SM_MAX_DIMS]; /* indices into the header's dims */
    int decomp_id;    /* attribute decomp_id (1-based) when the header gives it, else 0 */
} cdl_var_t;

typedef struct cdl_header {
    int ndims, nvars;
    cdl_dim_t *dims;
    cdl_var_t *vars;
    int record_dim;   /* index of the UNLIMITED dimension, -1 if none */
} cdl_header_t;

int cdl_read(const char *path, cdl_header_t *h, char *err, size_t errlen);
void cdl_free(cdl_header_t *h);

#endif
