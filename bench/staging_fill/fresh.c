/* fresh MB SLEEP HUGE: touch MB of memory after another 64 MB was touched and freed SLEEP s
   ago; prints the fill time in ms and minor faults. HUGE=1: MADV_HUGEPAGE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static char *get(size_t n, int huge) {
  char *p = mmap(NULL, n + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  p = (char *)(((unsigned long)p + (2u << 20) - 1) & ~((2ul << 20) - 1));
  if (huge) madvise(p, n, MADV_HUGEPAGE);
  return p;
}
int main(int argc, char **argv) {
  size_t mb = atoi(argv[1]); double s = atof(argv[2]); int huge = atoi(argv[3]);
  char *a = get(64u << 20, huge); memset(a, 1, 64u << 20); munmap(a, 64u << 20);
  usleep((useconds_t)(s * 1e6));
  struct rusage r0, r1; getrusage(RUSAGE_SELF, &r0);
  char *p = get(mb << 20, huge); double t0 = now(); memset(p, 2, mb << 20); double t1 = now();
  getrusage(RUSAGE_SELF, &r1);
  printf("mb=%zu sleep=%.1f huge=%d fill_ms=%.2f minflt=%ld\n", mb, s, huge, t1 - t0, r1.ru_minflt - r0.ru_minflt);
  return 0;
}
