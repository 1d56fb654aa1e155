/*
 * Direct I/O (direct_write / direct_read, store/posix.c): storage calls move
 * their whole blocks through an O_DIRECT descriptor and their unaligned
 * edges through the ordinary one. Every rank writes, through each path a
 * write takes (aggregated rounds, the direct path, automatic), pieces that
 * are block-aligned, pieces that start or end inside a block next to an
 * aligned one, pieces smaller than a block, a piece past the end of the
 * file, from memory on and off the alignment; the holes between them must
 * keep the prefilled bytes. The file is checked against an image computed
 * here; then read back with direct_read into memory on and off the
 * alignment, and across the end of the file (the count stops there, the
 * memory past it is untouched). Where the test's folder takes O_DIRECT
 * (an open with it succeeds, and statx, where it reports a direct-I/O
 * alignment, reports one) the open file must hold an O_DIRECT descriptor
 * (/proc/self/fdinfo); elsewhere none, as documented: buffered I/O. The
 * automatic value takes O_DIRECT where the storage figures say so (given
 * here), and none where they measured no direct I/O or false turned it off.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* the last piece is longer than a direct call's bounce buffer (4 MiB): memory off the alignment takes turns */
enum { BLK = 4096, BIG = (4 << 20) + 3 * BLK + 123, SLOT = 17 * BLK + BIG, NPIECES = 7, GUARD = 32 };

/* Rank r's pieces in its slot of SLOT bytes: aligned, edges inside blocks, small; the last rank's last
   one runs past the prefilled end. */
static void pieces(int r, MPI_Offset off[NPIECES], MPI_Offset len[NPIECES])
{
    int64_t s = (int64_t)r * SLOT;
    static const int64_t at[NPIECES] = {0, 2 * BLK, 3 * BLK + 100, 6 * BLK - 300, 9 * BLK + 17, 12 * BLK, 16 * BLK + 1};
    static const int64_t n[NPIECES] = {2 * BLK, BLK + 100, 2 * BLK - 100, BLK + 600, 100, 4 * BLK - 1, BIG};
    for (int j = 0; j < NPIECES; j++)
        off[j] = s + at[j], len[j] = n[j];
}

static int64_t prefilled(void) { return (int64_t)t_nprocs * SLOT - 5 * BLK + 5; }

/* Whether the folder of path takes O_DIRECT with an alignment statx reports (the test's own probe). */
static int folder_takes_direct(const char *path)
{
    char probe[600];
    snprintf(probe, sizeof probe, "%s.probe%d", path, t_rank);
    int fd = open(probe, O_CREAT | O_RDWR | O_DIRECT, 0644);
    int yes = fd >= 0;
    if (fd >= 0) {
#ifdef STATX_DIOALIGN
        struct statx sx; /* an alignment of 0 reported: no direct I/O on this file after all */
        if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN))
            yes = sx.stx_dio_offset_align > 0;
#endif
        close(fd);
    }
    unlink(probe);
    return yes;
}

/* Descriptors of this process open on path with O_DIRECT. */
static int direct_descriptors(const char *path)
{
    char want[PATH_MAX], link[300], got[PATH_MAX], info[300], line[128];
    if (realpath(path, want) == NULL)
        return -1;
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(link, got, sizeof got - 1);
        if (k <= 0)
            continue;
        got[k] = '\0';
        if (strcmp(got, want) != 0)
            continue;
        snprintf(info, sizeof info, "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(info, "r");
        unsigned flags = 0;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "flags: %o", &flags) == 1)
                break;
        if (f)
            fclose(f);
        n += (flags & O_DIRECT) != 0;
    }
    if (d)
        closedir(d);
    return n;
}

/* Memory of n bytes `shift` bytes past a 4 KiB boundary, GUARD bytes of 0xEE around it. */
static unsigned char *memory(int64_t n, int shift, unsigned char **base)
{
    if (posix_memalign((void **)base, BLK, (size_t)(n + BLK + 2 * GUARD)) != 0)
        return NULL;
    memset(*base, 0xEE, (size_t)(n + BLK + 2 * GUARD));
    return *base + GUARD + shift;
}

