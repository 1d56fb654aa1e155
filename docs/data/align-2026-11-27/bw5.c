#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc, char **argv){
  size_t BIG = 64<<20, CH = (size_t)atoi(argv[1]); int fo = atoi(argv[2]), dof = atoi(argv[3]);
  char *ch = (char *)aligned_alloc(4096, CH + 4096) + dof; memset(ch, 1, CH);
  int fd = open("/dev/shm/bw.dat", O_RDWR|O_CREAT|O_TRUNC, 0644);
  char *z = calloc(1, 1<<20); for (size_t o = 0; o < BIG + (1<<20); o += 1<<20) pwrite(fd, z, 1<<20, o);
  double br = 0; size_t n = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now(); n = 0; for (size_t o = 0; o + CH < BIG && n < 20000; o += CH > 4096 ? CH : 4096, n++) pread(fd, ch, CH, o + fo); double r = now() - t0;
    if (n*CH/r/1e9 > br) br = n*CH/r/1e9;
  }
  printf("piece %zu file%%64=%d dest%%64=%d: read %.2f GB/s %.2f us/call\n", CH, fo, dof, br, CH/br/1e3);
  unlink("/dev/shm/bw.dat"); return 0; }
