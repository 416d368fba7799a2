/* A variable whose sidecar an earlier session left (here: its min/max
 * record) takes the values' range of a later session's puts, even before
 * that session looks at it: its next query then makes the new record from
 * them. The process finds which variables
 * have a sidecar by one scan of the file's directory at its first put into
 * the file (a stat per variable before). Names beside it that are not its
 * sidecars (a journal-like "FILE.exaidx.<varid>.hdr", a leading zero, another
 * file's sidecar) are there during the scan. EXACDF_QUERY_MINMAX=queried
 * (the default before the ninth period: only such variables take it), CDF-5. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

#include "mpi_test.h"

#define CHUNK 512 /* EXACDF_QUERY_MINMAX_CHUNK */
#define NCHUNKS 4
#define N (CHUNK * NCHUNKS)

static double buf[N];

static long long sum_ll(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* Rows [c*CHUNK, (c+1)*CHUNK) hold base + i / 1000, each rank its share. */
static void put_chunk(int ncid, int varid, int c, double base) {
  MPI_Offset lo = CHUNK * mpi_test_rank / mpi_test_nprocs, hi = CHUNK * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset start = (MPI_Offset)c * CHUNK + lo, count = hi - lo;
  for (MPI_Offset i = 0; i < count; ++i) buf[i] = base + (double)(lo + i) / 1000.0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, varid, &start, &count, buf));
}

/* `var > c`: its hit count over the default split, and the values tested
 * one by one (summed over ranks). */
static long long query_gt(int ncid, int varid, double c, MPI_Offset *hits) {
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1); /* the record whenever trusted */
  long long before = exa_debug_query_values_tested();
  int qid;
  MPI_Offset nhits = -1;
  CHECK_OK(exa_query_create(ncid, varid, EXA_QUERY_GT, NC_DOUBLE, &c, &qid));
  CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  CHECK_OK(exa_query_free(qid));
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  *hits = (MPI_Offset)sum_ll(nhits);
  return sum_ll(exa_debug_query_values_tested() - before);
}

static void expect_record(int ncid, int varid, MPI_Offset nchunks, MPI_Offset nbounded, const char *what) {
  MPI_Offset n = -1, b = -1;
  CHECK_OK(exa_index_inq_minmax(ncid, varid, &n, &b));
  if (n != nchunks || b != nbounded)
    fprintf(stderr, "[rank %d] %s: %lld chunks, %lld bounded, want %lld, %lld\n", mpi_test_rank, what, (long long)n,
            (long long)b, (long long)nchunks, (long long)nbounded);
  CHECK(n == nchunks && b == nbounded);
}

static void touch(const char *name) {
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  setenv("EXACDF_QUERY_MINMAX", "queried", 1);
  setenv("EXACDF_QUERY_MINMAX_CHUNK", "512", 1);
  char path[1200], other[1300], name[1400];
  snprintf(path, sizeof path, "%s", mpi_test_path("query_sidecar_seen.nc"));
  snprintf(other, sizeof other, "%s.other.nc", path);
  if (mpi_test_rank == 0)
    for (int v = 0; v < 3; ++v) {
      snprintf(name, sizeof name, "%s.exaidx.%d", path, v);
      unlink(name);
      snprintf(name, sizeof name, "%s.exaidx.%d.hdr", path, v);
      unlink(name);
    }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Session 1: v queried first, so its puts keep their values' range; the
   * next query makes v's min/max record (a sidecar), every chunk bounded. */
  int ncid, dim, v, w;
  MPI_Offset hits = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_DOUBLE, 1, &dim, &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_DOUBLE, 1, &dim, &w));
  CHECK_OK(ncmpi_enddef(ncid));
  query_gt(ncid, v, 1e9, &hits);
  for (int c = 0; c < NCHUNKS; ++c) {
    put_chunk(ncid, v, c, 10.0 * c);
    put_chunk(ncid, w, c, 10.0 * c);
  }
  query_gt(ncid, v, 1e9, &hits);
  CHECK(hits == 0);
  expect_record(ncid, v, NCHUNKS, NCHUNKS, "session 1");
  CHECK_OK(ncmpi_close(ncid));
  /* Names beside it that are not v's sidecar. */
  if (mpi_test_rank == 0) {
    snprintf(name, sizeof name, "%s.exaidx.%d.hdr", path, w);
    touch(name);
    snprintf(name, sizeof name, "%s.exaidx.%d", other, w);
    touch(name);
    snprintf(name, sizeof name, "%s.exaidx.0%d", path, w);
    touch(name);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Session 2, which has not looked at v: chunk 1 of v and of w rewritten.
   * v's record was current when this session opened the file, so it is
   * trusted from the open and v's next query extends it by this session's
   * puts: chunk 1 keeps bounds (every chunk bounded) only if its put kept its
   * range, that is, only if the process saw v's sidecar (else chunk 1 would
   * lose them). w has none: its put keeps nothing, and its query makes no
   * record. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_chunk(ncid, v, 1, 500.0);
  put_chunk(ncid, w, 1, 500.0);
  query_gt(ncid, v, 500.0, &hits);
  CHECK(hits == CHUNK - 1);
  expect_record(ncid, v, NCHUNKS, NCHUNKS, "session 2, v");
  query_gt(ncid, w, 500.0, &hits);
  CHECK(hits == CHUNK - 1);
  expect_record(ncid, w, 0, 0, "session 2, w");
  CHECK_OK(ncmpi_close(ncid));

  if (mpi_test_rank == 0) {
    for (int k = 0; k < 3; ++k) {
      const char *fmt[3] = {"%s.exaidx.%d.hdr", "%s.exaidx.%d", "%s.exaidx.0%d"};
      snprintf(name, sizeof name, fmt[k], k == 1 ? other : path, w);
      unlink(name);
    }
  }
  return mpi_test_finish();
}
