/*
 * posix_io.h -- the plain-POSIX helpers of the pwrite ceiling (bench/posix/):
 * whole-run pwrite/pread (looping over short transfers), and a file opened by
 * every rank after rank 0 created or truncated it.  MPI is used only for the
 * barrier between creation and the other ranks' open.
 */
#ifndef EXACDF_BENCH_POSIX_IO_H
#define EXACDF_BENCH_POSIX_IO_H

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>

#include "../bench_common.h"

/* Writes n bytes at off, however many pwrite calls that takes. */
static inline void px_pwrite(int fd, const void *buf, size_t n, off_t off) {
  const char *p = (const char *)buf;
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) BENCH_DIE("pwrite of %zu bytes at %lld: %s", n, (long long)off, strerror(errno));
    p += w;
    n -= (size_t)w;
    off += w;
  }
}

/* Reads n bytes at off; a short file is an error. */
static inline void px_pread(int fd, void *buf, size_t n, off_t off) {
  char *p = (char *)buf;
  while (n > 0) {
    ssize_t r = pread(fd, p, n, off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) BENCH_DIE("pread of %zu bytes at %lld: %s", n, (long long)off,
                          r == 0 ? "end of file" : strerror(errno));
    p += r;
    n -= (size_t)r;
    off += r;
  }
}

/* Rank 0 creates (or truncates) the file, then every other rank opens it: the
 * order MPI_File_open with MPI_MODE_CREATE gives.  Collective. */
static inline int px_create(const char *path) {
  int rank, fd = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) BENCH_DIE("create %s: %s", path, strerror(errno));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    fd = open(path, O_WRONLY);
    if (fd < 0) BENCH_DIE("open %s: %s", path, strerror(errno));
  }
  return fd;
}

static inline int px_open_read(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) BENCH_DIE("open %s: %s", path, strerror(errno));
  return fd;
}

static inline void px_close(int fd) {
  if (close(fd) != 0) BENCH_DIE("close: %s", strerror(errno));
}

#endif
