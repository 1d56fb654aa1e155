/*
 * Views: every datatype kind as filetype and as memtype, under several hint
 * sets (many rounds, every rank an aggregator, direct path, data sieving on
 * and off, striping alignment). Each case writes through colio in two calls
 * (so the file pointer must advance across partial tiles), checks the whole
 * file against MPI_Unpack of the stream through the filetype over the old
 * content (holes keep it), then reads back in two calls and checks memory,
 * including the gaps of the memtype, against MPI_Unpack through the memtype.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct ftype {
    const char *name;
    MPI_Datatype type;
    MPI_Offset disp;
    MPI_Datatype etype;
} ftype_t;

static MPI_Datatype commit(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, extent, &r);
    MPI_Type_free(&t);
    return r;
}

/* Indexed layouts: piece j of len(j) units, owned by owner(j) (-1: a hole). */
static int piece_len(int j, int mod) { return j % mod + 1; }

static MPI_Datatype irregular(int bytes, int npieces, int mod, int mult, int add, int hole_every, int *total_p)
{
    int *bl = malloc(sizeof(int) * (size_t)npieces), *di = malloc(sizeof(int) * (size_t)npieces);
    MPI_Aint *hd = malloc(sizeof(MPI_Aint) * (size_t)npieces);
    int n = 0, at = 0;
    for (int j = 0; j < npieces; j++) {
        int owner = (hole_every && j % hole_every == hole_every - 1) ? -1 : (j * mult + add) % t_nprocs;
        if (owner == t_rank) {
            bl[n] = piece_len(j, mod);
            di[n] = at;
            hd[n] = at;
            n++;
        }
        at += piece_len(j, mod);
    }
    MPI_Datatype t;
    if (bytes)
        MPI_Type_create_hindexed(n, bl, hd, MPI_BYTE, &t);
    else
        MPI_Type_indexed(n, bl, di, MPI_INT, &t);
    *total_p = at;
    free(bl), free(di), free(hd);
    return t;
}

