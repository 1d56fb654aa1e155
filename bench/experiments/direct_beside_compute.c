/*
 * direct-beside-compute: how much of one O_DIRECT write hides behind
 * computation on the same core, with no MPI and no colio: the most a bound
 * rank's nonblocking direct write can hide on this machine (colio-nbbench
 * --disk). Where the device moves the bytes the core only submits the call
 * and takes its completion; where pinning the pages, building the requests
 * and the completions' interrupts cost the core, the computation beside the
 * write slows and less of the write hides.
 * The tool times a MiB write (posix_memalign'd, O_DIRECT) into DIR alone,
 * the floating-point loop of colio-nbbench alone (calibrated to the write's
 * time), then both at once, the write on a thread of its own; everything
 * bound to CPU; the best of 5 each. Prints the hidden share, as
 * colio-nbbench computes it, and how much longer the loop took.
 * usage: direct-beside-compute DIR [MiB] [CPU]
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

static int fd;
static char *buf;
static size_t bytes;
static double write_s;
static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *write_once(void *arg)
{
    (void)arg;
    double t0 = now();
    if (pwrite(fd, buf, bytes, 0) != (ssize_t)bytes)
        perror("direct-beside-compute: pwrite");
    write_s = now() - t0;
    return NULL;
}

static double compute(long iters)
{
    double t0 = now(), x = 1;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    return now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: direct-beside-compute DIR [MiB] [CPU]\n");
        return 2;
    }
    bytes = (size_t)(argc > 2 ? atol(argv[2]) : 32) << 20;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(argc > 3 ? atoi(argv[3]) : 0, &set);
    char path[4096];
    snprintf(path, sizeof path, "%s/direct-beside-compute.%ld", argv[1], (long)getpid());
    if (sched_setaffinity(0, sizeof set, &set) != 0 || (fd = open(path, O_CREAT | O_RDWR | O_DIRECT, 0644)) < 0 ||
        posix_memalign((void **)&buf, 4096, bytes) != 0) {
        perror("direct-beside-compute: binding, O_DIRECT open or memory");
        return 1;
    }
    unlink(path);
    memset(buf, 1, bytes);
    write_once(NULL); /* the blocks allocated */
    double io = 1e9, alone = 1e9, step = 1e9, beside = 0;
    for (int i = 0; i < REPEAT; i++, io = write_s < io ? write_s : io)
        write_once(NULL);
    long iters = 1000000;
    iters = (long)((double)iters * io / compute(iters));
    for (int i = 0; i < REPEAT; i++) {
        double t = compute(iters);
        alone = t < alone ? t : alone;
    }
    for (int i = 0; i < REPEAT; i++) {
        pthread_t th;
        double t0 = now();
        pthread_create(&th, NULL, write_once, NULL); /* inherits the binding: the same core */
        double c = compute(iters);
        pthread_join(th, NULL);
        double t = now() - t0;
        if (t < step)
            step = t, beside = c;
    }
    printf("write %.1f ms, computation %.1f ms alone; together %.1f ms, the computation %.1f ms (%+.0f%%); "
           "hidden %.0f%%\n", io * 1e3, alone * 1e3, step * 1e3, beside * 1e3, (beside / alone - 1) * 100,
           (io + alone - step) / io * 100);
    close(fd);
    free(buf);
    return 0;
}
