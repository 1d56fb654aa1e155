/* One pread of N bytes from file offset OFF of a tmpfs file into memory at page+k, for several k, best of 9, two passes.
   gcc -O2 -o pread_page pread_page.c && ./pread_page 4194304 0 */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n = atol(argv[1]); off_t off = atol(argv[2]);
  int fd=open("/dev/shm/al2.dat",O_CREAT|O_RDWR,0644);
  char *src=malloc(n+off); memset(src,1,n+off); pwrite(fd,src,n+off,0);
  char *big = mmap(NULL, n + 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  memset(big, 0, n + 8192);
  int pos[] = {0,8,16,24,40,56,72,88,104,120,136,200,264,1032,2056,2072,3080,4072,4088};
  for (int pass = 0; pass < 2; pass++) for (unsigned i = 0; i < sizeof pos / sizeof pos[0]; i++) {
    char *buf = big + pos[i];
    double best=1e9;
    for(int r=0;r<9;r++){double t=now(); pread(fd,buf,n,off); t=now()-t; if(t<best)best=t;}
    printf("pass %d page+%4d: %.3f ms  %.2f GB/s\n", pass, pos[i], best*1e3, n/best/1e9);
  }
  return 0;
}
