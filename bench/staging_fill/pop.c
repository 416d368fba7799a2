#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
int main(int argc, char **argv) {
  size_t n = (size_t)atoi(argv[1]) << 20; int mode = atoi(argv[2]);
  prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (mode == 2 ? MAP_POPULATE : 0), -1, 0);
  double t0 = now();
  if (mode == 1) madvise(p, n, MADV_POPULATE_WRITE);
  memset(p, 2, n);
  double t1 = now();
  printf("mode=%d fill_ms=%.2f\n", mode, t1 - t0);
  return 0;
}
