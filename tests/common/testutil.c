/* Test helpers: see testutil.h. */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
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

static uint64_t hash_str(const char *s)
{
    uint64_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

/* rc must be `want` on every rank, with one identical non-empty message. */
void expect_all(int rc, int want, const colio_file *fh, const char *what, const char *must_contain)
{
    const char *msg = fh ? colio_last_error(fh) : colio_last_open_error();
    if (getenv("COLIO_TEST_VERBOSE") && t_rank == 0)
        printf("%-34s -> %-16s %s\n", what, colio_strerror(rc), want ? msg : "");
    CHECK(rc == want, "%s: got %s (%d), expected %s; message: %s", what, colio_strerror(rc), rc,
          colio_strerror(want), msg);
    int64_t in[4] = {rc, -rc, (int64_t)(hash_str(msg) >> 1), -(int64_t)(hash_str(msg) >> 1)}, out[4];
    MPI_Allreduce(in, out, 4, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    CHECK(out[0] == -out[1], "%s: ranks returned different codes", what);
    if (want != COLIO_SUCCESS && fh != NULL) {
        CHECK(msg[0] != '\0', "%s: empty error message", what);
        CHECK(out[2] == -out[3], "%s: ranks hold different messages (mine: %s)", what, msg);
    }
    if (must_contain && want != COLIO_SUCCESS)
        CHECK(strstr(msg, must_contain) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, must_contain);
}

MPI_Info test_info(const char *hints)
{
    MPI_Info info;
    MPI_Info_create(&info);
    char *copy = strdup(hints ? hints : ""), *save = NULL;
    for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            MPI_Info_set(info, kv, eq + 1);
        }
    }
    free(copy);
    return info;
}

colio_file *test_open(const char *path, int amode, const char *hints)
{
    colio_file *fh = NULL;
    MPI_Info info = test_info(hints);
    int rc = colio_open(MPI_COMM_WORLD, path, amode, info, &fh);
    MPI_Info_free(&info);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    return fh;
}

static char *saved_hints;

void save_env_hints(void)
{
    const char *v = getenv("COLIO_HINTS");
    free(saved_hints);
    saved_hints = v ? strdup(v) : NULL;
}

void restore_env_hints(void)
{
    if (saved_hints)
        setenv("COLIO_HINTS", saved_hints, 1);
    else
        unsetenv("COLIO_HINTS");
}

static int *node_first; /* per world rank: the lowest rank of its node */

static void load_nodes(void)
{
    if (node_first)
        return;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lowest = t_rank;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    node_first = malloc(sizeof *node_first * (size_t)t_nprocs);
    MPI_Allgather(&lowest, 1, MPI_INT, node_first, 1, MPI_INT, MPI_COMM_WORLD);
}

void test_node_of(int r, int *first, int *n)
{
    load_nodes();
    *first = node_first[r];
    *n = 0;
    for (int q = 0; q < t_nprocs; q++)
        *n += node_first[q] == node_first[r];
}

int test_largest_node(void)
{
    int most = 0, first, n;
    for (int r = 0; r < t_nprocs; r++) {
        test_node_of(r, &first, &n);
        most = n > most ? n : most;
    }
    return most;
}

void test_path(char *out, size_t len, const char *tag)
{
    const char *dir = getenv("COLIO_TEST_DIR");
    struct stat sb;
    if (dir == NULL || dir[0] == '\0')
        dir = stat("/dev/shm", &sb) == 0 ? "/dev/shm" : "/tmp";
    snprintf(out, len, "%s/colio-%s-%ld", dir, tag, t_pid);
}

/* ---- subfiled files, read independently of colio ------------------------------------
 * A file whose first line is "colio-subfile 1" holds the stripe, the subfile
 * count and the subfile names; logical stripe k is stripe k / n of subfile
 * k % n (docs/SUBFILING.md). This reader is the tests' own: a second,
 * simpler implementation of the layout, so colio is never its own oracle.
 */
