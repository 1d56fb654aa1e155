/* One pread of N bytes from file offset OFF into fresh memory at page+K (touched first when TOUCH), best of 9.
   gcc -O2 -o pread_offset pread_offset.c && ./pread_offset N OFF TOUCH K */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n = atol(argv[1]); off_t off = atol(argv[2]); int touch = atoi(argv[3]); int pg = atoi(argv[4]);
  int fd=open("/dev/shm/al2.dat",O_CREAT|O_RDWR,0644);
  char *src=malloc(n+off); memset(src,1,n+off); pwrite(fd,src,n+off,0); free(src);
  double best=1e9, sum=0;
  for(int r=0;r<9;r++){
    char *m = mmap(NULL, n + 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    char *buf = m + pg; if (touch) memset(buf, 0, n);
    double t=now(); pread(fd,buf,n,off); t=now()-t; if(t<best)best=t; sum+=t;
    munmap(m, n + 8192);
  }
  printf("page+%d touch=%d best %.3f ms mean %.3f ms\n", pg, touch, best*1e3, sum/9*1e3);
  return 0;
}
