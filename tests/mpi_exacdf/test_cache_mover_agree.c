/* A file of several ranks: the cache connector's movers drain every logged
 * put while the program computes, with no further library call (issue 18).
 * Each mover may drain calls up to a watermark: the lowest call any rank
 * still holds in its log, so that an older write of another rank cannot land
 * after a newer one. That watermark used to be agreed only inside the
 * allreduce of the next collective put: the puts logged while the movers were
 * still writing older ones stayed in the logs through the computation (80-86%
 * of VPIC-IO's data drained inside close). Now the movers agree among
 * themselves, in the background.
 * Here every mover's writes are made late (exa_debug_late_writes: 300 ms
 * each). Part 1: every rank puts its slice of variable a, then of b at once
 * (a still being written; with 4 ranks the last rank puts nothing), and then,
 * making no MPI or library call, reads the file with pread until every
 * writing rank's b values are there (big endian; at most 60 s). Part 2
 * (program order): 3 * nprocs calls of which call k writes, on rank
 * k % nprocs alone, a window of variable c that overlaps the windows of calls
 * k - 1 and k + 1 (the other ranks put nothing); each element must end with
 * the value of the last call that wrote it: read with pread during the
 * computation, and through the library after close. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "exacdf.h"
#include "exacdf_cache.h"
#include "mpi_test.h"

enum { N = 4096, STEP = 1000, WIDTH = 2500 };

static int value(int var, MPI_Offset i) { return 1000000 * (var + 1) + (int)i; }

static uint32_t big_endian(uint32_t v) {
  return ((v & 0xffu) << 24) | ((v & 0xff00u) << 8) | ((v >> 8) & 0xff00u) | (v >> 24);
}

/* Whether the file holds `want` (n ints) at offset (read with pread). */
static int has_values(const char *path, MPI_Offset offset, const int *want, int n) {
  uint32_t *got = malloc(sizeof(uint32_t) * (size_t)n);
  const int fd = open(path, O_RDONLY);
  int ok = 0;
  if (fd >= 0 && got) {
    const ssize_t r = pread(fd, got, sizeof(uint32_t) * (size_t)n, (off_t)offset);
    ok = r == (ssize_t)(sizeof(uint32_t) * (size_t)n);
    for (int i = 0; ok && i < n; ++i) ok = got[i] == big_endian((uint32_t)want[i]);
  }
  if (fd >= 0) close(fd);
  free(got);
  return ok;
}

/* Polls (no MPI call) until the file holds want; at most 60 s. */
static int wait_for_values(const char *path, MPI_Offset offset, const int *want, int n) {
  for (int k = 0; k < 6000; ++k) {
    if (has_values(path, offset, want, n)) return 1;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  return 0;
}

/* The value element i of c ends with: the last call whose window holds it. */
static int final_c(int calls, int i) {
  int last = -1;
  for (int k = 0; k < calls; ++k)
    if (i >= k * STEP && i < k * STEP + WIDTH) last = k;
  return last < 0 ? 0 : 1000 * (last + 1) + i;
}

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1);
  mpi_test_init(&argc, &argv);
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    if (mpi_test_rank == 0) printf("MPI_THREAD_MULTIPLE not provided: no mover to test\n");
    return mpi_test_finish();
  }
  const int np = mpi_test_nprocs, rank = mpi_test_rank;
  const int idle = np > 2 ? np - 1 : -1; /* puts nothing in part 1 */
  const int calls = 3 * np;
  const int clen = (calls - 1) * STEP + WIDTH;
  char spec[2600], path[1200];
  snprintf(spec, sizeof spec, "cache{dir=%s}", mpi_test_path("tier"));
  snprintf(path, sizeof path, "%s", mpi_test_path("agree.nc"));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid, dim, cdim, var[3];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "i", (MPI_Offset)N * np, &dim));
  CHECK_OK(ncmpi_def_dim(ncid, "j", clen, &cdim));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dim, &var[0]));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 1, &dim, &var[1]));
  CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 1, &cdim, &var[2]));
  CHECK_OK(ncmpi_enddef(ncid));
  MPI_Offset offset[3];
  for (int v = 0; v < 3; ++v) CHECK_OK(ncmpi_inq_varoffset(ncid, var[v], &offset[v]));
  int *vals = malloc(sizeof(int) * (size_t)(N * np > clen ? N * np : clen));
  int *want = malloc(sizeof(int) * (size_t)(N * np > clen ? N * np : clen));

  /* Part 1: a, then b at once; then the computation. */
  exa_debug_late_writes(300);
  MPI_Offset start = (MPI_Offset)rank * N, count = rank == idle ? 0 : N;
  for (int v = 0; v < 2; ++v) {
    for (int i = 0; i < N; ++i) vals[i] = value(v, start + i);
    CHECK_OK(ncmpi_put_vara_int_all(ncid, var[v], &start, &count, vals));
  }
  const int writers = idle < 0 ? np : np - 1;
  for (int i = 0; i < N * writers; ++i) want[i] = value(1, i);
  const int seen = wait_for_values(path, offset[1], want, N * writers);
  if (!seen) fprintf(stderr, "rank %d: b's values did not reach the file before close\n", rank);
  CHECK(seen);

  /* Part 2: overlapping windows of successive calls, each of one rank. */
  for (int k = 0; k < calls; ++k) {
    MPI_Offset cs = (MPI_Offset)k * STEP, cc = k % np == rank ? WIDTH : 0;
    for (int i = 0; i < WIDTH; ++i) vals[i] = 1000 * (k + 1) + k * STEP + i;
    CHECK_OK(ncmpi_put_vara_int_all(ncid, var[2], &cs, &cc, vals));
  }
  for (int i = 0; i < clen; ++i) want[i] = final_c(calls, i);
  const int ordered = wait_for_values(path, offset[2], want, clen);
  if (!ordered) fprintf(stderr, "rank %d: c's values were not the last call's before close\n", rank);
  CHECK(ordered);
  exa_debug_late_writes(0);
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  long bad = 0;
  MPI_Offset all = (MPI_Offset)N * writers, zero = 0;
  for (int v = 0; v < 2; ++v) {
    CHECK_OK(ncmpi_get_vara_int_all(ncid, var[v], &zero, &all, vals));
    for (int i = 0; i < N * writers; ++i) bad += vals[i] != value(v, i);
  }
  MPI_Offset clen_o = clen;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, var[2], &zero, &clen_o, vals));
  for (int i = 0; i < clen; ++i) bad += vals[i] != final_c(calls, i);
  if (bad) fprintf(stderr, "rank %d: %ld wrong values after close\n", rank, bad);
  CHECK(bad == 0);
  CHECK_OK(ncmpi_close(ncid));
  free(vals);
  free(want);
  return mpi_test_finish();
}
