#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <string.h>
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n = argc>1? atol(argv[1]) : 10<<20;
  int fd=open("/dev/shm/al.dat",O_CREAT|O_RDWR,0644);
  char *src=malloc(n); memset(src,1,n); pwrite(fd,src,n,0);
  char *buf; posix_memalign((void**)&buf,4096,n+4096);
  memset(buf,0,n+4096);
  for(int s=0;s<64;s+=(argc>2?atoi(argv[2]):8)){
    double best=1e9;
    for(int r=0;r<7;r++){double t=now(); pread(fd,buf+s,n,0); t=now()-t; if(t<best)best=t;}
    printf("shift %2d: %.3f ms  %.2f GB/s\n", s, best*1e3, n/best/1e9);
  }
  return 0;
}
