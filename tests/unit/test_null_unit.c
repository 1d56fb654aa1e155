/*
 * The null backend (src/store/null.c): its storage model against costs
 * worked out by hand, and colio through it: collective writes succeed and
 * create no file, reads return zeros for every byte asked (a null file is
 * endless), and an access takes at least the model's time.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "store/store.h"
#include "testutil.h"

static void near(double got, double want, const char *what)
{
    CHECK(fabs(got - want) < 1e-12, "%s: cost %.9f s, expected %.9f s", what, got, want);
}

/* latency 100 us, 1000 bytes/s, 8-byte blocks */
static void cost_model(void)
{
    colio_null_model_t m = {.latency = 1e-4, .bandwidth = 1000, .block = 8};
    near(colio_null_cost(&m, 1, 8, 16), 1e-4 + 16 / 1000.0, "aligned write of two blocks");
    near(colio_null_cost(&m, 1, 4, 8), 1e-4 + (8 + 2 * 8 * 2) / 1000.0, "write across two partial blocks");
    near(colio_null_cost(&m, 1, 4, 2), 1e-4 + (2 + 2 * 8) / 1000.0, "write inside one block");
    near(colio_null_cost(&m, 1, 0, 12), 1e-4 + (12 + 2 * 8) / 1000.0, "write ending inside a block");
    near(colio_null_cost(&m, 1, 6, 10), 1e-4 + (10 + 2 * 8) / 1000.0, "write starting inside a block");
    near(colio_null_cost(&m, 0, 4, 8), 1e-4 + 8 / 1000.0, "read: no block penalty");
    near(colio_null_cost(&m, 1, 4, 0), 1e-4, "empty write");
    colio_null_model_t lat_only = {.latency = 2e-3, .bandwidth = 0, .block = 8};
    near(colio_null_cost(&lat_only, 1, 3, 1 << 20), 2e-3, "unlimited bandwidth");
    colio_null_model_t none = {0};
    near(colio_null_cost(&none, 1, 3, 1 << 20), 0, "default model: free");
}

static colio_file *open_null(const char *path, const char *latency_us)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "colio_backend", "null");
    MPI_Info_set(info, "colio_null_latency", latency_us);
    MPI_Info_set(info, "romio_cb_write", "enable"); /* through aggregation, as in a simulation */
    MPI_Info_set(info, "romio_cb_read", "enable");
    colio_file *fh = NULL;
    int rc = colio_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    CHECK_RC(rc, COLIO_SUCCESS, NULL);
    MPI_Info_free(&info);
    return fh;
}

static void through_colio(const char *path)
{
    enum { N = 1 << 16 };
    unsigned char *buf = malloc(N);
    for (int i = 0; i < N; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    colio_file *fh = open_null(path, "20000"); /* 20 ms per access */
    if (fh == NULL)
        return;
    double t0 = MPI_Wtime();
    CHECK_RC(colio_write_at_all(fh, 1000, buf, N, MPI_BYTE, MPI_STATUS_IGNORE), COLIO_SUCCESS, fh);
    CHECK(MPI_Wtime() - t0 >= 0.020, "a write with 20 ms per access took %.4f s", MPI_Wtime() - t0);
    struct stat sb;
    CHECK(stat(path, &sb) != 0, "the null backend created %s", path);
    MPI_Status st;
    int count = -1;
    CHECK_RC(colio_read_at_all(fh, (MPI_Offset)1 << 40, buf, N, MPI_BYTE, &st), COLIO_SUCCESS, fh);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == N, "read far out returned %d bytes, expected %d (a null file is endless)", count, N);
    int nonzero = 0;
    for (int i = 0; i < N; i++)
        nonzero += buf[i] != 0;
    CHECK(nonzero == 0, "%d bytes read back are not zero", nonzero);
    MPI_Offset size = 0;
    CHECK_RC(colio_get_size(fh, &size), COLIO_SUCCESS, fh);
    CHECK(size == COLIO_NULL_SIZE, "size %lld, expected the endless size", (long long)size);
    CHECK_RC(colio_close(&fh), COLIO_SUCCESS, NULL);
    free(buf);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    cost_model();
    char path[512];
    test_path(path, sizeof path, "null-unit"); /* must not come to exist */
    through_colio(path);
    return test_finish("test_null_unit");
}