typedef struct tsub {
    int n;
    int64_t stripe;
    char names[64][1100];
} tsub_t;

static int tsub_load(const char *path, tsub_t *t)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    memset(t, 0, sizeof *t);
    if (f == NULL)
        return 0;
    int is = fgets(line, sizeof line, f) && strncmp(line, "colio-subfile 1", 15) == 0;
    while (is && fgets(line, sizeof line, f)) {
        long long v;
        int k;
        char name[512];
        if (sscanf(line, "stripe %lld", &v) == 1)
            t->stripe = v;
        else if (sscanf(line, "subfiles %d", &k) == 1)
            t->n = k;
        else if (sscanf(line, "subfile %d %511s", &k, name) == 2 && k >= 0 && k < 64) {
            const char *slash = strrchr(path, '/');
            int dirlen = name[0] == '/' || !slash ? 0 : (int)(slash - path) + 1;
            snprintf(t->names[k], sizeof t->names[k], "%.*s%s", dirlen, path, name);
        }
    }
    fclose(f);
    return is && t->n > 0 && t->n <= 64 && t->stripe > 0;
}

/* Logical bytes [off, off + len) of a subfiled file; past a subfile's end: zeros. Logical size in *size_p. */
static int64_t tsub_size(const tsub_t *t)
{
    int64_t size = 0;
    for (int k = 0; k < t->n; k++) {
        int64_t s = test_file_size(t->names[k]);
        if (s > 0) {
            int64_t last = s - 1, q = last / t->stripe;
            int64_t end = (q * t->n + k) * t->stripe + last % t->stripe + 1;
            size = end > size ? end : size;
        }
    }
    return size;
}

static int64_t tsub_read(const tsub_t *t, unsigned char *buf, int64_t len, int64_t off)
{
    int64_t size = tsub_size(t), end = off + len < size ? off + len : size;
    for (int64_t x = off; x < end;) {
        int64_t k = x / t->stripe, piece = (k + 1) * t->stripe;
        int64_t n = (piece < end ? piece : end) - x, phys = (k / t->n) * t->stripe + x % t->stripe, got = 0;
        int fd = open(t->names[k % t->n], O_RDONLY);
        if (fd < 0)
            return -1;
        while (got < n) {
            ssize_t r = pread(fd, buf + (x - off) + got, (size_t)(n - got), phys + got);
            if (r <= 0)
                break;
            got += r;
        }
        close(fd);
        memset(buf + (x - off) + got, 0, (size_t)(n - got)); /* the subfile ends before: a hole */
        x += n;
    }
    return end > off ? end - off : 0;
}

/* Write logical bytes [off, off + len) into the subfiles (the tests' own mapping). */
static int tsub_write(const tsub_t *t, const unsigned char *buf, int64_t len, int64_t off)
{
    for (int64_t x = off; x < off + len;) {
        int64_t k = x / t->stripe, piece = (k + 1) * t->stripe;
        int64_t n = (piece < off + len ? piece : off + len) - x, phys = (k / t->n) * t->stripe + x % t->stripe;
        int fd = open(t->names[k % t->n], O_WRONLY);
        int ok = fd >= 0 && pwrite(fd, buf + (x - off), (size_t)n, phys) == (ssize_t)n;
        if (fd >= 0)
            close(fd);
        if (!ok)
            return -1;
        x += n;
    }
    return 0;
}

