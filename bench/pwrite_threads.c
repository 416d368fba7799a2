/*
 * pwrite_threads.c -- what writing disjoint regions of one file from two
 * threads at once could buy over one thread writing them in turn (issue 17:
 * "operations on disjoint regions run concurrently"), on a given target.
 *
 *   pwrite_threads PATH BLOCK_BYTES BLOCKS REPS
 *
 * Per repetition: BLOCKS blocks of BLOCK_BYTES written at disjoint offsets of a
 * new file, by one thread in order and then by two threads (even/odd blocks),
 * in alternating order; prints the time of each.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int fd, first, step, blocks;
  size_t block;
  const char* data;
  int failed;
} job;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void* writer(void* arg) {
  job* j = arg;
  for (int b = j->first; b < j->blocks; b += j->step)
    if (pwrite(j->fd, j->data, j->block, (off_t)b * (off_t)j->block) != (ssize_t)j->block) j->failed = 1;
  return NULL;
}

static double run(const char* path, size_t block, int blocks, int threads, const char* data) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror("open"); exit(1); }
  job j[2];
  pthread_t t[2];
  double t0 = now();
  for (int k = 0; k < threads; ++k) {
    j[k] = (job){fd, k, threads, blocks, block, data, 0};
    pthread_create(&t[k], NULL, writer, &j[k]);
  }
  for (int k = 0; k < threads; ++k) pthread_join(t[k], NULL);
  double t1 = now();
  for (int k = 0; k < threads; ++k) if (j[k].failed) { fprintf(stderr, "pwrite failed\n"); exit(1); }
  close(fd);
  return t1 - t0;
}

int main(int argc, char** argv) {
  if (argc < 5) { fprintf(stderr, "usage: %s PATH BLOCK_BYTES BLOCKS REPS\n", argv[0]); return 2; }
  size_t block = strtoull(argv[2], NULL, 10);
  int blocks = atoi(argv[3]), reps = atoi(argv[4]);
  char* data = malloc(block);
  memset(data, 0x5a, block);
  for (int r = 0; r < reps; ++r) {
    double one, two;
    if (r % 2) { two = run(argv[1], block, blocks, 2, data); one = run(argv[1], block, blocks, 1, data); }
    else { one = run(argv[1], block, blocks, 1, data); two = run(argv[1], block, blocks, 2, data); }
    printf("rep=%d one_thread=%.6f two_threads=%.6f\n", r, one, two);
  }
  free(data);
  return 0;
}
