/* Memory bandwidth of the split's pattern on this VM: read 2 of every 5 words of 26 MB, memcpy, and copy 16 of every
   40 bytes into a packed array. gcc -O2 -o bw bw.c && ./bw; both cores at once: (taskset -c 0 ./bw & taskset -c 1 ./bw; wait) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){ size_t n=26<<20; int64_t *a=malloc(n), *b=malloc(n); memset(a,1,n); memset(b,2,n);
 for(int rep=0;rep<5;rep++){ double t=now(); int64_t s=0; for(size_t i=0;i<n/8;i+=5) s+=a[i]+a[i+1]; double t1=now(); memcpy(b,a,n); double t2=now();
 int64_t *o=b; for(size_t i=0;i<n/8;i+=5){o[0]=a[i];o[1]=a[i+1];o+=2;} double t3=now();
 printf("read-strided %.2f ms (%.1f GB/s)  memcpy %.2f ms  copy16of40 %.2f ms %ld\n",(t1-t)*1e3,n/(t1-t)/1e9,(t2-t1)*1e3,(t3-t2)*1e3,(long)s);}
}
