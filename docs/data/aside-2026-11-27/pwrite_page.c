/* One pwrite of N bytes to file offset OFF of a tmpfs file from memory at page+k, for several k, best of 9,
   two passes: whether pwrite's copy into the page cache minds the source's shift as pread's does.
   gcc -O2 -o pwrite_page pwrite_page.c && ./pwrite_page 4194304 0 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 4194304;
    off_t off = argc > 2 ? atol(argv[2]) : 0;
    int fd = open("/dev/shm/pwrite_page.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
    char *big = mmap(NULL, n + 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(big, 1, n + 8192);
    if (fd < 0 || big == MAP_FAILED || pwrite(fd, big, n + (size_t)off, 0) < 0) /* the pages exist: no allocation timed */
        return 1;
    const int pos[] = {0, 8, 16, 24, 32, 48, 1040, 2048, 4064, 4072, 4080, 4088};
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < sizeof pos / sizeof pos[0]; i++) {
            double best = 1e9;
            for (int r = 0; r < 9; r++) {
                double t = now();
                if (pwrite(fd, big + pos[i], n, off) != (ssize_t)n)
                    return 1;
                t = now() - t;
                best = t < best ? t : best;
            }
            printf("pass %d page+%4d: %.3f ms  %.2f GB/s\n", pass, pos[i], best * 1e3, n / best / 1e9);
        }
    unlink("/dev/shm/pwrite_page.dat");
    return 0;
}