int test_pwrite(const char *path, const void *buf, int64_t len, int64_t off)
{
    tsub_t t;
    if (tsub_load(path, &t))
        return tsub_write(&t, buf, len, off);
    int fd = open(path, O_WRONLY);
    int ok = fd >= 0 && pwrite(fd, buf, (size_t)len, off) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

int test_is_subfiled(const char *path)
{
    tsub_t t;
    return tsub_load(path, &t);
}

int test_subfile_count(const char *path)
{
    tsub_t t;
    return tsub_load(path, &t) ? t.n : 0;
}

/* COLIO_TEST_SUBFILING=1: files are prefilled through colio, so COLIO_HINTS (colio_subfiles=...) subfile them. */
static int subfiling_tests(void)
{
    const char *v = getenv("COLIO_TEST_SUBFILING");
    return v && *v && strcmp(v, "0") != 0;
}

void test_unlink_local(const char *path)
{
    tsub_t t;
    char name[1100];
    if (tsub_load(path, &t))
        for (int k = 0; k < t.n; k++)
            unlink(t.names[k]);
    for (int k = 0; k < 64; k++) { /* subfiles of a file whose metadata is gone or damaged */
        snprintf(name, sizeof name, "%s.sub.%d", path, k);
        unlink(name);
    }
    unlink(path);
}

void test_unlink(const char *path)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        test_unlink_local(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Under COLIO_TEST_SUBFILING the old content goes in through colio, so the file is subfiled as COLIO_HINTS say. */
static void prefill_through_colio(const char *path, int64_t size, const unsigned char *buf)
{
    colio_file *fh = NULL;
    char msg[600] = "";
    test_unlink(path);
    int rc = colio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    snprintf(msg, sizeof msg, "%s", colio_last_open_error());
    if (rc == COLIO_SUCCESS)
        rc = colio_write_at_all(fh, 0, buf, t_rank == 0 ? size : 0, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != COLIO_SUCCESS && fh)
        snprintf(msg, sizeof msg, "%s", colio_last_error(fh));
    if (fh && colio_close(&fh) != COLIO_SUCCESS && rc == COLIO_SUCCESS)
        rc = COLIO_ERR_IO;
    if (rc != COLIO_SUCCESS || (t_rank == 0 && !test_is_subfiled(path)))
        fprintf(stderr, "test_prefill(%s) through colio failed: %s %s\n", path, colio_strerror(rc),
                rc ? msg : "(not subfiled)"), t_failures++;
}

void test_prefill(const char *path, int64_t size)
{
    unsigned char *buf = malloc((size_t)size + 1);
    for (int64_t i = 0; i < size; i++)
        buf[i] = pattern_old(i);
    if (subfiling_tests()) {
        prefill_through_colio(path, size, buf);
        free(buf);
        return;
    }
    if (t_rank == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || pwrite(fd, buf, (size_t)size, 0) != (ssize_t)size)
            fprintf(stderr, "test_prefill(%s) failed\n", path), t_failures++;
        if (fd >= 0)
            close(fd);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

int64_t test_pread(const char *path, void *buf, int64_t len, int64_t off)
{
    tsub_t t;
    if (tsub_load(path, &t))
        return tsub_read(&t, buf, len, off);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int64_t got = 0;
    while (got < len) {
        ssize_t k = pread(fd, (char *)buf + got, (size_t)(len - got), off + got);
        if (k <= 0)
            break;
        got += k;
    }
    close(fd);
    return got;
}

int test_read_file(const char *path, unsigned char *buf, int64_t size)
{
    return test_pread(path, buf, size, 0) == size ? 0 : -1;
}

int64_t test_file_size(const char *path)
{
    struct stat sb;
    tsub_t t;
    if (tsub_load(path, &t))
        return tsub_size(&t);
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

int64_t test_check_file(const char *path, const unsigned char *image, int64_t size, const char *what)
{
    int64_t bad = 0, first = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unsigned char *file = malloc((size_t)size);
        int readable = test_read_file(path, file, size) == 0;
        CHECK(readable, "%s: read the file", what);
        for (int64_t x = 0; x < size; x++)
            if (file[x] != image[x] && bad++ == 0)
                first = x;
        CHECK(bad == 0, "%s: %lld wrong bytes, the first at %lld (%u, expected %u)", what, (long long)bad,
              (long long)first, first >= 0 ? file[first] : 0, first >= 0 ? image[first] : 0);
        bad += !readable;
        free(file);
    }
    MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return bad;
}
