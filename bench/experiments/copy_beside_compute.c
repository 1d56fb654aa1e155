/*
 * copy-beside-compute: does a storage copy slow down while another core
 * computes? A nonblocking operation's storage job runs on one core while the
 * program computes on another (colio-nbbench's overlap); where the two
 * share a physical core or memory bandwidth (virtual CPUs, hyperthreads)
 * the job takes longer and less of it hides.
 * The tool writes a BYTES file in DIR (tmpfs by default), then times pread
 * and pwrite of it in 16 MiB calls on CPU 1, alone and while CPU 0 runs the
 * same floating-point loop as colio-nbbench's computation; medians of 5.
 * usage: copy-beside-compute [DIR] [MiB]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPEAT 5
#define CALL (16 << 20)

static volatile int stop;
static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static void *compute(void *arg)
{
    (void)arg;
    pin(0);
    double x = 1;
    while (!stop)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    return NULL;
}

static int cmp(const void *a, const void *b) { return *(const double *)a < *(const double *)b ? -1 : 1; }

/* Median milliseconds of REPEAT passes over the file in CALL-byte calls. */
static double pass_ms(int fd, char *buf, size_t n, int writing)
{
    double t[REPEAT];
    for (int r = 0; r < REPEAT; r++) {
        double t0 = now();
        for (size_t o = 0; o < n; o += CALL) {
            size_t len = n - o < CALL ? n - o : CALL;
            ssize_t got = writing ? pwrite(fd, buf + o, len, (off_t)o) : pread(fd, buf + o, len, (off_t)o);
            if (got != (ssize_t)len) {
                perror(writing ? "pwrite" : "pread");
                exit(1);
            }
        }
        t[r] = (now() - t0) * 1e3;
    }
    qsort(t, REPEAT, sizeof t[0], cmp);
    return t[REPEAT / 2];
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/dev/shm";
    size_t n = (size_t)(argc > 2 ? atoi(argv[2]) : 64) << 20;
    char path[4096];
    snprintf(path, sizeof path, "%s/copy-beside-compute.%d", dir, (int)getpid());
    char *buf = malloc(n);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (buf == NULL || fd < 0) {
        perror(path);
        return 1;
    }
    memset(buf, 7, n);
    pin(1);
    double alone[2], beside[2];
    for (int w = 0; w < 2; w++)
        alone[w] = pass_ms(fd, buf, n, !w);
    pthread_t t;
    pthread_create(&t, NULL, compute, NULL);
    for (int w = 0; w < 2; w++)
        beside[w] = pass_ms(fd, buf, n, !w);
    stop = 1;
    pthread_join(t, NULL);
    printf("copy-beside-compute %s, %zu MiB in 16 MiB calls on CPU 1, median of %d (ms)\n", dir, n >> 20, REPEAT);
    printf("write alone %7.1f  beside compute on CPU 0 %7.1f  (%.2fx)\n", alone[0], beside[0], beside[0] / alone[0]);
    printf("read  alone %7.1f  beside compute on CPU 0 %7.1f  (%.2fx)\n", alone[1], beside[1], beside[1] / alone[1]);
    close(fd);
    unlink(path);
    free(buf);
    return 0;
}
