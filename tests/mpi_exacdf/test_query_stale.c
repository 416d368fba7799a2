/* Index staleness chunk by chunk (issue 20): a put marks only the index
 * chunks of the rows it writes stale and widens their min/max by the values
 * put; queries use the fresh chunks' bitmaps and test the stale chunks'
 * values; exa_index_create(..., "update") rebuilds only stale, new and
 * changed chunks (changes made behind the index found by the chunks' data
 * CRCs); the stale marks reach the sidecar, so a later process sees them;
 * a change made through another ncid makes the index untrusted.
 * Every query result is compared with a scan of the values read back, with
 * the index forced on (EXACDF_QUERY_INDEX_SHARE huge) and with the cost
 * check's own choice. CDF-5 and the partitioned format. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exacdf.h>

#include "mpi_test.h"

#define N 4096     /* elements of the fixed variable e; 16 chunks of 256 */
#define CHUNK 256
#define NREC0 1000 /* records of r at first; chunks of 100 records */

static float values[N + 2048];

/* Every value of a 1-D float variable, read back on every rank. */
static MPI_Offset read_all(int ncid, int varid, float *buf) {
  int dimid;
  MPI_Offset len = 0;
  CHECK_OK(ncmpi_inq_vardimid(ncid, varid, &dimid));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dimid, &len));
  MPI_Offset start = 0, count = len;
  CHECK_OK(ncmpi_get_vara_float_all(ncid, varid, &start, &count, buf));
  return len;
}

/* `var op c` evaluated over the default split: this rank's hits equal the
 * brute-force scan of the values read back, position by position. */
static void check_query(int ncid, int varid, int op, float c, const char *what) {
  MPI_Offset len = read_all(ncid, varid, values);
  MPI_Offset lo = len * mpi_test_rank / mpi_test_nprocs, hi = len * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset want = 0;
  for (MPI_Offset i = lo; i < hi; ++i) {
    float v = values[i];
    int pass = op == EXA_QUERY_GT ? v > c : op == EXA_QUERY_LT ? v < c : op == EXA_QUERY_EQ ? v == c : v >= c;
    want += pass;
  }
  const char *shares[2] = {"1e30", NULL}; /* the index whenever usable; the cost check's choice */
  for (int s = 0; s < 2; ++s) {
    if (shares[s]) setenv("EXACDF_QUERY_INDEX_SHARE", shares[s], 1);
    else unsetenv("EXACDF_QUERY_INDEX_SHARE");
    int qid;
    MPI_Offset nhits = -1;
    CHECK_OK(exa_query_create(ncid, varid, op, NC_FLOAT, &c, &qid));
    CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
    if (nhits != want) fprintf(stderr, "[rank %d] %s: %lld hits, want %lld\n", mpi_test_rank, what, (long long)nhits, (long long)want);
    CHECK(nhits == want);
    MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * sizeof *coords);
    CHECK_OK(exa_query_hits(ncid, qid, nhits, coords));
    MPI_Offset k = 0;
    for (MPI_Offset i = lo; i < hi && k < nhits; ++i) {
      float v = values[i];
      int pass = op == EXA_QUERY_GT ? v > c : op == EXA_QUERY_LT ? v < c : op == EXA_QUERY_EQ ? v == c : v >= c;
      if (pass) CHECK(coords[k++] == i);
    }
    free(coords);
    CHECK_OK(exa_query_free(qid));
  }
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
}

static void expect_chunks(int ncid, int varid, int current, MPI_Offset nchunks, MPI_Offset nstale, const char *what) {
  int present = -1, cur = -1;
  MPI_Offset n = -1, stale = -1;
  CHECK_OK(exa_index_inq(ncid, varid, &present, &cur, NULL, NULL));
  CHECK_OK(exa_index_inq_chunks(ncid, varid, &n, &stale, NULL, NULL));
  if (present != 1 || cur != current || n != nchunks || stale != nstale)
    fprintf(stderr, "[rank %d] %s: present %d current %d chunks %lld stale %lld\n", mpi_test_rank, what, present, cur,
            (long long)n, (long long)stale);
  CHECK(present == 1 && cur == current && n == nchunks && stale == nstale);
}

