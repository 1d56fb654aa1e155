#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
static double best(int r, int w, char *src, char *dst, size_t len){ double b=1e9; for(int i=0;i<8;i++){ if(write(w,src,len)!=(ssize_t)len) return -1; double t0=now(); size_t g=0; while(g<len){ssize_t n=read(r,dst+g,len-g); if(n<=0) return -1; g+=n;} double t=now()-t0; if(t<b)b=t;} return b;}
int main(){ int fd[2]; pipe(fd); size_t L=32768; char *s=aligned_alloc(4096,L), *d=aligned_alloc(4096,L+64); memset(s,1,L); memset(d,0,L+64);
 double a=best(fd[0],fd[1],s,d,L), m=best(fd[0],fd[1],s,d+16,L), m8=best(fd[0],fd[1],s,d+8,L), a32=best(fd[0],fd[1],s,d+32,L);
 printf("aligned %.2f us, +16 %.2f us, +8 %.2f us, +32 %.2f us\n", a*1e6, m*1e6, m8*1e6, a32*1e6); return 0; }
