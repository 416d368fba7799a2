/* Min/max records of variables that were never indexed (issue 20): puts
 * that together write a chunk of rows whole -- from several ranks -- give
 * it bounds, kept at the next query in the sidecar, so queries skip chunks
 * that cannot match (counted with exa_debug_query_values_tested) and a
 * later process trusts them; a chunk partly written keeps none (its other
 * values are unknown); a session that puts without querying extends them at
 * its close; a writer that did not keep them (raw bytes written into a
 * CDF-5 file) makes the record untrusted, and queries stay exact. Every result is compared with
 * the values read back. CDF-5 and the partitioned format. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

#include "mpi_test.h"

#define CHUNK 512 /* EXACDF_QUERY_MINMAX_CHUNK */
#define NCHUNKS 8
#define N (CHUNK * NCHUNKS)
#define GROWS 128 /* g: GROWS x GCOLS, chunks of CHUNK / GCOLS rows */
#define GCOLS 8

static float values[N];

/* Chunk c holds values in [100 c, 100 c + 51.1]. */
static float value_at(MPI_Offset i, float shift) { return (float)(i / CHUNK) * 100.0f + (float)(i % CHUNK) / 10.0f + shift; }

/* Every rank writes its share of each chunk's first `rows` rows: chunks are written by several ranks. */
static void put_chunks(int ncid, int varid, MPI_Offset rows_of_last, float shift) {
  float buf[CHUNK];
  for (int c = 0; c < NCHUNKS; ++c) {
    MPI_Offset rows = c == NCHUNKS - 1 ? rows_of_last : CHUNK;
    MPI_Offset lo = rows * mpi_test_rank / mpi_test_nprocs, hi = rows * (mpi_test_rank + 1) / mpi_test_nprocs;
    MPI_Offset start = (MPI_Offset)c * CHUNK + lo, count = hi - lo;
    for (MPI_Offset i = 0; i < count; ++i) buf[i] = value_at(start + i, shift);
    CHECK_OK(ncmpi_put_vara_float_all(ncid, varid, &start, &count, buf));
  }
}

static long long sum_ll(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* `var op c` over the default split equals the scan of the values read
 * back; returns the values tested by value, summed over the ranks. */
static long long check_query(int ncid, int varid, MPI_Offset n, int op, float c, const char *what) {
  MPI_Offset start = 0, count = n;
  CHECK_OK(ncmpi_get_vara_float_all(ncid, varid, &start, &count, values));
  MPI_Offset lo = n * mpi_test_rank / mpi_test_nprocs, hi = n * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset want = 0;
  for (MPI_Offset i = lo; i < hi; ++i) want += op == EXA_QUERY_GT ? values[i] > c : values[i] < c;
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1); /* the record whenever trusted */
  long long before = exa_debug_query_values_tested();
  int qid;
  MPI_Offset nhits = -1;
  CHECK_OK(exa_query_create(ncid, varid, op, NC_FLOAT, &c, &qid));
  CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  long long tested = sum_ll(exa_debug_query_values_tested() - before);
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  if (nhits != want) fprintf(stderr, "[rank %d] %s: %lld hits, want %lld\n", mpi_test_rank, what, (long long)nhits, (long long)want);
  CHECK(nhits == want);
  MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * sizeof *coords);
  CHECK_OK(exa_query_hits(ncid, qid, nhits, coords));
  MPI_Offset k = 0;
  for (MPI_Offset i = lo; i < hi && k < nhits; ++i)
    if (op == EXA_QUERY_GT ? values[i] > c : values[i] < c) CHECK(coords[k++] == i);
  free(coords);
  CHECK_OK(exa_query_free(qid));
  return tested;
}

static void expect_record(int ncid, int varid, MPI_Offset nchunks, MPI_Offset nbounded, const char *what) {
  MPI_Offset n = -1, b = -1;
  int present = -1;
  CHECK_OK(exa_index_inq_minmax(ncid, varid, &n, &b));
  CHECK_OK(exa_index_inq(ncid, varid, &present, NULL, NULL, NULL));
  if (n != nchunks || b != nbounded || present != 0)
    fprintf(stderr, "[rank %d] %s: %lld chunks, %lld bounded, index %d\n", mpi_test_rank, what, (long long)n, (long long)b, present);
  CHECK(n == nchunks && b == nbounded && present == 0);
}

