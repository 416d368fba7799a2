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
/* pop2 MB THP POPULATE: aligned_alloc + MADV_HUGEPAGE (THP=1) or THP disabled (0), then
   optionally MADV_POPULATE_WRITE, then a copy into it; prints ms */
int main(int argc, char **argv) {
  size_t n = (size_t)atoi(argv[1]) << 20; int thp = atoi(argv[2]), pop = atoi(argv[3]);
  if (!thp) prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
  char *src = malloc(n); memset(src, 3, n);
  double t0 = now();
  char *p = aligned_alloc(2u << 20, n);
  if (thp) madvise(p, n, MADV_HUGEPAGE);
  int rc = pop ? madvise(p, n, MADV_POPULATE_WRITE) : 0;
  memcpy(p, src, n);
  double t1 = now();
  printf("thp=%d populate=%d rc=%d ms=%.2f\n", thp, pop, rc, t1 - t0);
  return 0;
}
