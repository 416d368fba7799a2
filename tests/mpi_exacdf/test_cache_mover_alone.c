/* A file of one rank: the cache connector's mover drains every logged put
 * while the program computes, with no further library call (issue 18).
 * The mover drains calls up to a watermark agreed at each collective put (the
 * lowest undrained call of every rank). With one rank there is no other
 * rank's order to keep, but the watermark held all the same: a put logged
 * while the mover was still writing an older one stayed in the log until the
 * next put or the close -- VPIC-IO's last puts of each step waited through the
 * computation, and close=sync then drained them on the program's time.
 * Here each rank writes a file of its own (MPI_COMM_SELF) with the mover's
 * writes made late (exa_debug_late_writes: 300 ms each), puts variable a,
 * then variable b at once (a still being written), and then, making no
 * library call, reads the file with pread until b's values are there (big
 * endian, at b's offset; at most 60 s). Then close, and every value is
 * checked through the library. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "exacdf.h"
#include "exacdf_cache.h"
#include "mpi_test.h"

enum { N = 16384 };

static int value(int var, int i) { return 100000 * (var + 1) + i; }

static uint32_t big_endian(uint32_t v) {
  return ((v & 0xffu) << 24) | ((v & 0xff00u) << 8) | ((v >> 8) & 0xff00u) | (v >> 24);
}

/* Whether the file holds b's values at offset (read with pread). */
static int has_values(const char *path, MPI_Offset offset) {
  static uint32_t got[N];
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = pread(fd, got, sizeof got, (off_t)offset);
  close(fd);
  if (n != (ssize_t)sizeof got) return 0;
  for (int i = 0; i < N; ++i)
    if (got[i] != big_endian((uint32_t)value(1, i))) return 0;
  return 1;
}

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1);
  mpi_test_init(&argc, &argv);
  int provided = 0;
  MPI_Query_thread(&provided);
  char dir[1200], path[1200], spec[2600], name[64];
  snprintf(name, sizeof name, "tier%d", mpi_test_rank);
  snprintf(dir, sizeof dir, "%s", mpi_test_path(name));
  snprintf(name, sizeof name, "alone%d.nc", mpi_test_rank);
  snprintf(path, sizeof path, "%s", mpi_test_path(name));
  if (provided == MPI_THREAD_MULTIPLE) {
    snprintf(spec, sizeof spec, "cache{dir=%s}", dir);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_connectors", spec);
    int ncid, dim, var[2];
    CHECK_OK(ncmpi_create(MPI_COMM_SELF, path, NC_CLOBBER, info, &ncid));
    MPI_Info_free(&info);
    CHECK_OK(ncmpi_def_dim(ncid, "i", N, &dim));
    CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dim, &var[0]));
    CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 1, &dim, &var[1]));
    CHECK_OK(ncmpi_enddef(ncid));
    MPI_Offset offset = 0;
    CHECK_OK(ncmpi_inq_varoffset(ncid, var[1], &offset));
    int *vals = malloc(sizeof(int) * N);
    MPI_Offset start = 0, count = N;
    exa_debug_late_writes(300);
    for (int v = 0; v < 2; ++v) {
      for (int i = 0; i < N; ++i) vals[i] = value(v, i);
      CHECK_OK(ncmpi_put_vara_int_all(ncid, var[v], &start, &count, vals));
    }
    int seen = 0;
    for (int k = 0; k < 6000 && !seen; ++k) {  /* at most 60 s */
      seen = has_values(path, offset);
      if (!seen) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
      }
    }
    if (!seen) fprintf(stderr, "rank %d: b's values did not reach the file before close\n", mpi_test_rank);
    CHECK(seen);
    exa_debug_late_writes(0);
    CHECK_OK(ncmpi_close(ncid));
    CHECK_OK(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    long bad = 0;
    for (int v = 0; v < 2; ++v) {
      CHECK_OK(ncmpi_get_vara_int_all(ncid, var[v], &start, &count, vals));
      for (int i = 0; i < N; ++i) bad += vals[i] != value(v, i);
    }
    CHECK(bad == 0);
    CHECK_OK(ncmpi_close(ncid));
    free(vals);
  } else if (mpi_test_rank == 0) {
    printf("MPI_THREAD_MULTIPLE not provided: no mover to test\n");
  }
  return mpi_test_finish();
}