static void expect_tested(long long tested, long long want, const char *what) {
  if (tested != want) fprintf(stderr, "[rank %d] %s: %lld values tested, want %lld\n", mpi_test_rank, what, tested, want);
  CHECK(tested == want);
}

/* Rank 0 overwrites e[at] with v through the data file's bytes (a CDF-5
 * fixed-size float variable: big-endian at its offset), as a program
 * that knows nothing of exacdf would. */
static void raw_write(const char *path, MPI_Offset offset, MPI_Offset at, float v) {
  if (mpi_test_rank == 0) {
    unsigned char be[4];
    unsigned int bits;
    memcpy(&bits, &v, 4);
    for (int i = 0; i < 4; ++i) be[i] = (unsigned char)(bits >> (24 - 8 * i));
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0);
    if (fd >= 0) {
      CHECK(pwrite(fd, be, 4, (off_t)(offset + 4 * at)) == 4);
      close(fd);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void run_format(int cmode, const char *name) {
  const char *path = mpi_test_path(name);
  int ncid, dim, gdims[2], e, g;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &dim));
  CHECK_OK(ncmpi_def_dim(ncid, "gr", GROWS, &gdims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "gc", GCOLS, &gdims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "e", NC_FLOAT, 1, &dim, &e));
  CHECK_OK(ncmpi_def_var(ncid, "g", NC_FLOAT, 2, gdims, &g));
  int rdim, r;
  if (cmode == NC_64BIT_DATA) { /* (partitioned files with record variables: tested elsewhere) */
    CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &rdim));
    CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 1, &rdim, &r));
  }
  CHECK_OK(ncmpi_enddef(ncid));

  /* Records: two chunks, then one more appended; the record grows with them. */
  if (cmode == NC_64BIT_DATA) {
    float buf[CHUNK];
    for (int c = 0; c < 3; ++c) {
      MPI_Offset lo = CHUNK * mpi_test_rank / mpi_test_nprocs, hi = CHUNK * (mpi_test_rank + 1) / mpi_test_nprocs;
      MPI_Offset start = (MPI_Offset)c * CHUNK + lo, count = hi - lo;
      for (MPI_Offset i = 0; i < count; ++i) buf[i] = value_at(start + i, 0.0f);
      CHECK_OK(ncmpi_put_vara_float_all(ncid, r, &start, &count, buf));
      if (c == 1) expect_record(ncid, r, 2, 2, "records");
    }
    expect_record(ncid, r, 3, 3, "records appended");
    expect_tested(check_query(ncid, r, 3 * CHUNK, EXA_QUERY_GT, 150.0f, "records: r > 150"), CHUNK, "records: r > 150");
  }

  /* Chunks 0-6 written whole by all ranks together, chunk 7 half. */
  put_chunks(ncid, e, CHUNK / 2, 0.0f);
  expect_record(ncid, e, NCHUNKS, NCHUNKS - 1, "written");
  /* e > 325: only chunk 3 straddles; 0-2 skipped, 4-6 all pass, 7 (no bounds) tested. */
  expect_tested(check_query(ncid, e, N, EXA_QUERY_GT, 325.0f, "written: e > 325"), 2 * CHUNK, "written: e > 325");
  expect_tested(check_query(ncid, e, N, EXA_QUERY_LT, -1.0f, "written: e < -1"), CHUNK, "written: e < -1");

  /* g: half rows put (columns 0-3, then 4-7 by another call) cover no
   * chunk whole by rows; then whole rows do. */
  {
    float buf[GROWS * GCOLS];
    MPI_Offset lo = GROWS * mpi_test_rank / mpi_test_nprocs, hi = GROWS * (mpi_test_rank + 1) / mpi_test_nprocs;
    for (int half = 0; half < 2; ++half) {
      MPI_Offset start[2] = {lo, half * GCOLS / 2}, count[2] = {hi - lo, GCOLS / 2};
      for (MPI_Offset i = 0; i < count[0] * count[1]; ++i) buf[i] = (float)(lo + i / count[1]);
      CHECK_OK(ncmpi_put_vara_float_all(ncid, g, start, count, buf));
    }
    expect_record(ncid, g, 0, 0, "g by half rows");
    MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, GCOLS};
    for (MPI_Offset i = 0; i < count[0] * count[1]; ++i) buf[i] = (float)(lo + i / GCOLS);
    CHECK_OK(ncmpi_put_vara_float_all(ncid, g, start, count, buf));
    expect_record(ncid, g, GROWS * GCOLS / CHUNK, GROWS * GCOLS / CHUNK, "g by whole rows");
  }
  CHECK_OK(ncmpi_close(ncid));

  /* A later process trusts both records: e's too, although g was written
   * after it (the close gave them the file's last fingerprint). */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_record(ncid, e, NCHUNKS, NCHUNKS - 1, "reopened");
  expect_record(ncid, g, GROWS * GCOLS / CHUNK, GROWS * GCOLS / CHUNK, "g reopened");
  expect_tested(check_query(ncid, e, N, EXA_QUERY_GT, 325.0f, "reopened: e > 325"), 2 * CHUNK, "reopened: e > 325");
  CHECK_OK(ncmpi_close(ncid));

  /* A writer that puts without querying (a value of 1e6 in chunk 0, which the
   * record says holds at most 51.1) keeps the record all the same: it was
   * current when the file was opened, so the close extends it -- chunk 0
   * widened to the 1e6 (partly written: stale, still bounded). */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  {
    MPI_Offset start = 5, count = mpi_test_rank == 0 ? 1 : 0;
    float v = 1e6f;
    CHECK_OK(ncmpi_put_vara_float_all(ncid, e, &start, &count, &v));
  }
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  expect_record(ncid, e, NCHUNKS, NCHUNKS - 1, "put without a query");
  /* chunk 0 (widened) and the chunk without bounds are tested; the rest skipped */
  expect_tested(check_query(ncid, e, N, EXA_QUERY_GT, 1000.0f, "extended: e > 1000"), 2 * CHUNK, "extended: e > 1000");
  /* This process writes every chunk whole again: a new record, every chunk bounded. */
  put_chunks(ncid, e, CHUNK, 1.0f);
  expect_record(ncid, e, NCHUNKS, NCHUNKS, "rewritten");
  expect_tested(check_query(ncid, e, N, EXA_QUERY_GT, 326.0f, "rewritten: e > 326"), CHUNK, "rewritten: e > 326");
  expect_tested(check_query(ncid, e, N, EXA_QUERY_GT, 1000.0f, "rewritten: e > 1000"), 0, "rewritten: e > 1000");
  MPI_Offset offset = -1;
  int raw = cmode == NC_64BIT_DATA;
  if (raw) CHECK_OK(ncmpi_inq_varoffset(ncid, e, &offset));
  CHECK_OK(ncmpi_close(ncid));

  /* A program that knows nothing of exacdf writes bytes into the data file. */
  if (raw) {
    raw_write(path, offset, 2 * CHUNK + 7, -123.0f);
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    expect_record(ncid, e, 0, 0, "raw write");
    expect_tested(check_query(ncid, e, N, EXA_QUERY_LT, 0.0f, "raw: e < 0"), N, "raw: e < 0 (scanned)");
    CHECK_OK(ncmpi_close(ncid));
  }
}

int main(int argc, char **argv) {
  /* Every put keeps min/max from the start (by default only puts into variables that have
   * a sidecar or were queried by this process do). */
  setenv("EXACDF_QUERY_MINMAX", "always", 1);
  mpi_test_init(&argc, &argv);
  setenv("EXACDF_QUERY_MINMAX_CHUNK", "512", 1);
  run_format(NC_64BIT_DATA, "query_minmax_cdf5.nc");
  run_format(EXA_FORMAT_PARTITIONED, "query_minmax_part.nc");
  return mpi_test_finish();
}
