/* Test helpers: see testutil.h. */
#include "testutil.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int t_rank, t_nprocs, t_failures;
static long t_pid;

void test_init(int *argc, char ***argv)
{
    const char *level = getenv("COLIO_TEST_THREADS");
    if (level && strcmp(level, "multiple") == 0) {
        int provided = 0;
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(argc, argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_nprocs);
    t_pid = (long)getpid();
    MPI_Bcast(&t_pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
}

int unit_finish(const char *name)
{
    printf("%s: %s (%d failed checks)\n", name, t_failures ? "FAIL" : "PASS", t_failures);
    return t_failures ? 1 : 0;
}

int test_all_failures(void)
{
    int all = 0;
    MPI_Allreduce(&t_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

int test_finish(const char *name)
{
    int all = test_all_failures();
    if (t_rank == 0)
        printf("%s on %d ranks: %s (%d failed checks)\n", name, t_nprocs, all ? "FAIL" : "PASS", all);
    MPI_Finalize();
    return all ? 1 : 0;
}

void test_path(char *out, size_t len, const char *tag)
{
    const char *dir = getenv("COLIO_TEST_DIR");
    struct stat sb;
    if (dir == NULL || dir[0] == '\0')
        dir = stat("/dev/shm", &sb) == 0 ? "/dev/shm" : "/tmp";
    snprintf(out, len, "%s/colio-%s-%ld", dir, tag, t_pid);
}

void test_unlink(const char *path)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

void test_prefill(const char *path, int64_t size)
{
    if (t_rank == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        unsigned char *buf = malloc((size_t)size + 1);
        for (int64_t i = 0; i < size; i++)
            buf[i] = pattern_old(i);
        if (fd < 0 || pwrite(fd, buf, (size_t)size, 0) != (ssize_t)size)
            fprintf(stderr, "test_prefill(%s) failed\n", path), t_failures++;
        free(buf);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int test_read_file(const char *path, unsigned char *buf, int64_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int64_t got = 0;
    while (got < size) {
        ssize_t k = pread(fd, buf + got, (size_t)(size - got), got);
        if (k <= 0)
            break;
        got += k;
    }
    close(fd);
    return got == size ? 0 : -1;
}

int64_t test_file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* Tiles of the filetype needed to hold stream bytes [0, end). */
static int64_t tiles_for(MPI_Datatype filetype, int64_t end)
{
    int size;
    MPI_Type_size(filetype, &size);
    return size ? (end + size - 1) / size : 0;
}

int view_image(MPI_Offset disp, MPI_Datatype filetype, int64_t skip, const unsigned char *stream,
               int64_t nbytes, unsigned char *image, unsigned char *mask, int64_t size)
{
    int fsize;
    MPI_Type_size(filetype, &fsize);
    int64_t tiles = tiles_for(filetype, skip + nbytes), total = tiles * fsize;
    unsigned char *s = calloc((size_t)total + 1, 1), *m = calloc((size_t)total + 1, 1);
    memcpy(s + skip, stream, (size_t)nbytes);
    memset(m + skip, 1, (size_t)nbytes);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(filetype, &lb, &extent);
    int64_t span = disp + tiles * extent + extent; /* room for the last tile */
    unsigned char *di = calloc((size_t)span + 1, 1), *mi = calloc((size_t)span + 1, 1);
    int pos = 0, rc = 0;
    rc |= MPI_Unpack(s, (int)total, &pos, di + disp, (int)tiles, filetype, MPI_COMM_SELF);
    pos = 0;
    rc |= MPI_Unpack(m, (int)total, &pos, mi + disp, (int)tiles, filetype, MPI_COMM_SELF);
    for (int64_t i = 0; i < span && i < size; i++)
        if (mi[i]) {
            image[i] = di[i];
            mask[i] = 1;
        }
    for (int64_t i = size; i < span; i++)
        if (mi[i])
            rc = -1; /* the test's file image is too small */
    free(s), free(m), free(di), free(mi);
    return rc;
}

int view_stream(MPI_Offset disp, MPI_Datatype filetype, int64_t skip, const unsigned char *image,
                int64_t size, unsigned char *stream, int64_t nbytes)
{
    int fsize;
    MPI_Type_size(filetype, &fsize);
    int64_t tiles = tiles_for(filetype, skip + nbytes), total = tiles * fsize;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(filetype, &lb, &extent);
    int64_t span = disp + tiles * extent + extent;
    unsigned char *img = calloc((size_t)span + 1, 1), *s = malloc((size_t)total + 1);
    memcpy(img, image, (size_t)(size < span ? size : span));
    int pos = 0;
    int rc = MPI_Pack(img + disp, (int)tiles, filetype, s, (int)total, &pos, MPI_COMM_SELF);
    memcpy(stream, s + skip, (size_t)nbytes);
    free(img), free(s);
    return rc;
}

int64_t verify_file_images(const char *path, const unsigned char *image, const unsigned char *mask, int64_t size,
                           const char *what)
{
    unsigned char *masked = malloc((size_t)size + 1), *allimg = NULL, *allmask = NULL;
    for (int64_t i = 0; i < size; i++)
        masked[i] = mask[i] ? image[i] : 0;
    if (t_rank == 0) {
        allimg = malloc((size_t)size + 1);
        allmask = malloc((size_t)size + 1);
    }
    /* ranks write disjoint bytes, so OR combines their images exactly */
    MPI_Reduce(masked, allimg, (int)size, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
    MPI_Reduce(mask, allmask, (int)size, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
    int64_t bad = 0;
    if (t_rank == 0) {
        unsigned char *file = malloc((size_t)size + 1);
        if (test_read_file(path, file, size) != 0) {
            fprintf(stderr, "%s: cannot read %lld bytes of %s\n", what, (long long)size, path);
            bad = size;
        }
        for (int64_t i = 0; i < size && bad < size; i++) {
            unsigned char want = allmask[i] ? allimg[i] : pattern_old(i);
            if (file[i] != want && bad++ < 5)
                fprintf(stderr, "%s: byte %lld is %u, expected %u (%s)\n", what, (long long)i, file[i], want,
                        allmask[i] ? "written" : "hole");
        }
        free(file);
    }
    free(masked), free(allimg), free(allmask);
    MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return bad;
}

void test_rotate_info(MPI_Info info)
{
    static int turn;
    const char *spec = getenv("COLIO_TEST_ROTATE");
    char buf[256];
    if (spec == NULL || snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return;
    char *eq = strchr(buf, '=');
    if (eq == NULL)
        return;
    *eq = '\0';
    int n = 1;
    for (char *c = eq + 1; *c; c++)
        n += *c == ',';
    int want = turn++ % n;
    char *v = eq + 1;
    for (int i = 0; i < want; i++)
        v = strchr(v, ',') + 1;
    char *end = strchr(v, ',');
    if (end)
        *end = '\0';
    MPI_Info_set(info, buf, v);
}

/* ---- the data calls, blocking or through the nonblocking API (COLIO_TEST_NB) ---------- */

/* COLIO_TEST_NB=wait: every data call is the nonblocking one followed by colio_wait. */
int tu_nonblocking(void)
{
    const char *v = getenv("COLIO_TEST_NB");
    return v && strcmp(v, "wait") == 0;
}

static int through_nb(void) { return tu_nonblocking(); }

static int finish_nb(int rc, colio_request **req, MPI_Status *status)
{
    if (rc != COLIO_SUCCESS)
        return rc;
    return colio_wait(req, status);
}

int tu_write_all(colio_file *fh, const void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st)
{
    if (!through_nb())
        return colio_write_all(fh, buf, count, t, st);
    colio_request *r = NULL;
    return finish_nb(colio_iwrite_all(fh, buf, count, t, &r), &r, st);
}

int tu_read_all(colio_file *fh, void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st)
{
    if (!through_nb())
        return colio_read_all(fh, buf, count, t, st);
    colio_request *r = NULL;
    return finish_nb(colio_iread_all(fh, buf, count, t, &r), &r, st);
}

int tu_write_at_all(colio_file *fh, MPI_Offset off, const void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st)
{
    if (!through_nb())
        return colio_write_at_all(fh, off, buf, count, t, st);
    colio_request *r = NULL;
    return finish_nb(colio_iwrite_at_all(fh, off, buf, count, t, &r), &r, st);
}

int tu_read_at_all(colio_file *fh, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype t, MPI_Status *st)
{
    if (!through_nb())
        return colio_read_at_all(fh, off, buf, count, t, st);
    colio_request *r = NULL;
    return finish_nb(colio_iread_at_all(fh, off, buf, count, t, &r), &r, st);
}

int tu_write_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[], const void *buf)
{
    if (!through_nb())
        return colio_write_list_all(fh, n, off, len, buf);
    colio_request *r = NULL;
    return finish_nb(colio_iwrite_list_all(fh, n, off, len, buf, &r), &r, MPI_STATUS_IGNORE);
}

int tu_read_list_all(colio_file *fh, MPI_Count n, const MPI_Offset off[], const MPI_Offset len[], void *buf)
{
    if (!through_nb())
        return colio_read_list_all(fh, n, off, len, buf);
    colio_request *r = NULL;
    return finish_nb(colio_iread_list_all(fh, n, off, len, buf, &r), &r, MPI_STATUS_IGNORE);
}