static void write_and_check(const char *path, const char *direct_hints, const char *path_hints, int shift, int salt,
                            int takes_direct)
{
    char hints[384], what[448];
    snprintf(hints, sizeof hints, "%s%s%s", direct_hints, path_hints[0] ? ";" : "", path_hints);
    snprintf(what, sizeof what, "%s, memory %d bytes off", hints, shift);
    test_prefill(path, prefilled());
    MPI_Offset off[NPIECES], len[NPIECES];
    pieces(t_rank, off, len);
    int64_t bytes = 0;
    for (int j = 0; j < NPIECES; j++)
        bytes += len[j];
    unsigned char *base = NULL, *m = memory(bytes, shift, &base);
    CHECK(m != NULL, "memory");
    if (m == NULL)
        return;
    for (int j = 0, at = 0; j < NPIECES; j++)
        for (int64_t i = 0; i < len[j]; i++, at++)
            m[at] = pattern_new(t_rank, off[j] + i, salt);
    colio_file *fh = test_open(path, MPI_MODE_RDWR, hints);
    if (fh == NULL) {
        free(base);
        return;
    }
    int nd = direct_descriptors(path), any = 0;
    MPI_Allreduce(&nd, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(takes_direct ? any > 0 : any == 0, "%s: %d O_DIRECT descriptors where the folder %s O_DIRECT", what, any,
          takes_direct ? "takes" : "does not take");
    CHECK_RC(tu_write_list_all(fh, NPIECES, off, len, m), COLIO_SUCCESS, fh);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);

    /* the image: the prefill, every rank's pieces over it */
    int64_t size = prefilled(), end = 0;
    for (int r = 0; r < t_nprocs; r++) {
        MPI_Offset o[NPIECES], l[NPIECES];
        pieces(r, o, l);
        for (int j = 0; j < NPIECES; j++)
            end = o[j] + l[j] > end ? o[j] + l[j] : end;
    }
    size = end > size ? end : size;
    unsigned char *image = malloc((size_t)size);
    for (int64_t i = 0; i < size; i++)
        image[i] = i < prefilled() ? pattern_old(i) : 0;
    for (int r = 0; r < t_nprocs; r++) {
        MPI_Offset o[NPIECES], l[NPIECES];
        pieces(r, o, l);
        for (int j = 0; j < NPIECES; j++)
            for (int64_t i = 0; i < l[j]; i++)
                image[o[j] + i] = pattern_new(r, o[j] + i, salt);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    test_check_file(path, image, size, what);

    /* read back with direct_read: the pieces, then across the end of the file */
    fh = test_open(path, MPI_MODE_RDONLY, hints);
    if (fh != NULL) {
        memset(base, 0xEE, (size_t)(bytes + BLK + 2 * GUARD));
        CHECK_RC(tu_read_list_all(fh, NPIECES, off, len, m), COLIO_SUCCESS, fh);
        int64_t bad = 0;
        for (int j = 0, at = 0; j < NPIECES; j++)
            for (int64_t i = 0; i < len[j]; i++, at++)
                bad += m[at] != image[off[j] + i];
        int guards = 1;
        for (int g = 1; g <= GUARD; g++)
            guards &= m[-g] == 0xEE && m[bytes + g - 1] == 0xEE;
        CHECK(bad == 0 && guards, "%s: read back %lld wrong bytes, guards %s", what, (long long)bad,
              guards ? "kept" : "overwritten");
        /* each rank 3 blocks from 2 blocks + 7 before the end: the count stops at the end of file */
        int64_t from = size - 2 * BLK - 7 - t_rank, want = 3 * BLK;
        memset(base, 0xEE, (size_t)(bytes + BLK + 2 * GUARD));
        MPI_Status st;
        CHECK_RC(tu_read_at_all(fh, from, m, want, MPI_BYTE, &st), COLIO_SUCCESS, fh);
        MPI_Count got = -1;
        MPI_Get_elements_x(&st, MPI_BYTE, &got);
        CHECK(got == size - from, "%s: read across the end of file got %lld bytes, expected %lld", what,
              (long long)got, (long long)(size - from));
        bad = 0;
        for (int64_t i = 0; i < want; i++)
            bad += m[i] != (i < size - from ? image[from + i] : 0xEE);
        CHECK(bad == 0, "%s: read across the end of file: %lld wrong bytes", what, (long long)bad);
        colio_close(&fh);
    }
    free(image);
    free(base);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char path[512];
    test_path(path, sizeof path, "direct");
    int mine = folder_takes_direct(path), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    static const char *paths[] = {
        "romio_cb_write=enable;romio_cb_read=enable;colio_round_size=20000",
        "romio_cb_write=enable;romio_cb_read=enable;cb_nodes=1",
        "romio_cb_write=disable;romio_cb_read=disable",
        "",
    };
    int salt = 1;
    for (size_t c = 0; c < sizeof paths / sizeof paths[0]; c++)
        for (int shift = 0; shift < 4096; shift += 2048 + 17)
            write_and_check(path, "direct_write=true;direct_read=true", paths[c], (shift + 8 * t_rank) % 4096, salt++,
                            all);
    /* automatic: O_DIRECT as the storage figures say, here given; figures of a file system without it: none */
    write_and_check(path, "colio_storage_model=direct_write_bw=1e12,direct_read_bw=1e12,direct_write_call=0,"
                    "direct_read_call=0", "", 8 * t_rank + 1, salt++, all);
    write_and_check(path, "colio_storage_model=direct_write_bw=0,direct_read_bw=0", "", 8 * t_rank, salt++, 0);
    write_and_check(path, "direct_write=false;direct_read=false;colio_storage_model=direct_write_bw=1e12,"
                    "direct_read_bw=1e12", "", 8 * t_rank, salt++, 0);
    test_unlink(path);
    return test_finish("test_direct");
}
