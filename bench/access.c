/* Building a rank's access (sorted pieces + a matching view) and the content generator. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int bench_access_alloc(bench_access_t *a, int64_t n)
{
    memset(a, 0, sizeof *a);
    a->filetype = MPI_DATATYPE_NULL;
    a->cap = n + 1;
    a->off = malloc(sizeof(MPI_Offset) * (size_t)a->cap);
    a->len = malloc(sizeof(MPI_Offset) * (size_t)a->cap);
    return a->off && a->len ? 0 : -1;
}

int bench_access_push(bench_access_t *a, int64_t off, int64_t len)
{
    if (len <= 0)
        return 0;
    if (a->n > 0 && a->off[a->n - 1] + a->len[a->n - 1] == off) {
        a->len[a->n - 1] += len;
        return 0;
    }
    if (a->n == a->cap) {
        int64_t cap = 2 * a->cap;
        MPI_Offset *o = realloc(a->off, sizeof *o * (size_t)cap);
        if (o)
            a->off = o;
        MPI_Offset *l = o ? realloc(a->len, sizeof *l * (size_t)cap) : NULL;
        if (!l)
            return -1;
        a->len = l;
        a->cap = cap;
    }
    a->off[a->n] = off;
    a->len[a->n] = len;
    a->n++;
    return 0;
}

typedef struct { MPI_Offset off, len; } pair_t;

static int by_offset(const void *x, const void *y)
{
    MPI_Offset a = ((const pair_t *)x)->off, b = ((const pair_t *)y)->off;
    return (a > b) - (a < b);
}

/* Sort by offset (generators may emit in any order), merge, reject overlap. */
static int normalize(bench_access_t *a, char *err, size_t errlen)
{
    int sorted = 1;
    for (int64_t i = 1; i < a->n && sorted; i++)
        sorted = a->off[i] >= a->off[i - 1];
    if (!sorted) {
        pair_t *p = malloc(sizeof *p * (size_t)a->n);
        if (p == NULL)
            return snprintf(err, errlen, "out of memory"), -1;
        for (int64_t i = 0; i < a->n; i++)
            p[i] = (pair_t){a->off[i], a->len[i]};
        qsort(p, (size_t)a->n, sizeof *p, by_offset);
        for (int64_t i = 0; i < a->n; i++)
            a->off[i] = p[i].off, a->len[i] = p[i].len;
        free(p);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < a->n; i++) {
        if (k > 0 && a->off[i] < a->off[k - 1] + a->len[k - 1])
            return snprintf(err, errlen, "workload bug: pieces overlap at %lld", (long long)a->off[i]), -1;
        if (k > 0 && a->off[k - 1] + a->len[k - 1] == a->off[i])
            a->len[k - 1] += a->len[i];
        else
            a->off[k] = a->off[i], a->len[k] = a->len[i], k++;
    }
    a->n = k;
    a->bytes = 0;
    for (int64_t i = 0; i < k; i++)
        a->bytes += a->len[i];
    return 0;
}

/* An hindexed filetype over the pieces, relative to the first one (the view's displacement). */
static int list_filetype(bench_access_t *a, char *err, size_t errlen)
{
    if (a->n > INT_MAX)
        return snprintf(err, errlen, "more than INT_MAX pieces: no MPI filetype"), -1;
    int *bl = malloc(sizeof(int) * (size_t)(a->n + 1));
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)(a->n + 1));
    a->disp = a->n ? a->off[0] : 0;
    for (int64_t i = 0; bl && d && i < a->n; i++) {
        if (a->len[i] > INT_MAX)
            return snprintf(err, errlen, "a piece over 2 GiB"), -1;
        bl[i] = (int)a->len[i];
        d[i] = (MPI_Aint)(a->off[i] - a->disp);
    }
    int rc = MPI_Type_create_hindexed((int)a->n, bl, d, MPI_BYTE, &a->filetype);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&a->filetype);
    free(bl);
    free(d);
    return rc == MPI_SUCCESS ? 0 : (snprintf(err, errlen, "cannot build the filetype"), -1);
}

int bench_access_finish(bench_access_t *a, MPI_Comm comm, char *err, size_t errlen)
{
    int rc = normalize(a, err, errlen);
    if (rc == 0 && a->filetype == MPI_DATATYPE_NULL)
        rc = list_filetype(a, err, errlen);
    if (rc == 0) {
        MPI_Count size;
        MPI_Type_size_x(a->filetype, &size);
        if (size != a->bytes)
            rc = -1, snprintf(err, errlen, "workload bug: filetype holds %lld bytes, the list %lld", (long long)size,
                              (long long)a->bytes);
    }
    int64_t mine[3] = {a->n ? a->off[a->n - 1] + a->len[a->n - 1] : 0, a->bytes, a->n}, all[3];
    MPI_Allreduce(&mine[0], &all[0], 1, MPI_INT64_T, MPI_MAX, comm);
    MPI_Allreduce(&mine[1], &all[1], 2, MPI_INT64_T, MPI_SUM, comm);
    a->file_size = all[0];
    a->total_bytes = all[1];
    a->total_pieces = all[2];
    int bad = rc != 0, anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (anybad && !bad)
        snprintf(err, errlen, "another rank failed to build its access");
    return anybad ? -1 : 0;
}

void bench_access_free(bench_access_t *a)
{
    if (a->filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&a->filetype);
    free(a->off);
    free(a->len);
    memset(a, 0, sizeof *a);
    a->filetype = MPI_DATATYPE_NULL;
}

/* splitmix64: one 64-bit word of content per 8 file bytes */
static inline uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void bench_fill(unsigned char *buf, int64_t off, int64_t len, uint64_t seed)
{
    int64_t i = 0;
    for (; i < len && ((off + i) & 7); i++)
        buf[i] = (unsigned char)(mix((uint64_t)(off + i) >> 3 ^ seed) >> (8 * ((off + i) & 7)));
    for (; i + 8 <= len; i += 8) {
        uint64_t w = mix((uint64_t)(off + i) >> 3 ^ seed);
        for (int b = 0; b < 8; b++)
            buf[i + b] = (unsigned char)(w >> (8 * b));
    }
    for (; i < len; i++)
        buf[i] = (unsigned char)(mix((uint64_t)(off + i) >> 3 ^ seed) >> (8 * ((off + i) & 7)));
}

int64_t bench_check(const unsigned char *buf, int64_t off, int64_t len, uint64_t seed)
{
    unsigned char ref[4096];
    int64_t bad = 0;
    for (int64_t at = 0; at < len; at += (int64_t)sizeof ref) {
        int64_t n = len - at < (int64_t)sizeof ref ? len - at : (int64_t)sizeof ref;
        bench_fill(ref, off + at, n, seed);
        if (memcmp(ref, buf + at, (size_t)n) != 0)
            for (int64_t i = 0; i < n; i++)
                bad += ref[i] != buf[at + i];
    }
    return bad;
}