static void expect_rebuilt(int ncid, int varid, MPI_Offset rebuilt, MPI_Offset kept, const char *what) {
  MPI_Offset r = -1, k = -1;
  CHECK_OK(exa_index_inq_chunks(ncid, varid, NULL, NULL, &r, &k));
  if (r != rebuilt || k != kept)
    fprintf(stderr, "[rank %d] %s: rebuilt %lld kept %lld\n", mpi_test_rank, what, (long long)r, (long long)k);
  CHECK(r == rebuilt && k == kept);
}

/* Rank 0 writes count values from `first` at row `at` (others take part with nothing). */
static void put_rows(int ncid, int varid, MPI_Offset at, MPI_Offset count, float first, int flexible) {
  float buf[2048];
  for (MPI_Offset i = 0; i < count; ++i) buf[i] = first + (float)i;
  MPI_Offset start = at, cnt = mpi_test_rank == 0 ? count : 0;
  if (flexible)
    CHECK_OK(ncmpi_put_vara_all(ncid, varid, &start, &cnt, buf, cnt, MPI_FLOAT));
  else
    CHECK_OK(ncmpi_put_vara_float_all(ncid, varid, &start, &cnt, buf));
}

static void all_queries(int ncid, int e, const char *what) {
  char label[200];
  const float cs[] = {-1.0f, 100.0f, 255.5f, 256.0f, 2000.0f, 4095.0f, 4500.0f, 5005.0f};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i) {
    snprintf(label, sizeof label, "%s: e > %g", what, cs[i]);
    check_query(ncid, e, EXA_QUERY_GT, cs[i], label);
    snprintf(label, sizeof label, "%s: e < %g", what, cs[i]);
    check_query(ncid, e, EXA_QUERY_LT, cs[i], label);
    snprintf(label, sizeof label, "%s: e == %g", what, cs[i]);
    check_query(ncid, e, EXA_QUERY_EQ, cs[i], label);
  }
}

