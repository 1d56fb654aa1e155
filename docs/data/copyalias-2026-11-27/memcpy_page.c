/* memcpy of N bytes, destination 0/16/48/4080 bytes past the source modulo 4 KiB, whole or in chunks; best of 15.
   gcc -O2 -o memcpy_page memcpy_page.c && ./memcpy_page 65536 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
static void chunked(char *d, const char *s, size_t n, size_t c) { for (size_t i = 0; i < n; i += c) memcpy(d + i, s + i, n - i < c ? n - i : c); }
int main(int argc,char**argv){
  size_t n = atol(argv[1]);
  char *src = mmap(NULL, n + 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  char *dst = mmap(NULL, n + 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  memset(src, 1, n + 8192); memset(dst, 0, n + 8192);
  int pos[] = {0, 16, 48, 4080};
  size_t chunks[] = {0, 512, 1024, 2047, 4096};
  for (unsigned c = 0; c < 5; c++) for (unsigned i = 0; i < 4; i++) {
    double best = 1e9;
    for (int r = 0; r < 15; r++) { double t = now(); if (chunks[c]) chunked(dst + pos[i], src, n, chunks[c]); else memcpy(dst + pos[i], src, n); t = now() - t; if (t < best) best = t; }
    printf("chunk %4zu diff %4d: %.2f us\n", chunks[c], pos[i], best * 1e6);
  }
  return 0;
}