static int make_filetypes(ftype_t *f)
{
    int P = t_nprocs, r = t_rank, n = 0, total;
    MPI_Datatype t, u;

    MPI_Type_contiguous(700, MPI_BYTE, &t);
    f[n++] = (ftype_t){"contiguous", commit(resized(t, 700 * P)), 700 * r, MPI_BYTE};
    MPI_Type_contiguous(1, MPI_BYTE, &t);
    f[n++] = (ftype_t){"contiguous-large", commit(t), (MPI_Offset)r * (3 << 19), MPI_BYTE};

    MPI_Type_vector(8, 3, 3 * P, MPI_INT, &t);
    f[n++] = (ftype_t){"vector", commit(resized(t, 8 * 3 * P * 4)), 3 * 4 * r, MPI_BYTE};

    MPI_Type_create_hvector(10, 3, 3 * P + 1, MPI_BYTE, &t);
    f[n++] = (ftype_t){"hvector-holes", commit(resized(t, 10 * (3 * P + 1))), 3 * r, MPI_BYTE};

    t = irregular(0, 20, 4, 3, 1, 0, &total);
    f[n++] = (ftype_t){"indexed", commit(resized(t, total * 4)), 0, MPI_BYTE};

    t = irregular(1, 40, 7, 5, 2, 9, &total);
    f[n++] = (ftype_t){"hindexed-bytes-holes", commit(resized(t, total)), 0, MPI_BYTE};

    int slots[16], ns = 0;
    for (int s = 0; s < 16; s++)
        if (s % (P + 1) == r) /* slot P of every P+1 is a hole */
            slots[ns++] = 2 * s;
    MPI_Type_create_indexed_block(ns, 2, slots, MPI_INT, &t);
    f[n++] = (ftype_t){"indexed_block", commit(resized(t, 16 * 2 * 4)), 0, MPI_BYTE};

    MPI_Aint hs[16];
    ns = 0;
    for (int s = 0; s < 16; s++)
        if (s % P == r)
            hs[ns++] = 6 * s;
    MPI_Type_create_hindexed_block(ns, 5, hs, MPI_BYTE, &t);
    f[n++] = (ftype_t){"hindexed_block", commit(resized(t, 16 * 6)), 0, MPI_BYTE};

    int sbl[2] = {1, 1};
    MPI_Aint sd[2] = {16 * r, 16 * r + 8};
    MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, sbl, sd, st, &t);
    f[n++] = (ftype_t){"struct-holes", commit(resized(t, 16 * P)), 0, MPI_BYTE};

    int g2[2] = {6, 4 * P}, s2[2] = {6, 4}, o2[2] = {0, 4 * r};
    MPI_Type_create_subarray(2, g2, s2, o2, MPI_ORDER_C, MPI_INT, &t);
    f[n++] = (ftype_t){"subarray-c", commit(t), 0, MPI_BYTE};

    int g2f[2] = {4 * P, 6}, s2f[2] = {4, 6}, o2f[2] = {4 * r, 0};
    MPI_Type_create_subarray(2, g2f, s2f, o2f, MPI_ORDER_FORTRAN, MPI_INT, &t);
    f[n++] = (ftype_t){"subarray-fortran", commit(t), 0, MPI_BYTE};

    int g3[3] = {3, 4, 2 * P}, s3[3] = {3, 4, 2}, o3[3] = {0, 0, 2 * r};
    MPI_Type_create_subarray(3, g3, s3, o3, MPI_ORDER_C, MPI_SHORT, &t);
    f[n++] = (ftype_t){"subarray-3d", commit(t), 0, MPI_BYTE};

    int dims[2] = {0, 0};
    MPI_Dims_create(P, 2, dims);
    int gd[2] = {8, 6}, db[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int dd[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(P, r, 2, gd, db, dd, dims, MPI_ORDER_C, MPI_INT, &t);
    f[n++] = (ftype_t){"darray-block-c", commit(t), 0, MPI_BYTE};

    int gc[2] = {7, 5}, dc[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, ac[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(P, r, 2, gc, dc, ac, dims, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    f[n++] = (ftype_t){"darray-cyclic-fortran", commit(t), 0, MPI_BYTE};

    int gn[2] = {5, 4 * P}, dn[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC}, an[2] = {0, 1}, pn[2] = {1, P};
    an[0] = MPI_DISTRIBUTE_DFLT_DARG;
    MPI_Type_create_darray(P, r, 2, gn, dn, an, pn, MPI_ORDER_C, MPI_FLOAT, &t);
    f[n++] = (ftype_t){"darray-none-cyclic", commit(t), 0, MPI_BYTE};

    MPI_Type_create_hvector(2, 1, 3, MPI_SHORT, &u); /* 2 shorts at 0 and 3: size 4, extent 5 */
    u = resized(u, 6);
    MPI_Type_vector(4, 1, P, u, &t);
    MPI_Type_free(&u);
    t = resized(t, 4 * P * 6);
    MPI_Type_dup(t, &u);
    MPI_Type_free(&t);
    f[n++] = (ftype_t){"nested-dup", commit(u), 6 * r, MPI_BYTE};

    MPI_Type_create_hvector(3, 1, 8 * P, MPI_SHORT_INT, &t); /* pair type with padding */
    f[n++] = (ftype_t){"pair-type", commit(resized(t, 24 * P)), 8 * r, MPI_BYTE};

    MPI_Type_vector(6, 2, 2 * P, MPI_INT, &t);
    f[n++] = (ftype_t){"etype-int", commit(resized(t, 6 * 2 * P * 4)), 2 * 4 * r, MPI_INT};

#if MPI_VERSION >= 4
    MPI_Type_vector_c(5, 2, 2 * P, MPI_INT, &t);
    f[n++] = (ftype_t){"large-count-vector", commit(resized(t, 5 * 2 * P * 4)), 2 * 4 * r, MPI_BYTE};
#endif
    return n;
}

typedef struct mtype {
    const char *name;
    MPI_Datatype type;
    MPI_Aint front; /* bytes before the buffer pointer the type may touch (negative lb) */
} mtype_t;

static int make_memtypes(mtype_t *m)
{
    int n = 0;
    MPI_Datatype t;
    m[n++] = (mtype_t){"bytes", MPI_BYTE, 0};
    MPI_Type_vector(3, 1, 2, MPI_INT, &t);
    m[n++] = (mtype_t){"vector-int", commit(t), 0};
    int bl[2] = {4, 8};
    MPI_Aint d[2] = {16, 0};
    MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &t);
    m[n++] = (mtype_t){"hindexed-reversed", commit(resized(t, 24)), 0};
    int bn[2] = {4, 4};
    MPI_Aint dn[2] = {-8, 4};
    MPI_Type_create_hindexed(2, bn, dn, MPI_BYTE, &t);
    m[n++] = (mtype_t){"negative-lb", commit(t), 8};
    int g[2] = {4, 5}, s[2] = {2, 3}, o[2] = {1, 1};
    MPI_Type_create_subarray(2, g, s, o, MPI_ORDER_C, MPI_INT, &t);
    m[n++] = (mtype_t){"subarray", commit(t), 0};
    int sb[3] = {1, 1, 3};
    MPI_Aint sd[3] = {0, 8, 20};
    MPI_Datatype st[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, sb, sd, st, &t);
    m[n++] = (mtype_t){"struct", commit(t), 0};
    return n;
}

static const char *const hint_sets[] = {
    "",
    "cb_buffer_size=64;cb_nodes=64;colio_typed_min=1;romio_cb_read=enable",
    "cb_buffer_size=200;cb_nodes=2;romio_ds_write=disable;romio_ds_read=disable",
    "romio_cb_write=disable;romio_cb_read=disable",
    "cb_nodes=3;cb_buffer_size=1000;striping_unit=128;romio_ds_write=enable;romio_ds_read=enable;colio_typed_min=4;"
    "romio_cb_read=enable;romio_cb_write=enable",
};
#define N_HINTS ((int)(sizeof hint_sets / sizeof hint_sets[0]))

static MPI_Info make_info(const char *spec)
{
    MPI_Info info = test_info(spec);
    test_rotate_info(info);
    return info;
}

typedef struct sizes {
    int64_t count, nbytes, memspan, filesize;
} sizes_t;

/* About 2.5 tiles of the filetype, in whole memtypes and whole etypes. */
static sizes_t choose_sizes(const ftype_t *f, const mtype_t *m)
{
    int fsize, msize, esize;
    MPI_Aint lb, fext, mlb, mext;
    MPI_Type_size(f->type, &fsize);
    MPI_Type_size(m->type, &msize);
    MPI_Type_size(f->etype, &esize);
    MPI_Type_get_extent(f->type, &lb, &fext);
    MPI_Type_get_extent(m->type, &mlb, &mext);
    sizes_t s;
    int64_t target = strcmp(f->name, "contiguous-large") == 0 ? (1 << 20) + 4096 : fsize * 5 / 2;
    s.count = fsize ? target / msize : 0; /* an empty filetype: this rank writes nothing */
    while (s.count > 1 && (s.count * msize) % esize != 0)
        s.count--;
    if (fsize && (s.count * msize) % esize != 0)
        s.count = esize; /* count of esize memtypes is always whole etypes */
    s.nbytes = s.count * msize;
    s.memspan = m->front + s.count * mext + 64;
    int64_t tiles = fsize ? (s.nbytes + fsize - 1) / fsize + 1 : 0;
    int64_t span = (int64_t)f->disp + tiles * fext;
    int64_t all;
    MPI_Allreduce(&span, &all, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    s.filesize = all + 37;
    return s;
}

static int n_cases;

static void run_case(const char *path, const ftype_t *f, const mtype_t *m, const char *hints)
{
    char what[256];
    snprintf(what, sizeof what, "filetype %s, memtype %s, hints \"%s\"", f->name, m->name, hints);
    sizes_t s = choose_sizes(f, m);
    n_cases++;
    MPI_Aint mlb, mext;
    MPI_Type_get_extent(m->type, &mlb, &mext);
    int64_t c1 = s.count / 3, c2 = s.count - c1;

    /* the user's buffer and the stream it holds, according to MPI */
    unsigned char *mem = malloc((size_t)s.memspan), *stream = malloc((size_t)s.nbytes + 1);
    for (int64_t i = 0; i < s.memspan; i++)
        mem[i] = pattern_new(t_rank, i, 3);
    unsigned char *buf = mem + m->front;
    int pos = 0;
    MPI_Pack(buf, (int)s.count, m->type, stream, (int)s.nbytes, &pos, MPI_COMM_SELF);

    test_prefill(path, s.filesize);
    MPI_Info info = make_info(hints);
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    rc = colio_set_view(fh, f->disp, f->etype, f->type, MPI_INFO_NULL);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Status st;
    rc = tu_write_all(fh, buf, c1, m->type, &st);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    int got = -1;
    MPI_Get_count(&st, m->type, &got);
    CHECK(got == c1, "%s: status count %d, expected %lld", what, got, (long long)c1);
    rc = tu_write_all(fh, buf + c1 * mext, c2, m->type, MPI_STATUS_IGNORE);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Offset fp = -1;
    colio_get_position(fh, &fp);
    int esize;
    MPI_Type_size(f->etype, &esize);
    CHECK(fp == s.nbytes / esize, "%s: file pointer %lld, expected %lld", what, (long long)fp,
          (long long)(s.nbytes / esize));
    rc = colio_close(&fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);

    unsigned char *image = calloc((size_t)s.filesize, 1), *mask = calloc((size_t)s.filesize, 1);
    CHECK(view_image(f->disp, f->type, 0, stream, s.nbytes, image, mask, s.filesize) == 0, "%s: oracle", what);
    int64_t bad = verify_file_images(path, image, mask, s.filesize, what);
    CHECK(bad == 0, "%s: %lld wrong bytes in the file", what, (long long)bad);

    /* read back: memory gaps untouched, data where the memtype says */
    unsigned char *rmem = malloc((size_t)s.memspan), *expect = malloc((size_t)s.memspan);
    memset(rmem, 0xEE, (size_t)s.memspan);
    memset(expect, 0xEE, (size_t)s.memspan);
    pos = 0;
    MPI_Unpack(stream, (int)s.nbytes, &pos, expect + m->front, (int)s.count, m->type, MPI_COMM_SELF);
    rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    colio_set_view(fh, f->disp, f->etype, f->type, MPI_INFO_NULL);
    rc = tu_read_all(fh, rmem + m->front, c1, m->type, &st);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    rc = tu_read_all(fh, rmem + m->front + c1 * mext, c2, m->type, &st);
    CHECK_RC(rc, COLIO_SUCCESS, fh);
    MPI_Get_count(&st, m->type, &got);
    CHECK(got == c2, "%s: read status count %d, expected %lld", what, got, (long long)c2);
    colio_close(&fh);
    int64_t wrong = 0;
    for (int64_t i = 0; i < s.memspan; i++)
        wrong += rmem[i] != expect[i];
    CHECK(wrong == 0, "%s: %lld wrong bytes read back", what, (long long)wrong);

    MPI_Info_free(&info);
    free(mem), free(stream), free(image), free(mask), free(rmem), free(expect);
}

/*
 * A filetype naming bytes twice (displacements 0 4 4 8 8 12 12 16 per tile:
 * ints 0 1 1 2 2 3 3 4): refused on a file open for writing, read right on
 * a read-only one (MPI forbids overlap only for writing), against MPI_Pack
 * of the file through the filetype; each rank's view starts elsewhere.
 */
static void overlap_case(const char *path, const char *hints)
{
    char what[160];
    snprintf(what, sizeof what, "overlapping read-only view, hints \"%s\"", hints);
    MPI_Datatype ft;
    MPI_Type_vector(4, 2, 1, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    enum { TILES = 50 };
    int64_t size = 4096 + 64L * t_nprocs, nbytes = 32L * TILES;
    MPI_Offset disp = 40 * t_rank;
    test_prefill(path, size);
    MPI_Info info = make_info(hints);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), COLIO_SUCCESS, NULL);
    expect_all(colio_set_view(fh, disp, MPI_INT, ft, MPI_INFO_NULL), COLIO_ERR_TYPE, fh, what, "read-only");
    colio_close(&fh);
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh), COLIO_SUCCESS, NULL);
    CHECK_RC(colio_set_view(fh, disp, MPI_INT, ft, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    unsigned char *image = malloc((size_t)size), *want = malloc((size_t)nbytes), *got = calloc((size_t)nbytes, 1);
    for (int64_t i = 0; i < size; i++)
        image[i] = pattern_old(i);
    CHECK(view_stream(disp, ft, 0, image, size, want, nbytes) == MPI_SUCCESS, "%s: oracle", what);
    CHECK_RC(tu_read_all(fh, got, nbytes / 4 / 2, MPI_INT, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK_RC(tu_read_all(fh, got + nbytes / 2, nbytes / 4 / 2, MPI_INT, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(memcmp(got, want, (size_t)nbytes) == 0, "%s: the bytes read differ from MPI_Pack's", what);
    colio_close(&fh);
    MPI_Info_free(&info);
    MPI_Type_free(&ft);
    free(image), free(want), free(got);
}

/*
 * colio_seek, as MPI_File_seek: SET, CUR, END (the end of file counted in
 * the view: every third int, the file 1000 bytes long holds 84 of them),
 * and a position before the start refused.
 */
static void seek_case(const char *path)
{
    test_prefill(path, 1000);
    colio_file *fh = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), COLIO_SUCCESS, NULL);
    MPI_Datatype ft;
    MPI_Type_create_resized(MPI_INT, 4, 12, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(colio_set_view(fh, 0, MPI_INT, ft, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    const struct {
        MPI_Offset off;
        int whence, rc;
        MPI_Offset want;
    } steps[] = {{5, MPI_SEEK_SET, 0, 5},   {3, MPI_SEEK_CUR, 0, 8},  {-8, MPI_SEEK_CUR, 0, 0},
                 {-1, MPI_SEEK_CUR, COLIO_ERR_ARG, 0}, {0, MPI_SEEK_END, 0, 84}, {-4, MPI_SEEK_END, 0, 80},
                 {2, 99, COLIO_ERR_ARG, 80}};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        int rc = colio_seek(fh, steps[i].off, steps[i].whence);
        MPI_Offset at = -1;
        colio_get_position(fh, &at);
        CHECK(rc == steps[i].rc && at == steps[i].want, "seek step %zu: rc %d position %lld, expected %d and %lld", i, rc,
              (long long)at, steps[i].rc, (long long)steps[i].want);
    }
    colio_close(&fh);
    MPI_Type_free(&ft);
}

/*
 * The filetype's life (MPI-4.1 sec. 14.3: the user may free it once the view
 * is set): freed at once after set_view, a duplicate of it still in use by
 * a second file, the view then replaced; every rank's ints land every p-th
 * int of the file, checked against the expectation computed here.
 */
static void freed_filetype_case(const char *path)
{
    enum { N = 64 };
    MPI_Datatype vec, ft, dup;
    MPI_Type_vector(N, 1, t_nprocs, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * N * t_nprocs, &ft);
    MPI_Type_free(&vec);
    MPI_Type_commit(&ft);
    int data[N], back[N];
    for (int i = 0; i < N; i++)
        data[i] = 1000 * t_rank + i;
    colio_file *fh = NULL, *fh2 = NULL;
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), COLIO_SUCCESS, NULL);
    CHECK_RC(colio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh2), COLIO_SUCCESS, NULL);
    MPI_Type_dup(ft, &dup);
    CHECK_RC(colio_set_view(fh, (MPI_Offset)sizeof(int) * t_rank, MPI_INT, ft, MPI_INFO_NULL), COLIO_SUCCESS, fh);
    CHECK_RC(colio_set_view(fh2, (MPI_Offset)sizeof(int) * t_rank, MPI_INT, dup, MPI_INFO_NULL), COLIO_SUCCESS, fh2);
    MPI_Type_free(&ft); /* both views must keep what they need */
    MPI_Type_free(&dup);
    CHECK_RC(colio_write_all(fh, data, N, MPI_INT, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    colio_sync(fh);
    colio_sync(fh2);
    memset(back, 0, sizeof back);
    CHECK_RC(colio_read_all(fh2, back, N, MPI_INT, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh2);
    CHECK(memcmp(back, data, sizeof data) == 0, "freed filetype: read back through the duplicate's view differs");
    CHECK_RC(colio_set_view(fh, 0, MPI_BYTE, MPI_BYTE, MPI_INFO_NULL), COLIO_SUCCESS, fh); /* drops the held flat */
    colio_close(&fh);
    colio_close(&fh2);
    if (t_rank == 0) {
        int *file = malloc(sizeof *file * (size_t)(N * t_nprocs));
        test_read_file(path, (unsigned char *)file, (int64_t)sizeof *file * N * t_nprocs);
        int bad = 0;
        for (int x = 0; x < N * t_nprocs; x++)
            bad += file[x] != 1000 * (x % t_nprocs) + x / t_nprocs;
        CHECK(bad == 0, "freed filetype: %d wrong ints in the file", bad);
        free(file);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    n_cases++;
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    /* quick: each filetype under one hint set, rotating, so every set still runs */
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    char path[512];
    test_path(path, sizeof path, "views");
    ftype_t f[32];
    mtype_t m[16];
    int nf = make_filetypes(f), nm = make_memtypes(m);

    for (int i = 0; i < nf; i++) /* every filetype under every hint set */
        for (int h = 0; h < N_HINTS; h++)
            if (!quick || h == i % N_HINTS)
                run_case(path, &f[i], &m[0], hint_sets[h]);
    const char *with_memtypes[] = {"vector", "hindexed-bytes-holes", "subarray-c", "darray-cyclic-fortran"};
    for (int j = 1; j < nm; j++) /* every memtype against a few filetypes */
        for (int i = 0; i < nf; i++)
            for (size_t k = 0; k < sizeof with_memtypes / sizeof *with_memtypes; k++)
                if (strcmp(f[i].name, with_memtypes[k]) == 0)
                    for (int h = 0; h < 2; h++)
                        if (!quick || h == (int)(j + k) % 2)
                            run_case(path, &f[i], &m[j], hint_sets[h]);
    for (int h = 0; h < N_HINTS; h++)
        if (!quick || h % 2 == 0)
            overlap_case(path, hint_sets[h]);
    seek_case(path);
    test_unlink(path);
    freed_filetype_case(path);
    test_unlink(path);
    if (t_rank == 0)
        printf("%d cases\n", n_cases);
    for (int i = 0; i < nf; i++)
        MPI_Type_free(&f[i].type);
    for (int j = 1; j < nm; j++)
        MPI_Type_free(&m[j].type);
    return test_finish("test_views");
}