static void run_format(int cmode, const char *name) {
  const char *path = mpi_test_path(name);
  int ncid, dim, rdim, e, r;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &dim));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &rdim));
  CHECK_OK(ncmpi_def_var(ncid, "e", NC_FLOAT, 1, &dim, &e));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 1, &rdim, &r));
  CHECK_OK(ncmpi_enddef(ncid));
  /* A smooth field: e[i] = i, r[i] = i / 2. */
  {
    MPI_Offset lo = N * mpi_test_rank / mpi_test_nprocs, hi = N * (mpi_test_rank + 1) / mpi_test_nprocs;
    for (MPI_Offset i = lo; i < hi; ++i) values[i - lo] = (float)i;
    MPI_Offset start = lo, count = hi - lo;
    CHECK_OK(ncmpi_put_vara_float_all(ncid, e, &start, &count, values));
    lo = NREC0 * mpi_test_rank / mpi_test_nprocs;
    hi = NREC0 * (mpi_test_rank + 1) / mpi_test_nprocs;
    for (MPI_Offset i = lo; i < hi; ++i) values[i - lo] = (float)i / 2;
    start = lo;
    count = hi - lo;
    CHECK_OK(ncmpi_put_vara_float_all(ncid, r, &start, &count, values));
  }
  CHECK_OK(exa_index_create(ncid, e, "bins=16;chunk=256"));
  CHECK_OK(exa_index_create(ncid, r, "bins=4;chunk=100"));
  expect_chunks(ncid, e, 1, 16, 0, "built");
  expect_rebuilt(ncid, e, 16, 0, "built");
  all_queries(ncid, e, "built");

  /* A typed put into chunk 1 only: that chunk stale, its max now 5009. */
  put_rows(ncid, e, 300, 10, 5000.0f, 0);
  expect_chunks(ncid, e, 1, 16, 1, "one chunk put");
  all_queries(ncid, e, "one chunk put");
  /* Values of unknown range (a flexible put) into chunk 9, a var1 put into chunk 12. */
  put_rows(ncid, e, 2400, 3, -7.0f, 1);
  if (mpi_test_rank == 0) {
    MPI_Offset at = 3100;
    float v = 4500.0f;
    CHECK_OK(ncmpi_begin_indep_data(ncid));
    CHECK_OK(ncmpi_put_var1_float(ncid, e, &at, &v));
    CHECK_OK(ncmpi_end_indep_data(ncid));
  } else {
    CHECK_OK(ncmpi_begin_indep_data(ncid));
    CHECK_OK(ncmpi_end_indep_data(ncid));
  }
  expect_chunks(ncid, e, 1, 16, 3, "three chunks put");
  all_queries(ncid, e, "three chunks put");
  /* An update rebuilds the three stale chunks only. */
  CHECK_OK(exa_index_create(ncid, e, "update"));
  expect_rebuilt(ncid, e, 3, 13, "update");
  expect_chunks(ncid, e, 1, 16, 0, "updated");
  all_queries(ncid, e, "updated");

  /* Appended records: not covered until an update, which builds the new chunks and the grown last one. */
  {
    MPI_Offset start = NREC0, count = mpi_test_rank == 0 ? 250 : 0;
    for (int i = 0; i < 250; ++i) values[i] = 10000.0f + (float)i;
    CHECK_OK(ncmpi_put_vara_float_all(ncid, r, &start, &count, values));
  }
  expect_chunks(ncid, r, 1, 10, 0, "records appended");
  check_query(ncid, r, EXA_QUERY_GT, 400.0f, "records appended");
  check_query(ncid, r, EXA_QUERY_LT, 10.0f, "records appended");
  CHECK_OK(exa_index_create(ncid, r, "update"));
  expect_rebuilt(ncid, r, 3, 10, "records update");
  expect_chunks(ncid, r, 1, 13, 0, "records updated");
  check_query(ncid, r, EXA_QUERY_GT, 400.0f, "records updated");
  check_query(ncid, r, EXA_QUERY_GE, 10100.0f, "records updated");

  /* The stale marks reach the sidecar: a later open sees chunk 5 stale. */
  put_rows(ncid, e, 1300, 4, 1.0f, 0);
  expect_chunks(ncid, e, 1, 16, 1, "put before close");
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_chunks(ncid, e, 1, 16, 1, "reopened");
  all_queries(ncid, e, "reopened");
  CHECK_OK(ncmpi_close(ncid));

  /* Writes behind the index (a process that never looks at it): refused
   * until an update, which finds the changed chunk by its data CRC. One
   * rewrite with the same values changes nothing. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_rows(ncid, e, 700, 2, -50.0f, 0);
  put_rows(ncid, e, 1800, 2, 1800.0f, 0); /* the values already there */
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_chunks(ncid, e, 0, 16, 16, "changed behind the index");
  all_queries(ncid, e, "changed behind the index");
  CHECK_OK(exa_index_create(ncid, e, "update"));
  /* Chunk 2 (rows 700-701) changed; chunk 5 was marked stale before. */
  expect_rebuilt(ncid, e, 2, 14, "update by CRC");
  expect_chunks(ncid, e, 1, 16, 0, "updated by CRC");
  all_queries(ncid, e, "updated by CRC");
  /* A change through another ncid (as another job would make it) while
   * this ncid put nothing: the index of this ncid is not trusted any more. */
  int other;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &other));
  put_rows(other, e, 3500, 2, -1000.0f, 0);
  CHECK_OK(ncmpi_sync(other));
  CHECK_OK(ncmpi_close(other));
  expect_chunks(ncid, e, 0, 16, 16, "changed through another ncid");
  all_queries(ncid, e, "changed through another ncid");
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run_format(NC_64BIT_DATA, "query_stale_cdf5.nc");
  /* Sidecars on a partitioned file too (what this test is about; index
   * blocks inside partitioned files: test_query_infile*.c). */
  setenv("EXACDF_QUERY_SIDECAR", "1", 1);
  run_format(EXA_FORMAT_PARTITIONED, "query_stale_part.nc");
  unsetenv("EXACDF_QUERY_SIDECAR");
  return mpi_test_finish();
}
