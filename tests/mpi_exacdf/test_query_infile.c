/* Query indexes inside partitioned files (issue 20; docs/format.md "Index
 * blocks"): exa_index_create on a partitioned file without records writes
 * the index as blocks of the file (no sidecar), committed with a new
 * generation; queries equal a brute-force scan of the values read back
 * (single and combined conditions, the index forced on and the cost
 * check's choice) after the build, after overwrites (stale chunks), after
 * an update (only stale chunks rebuilt), after reopening. A writer's open
 * marks the index blocks untrusted for everyone else until it closes; a
 * writer that never closes (ncmpi_abort, as a crash) leaves them unused,
 * and the next writer drops them; a damaged chunk piece or header block is
 * not used. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

#include "mpi_test.h"
#include "query_infile_probe.h"

#define ROWS 512
#define COLS 8
#define N (ROWS * COLS)
#define CHUNK_ROWS 32 /* 16 chunks of 256 values */
#define NCHUNKS (ROWS / CHUNK_ROWS)

static float fvals[N];
static int ivals[N];

static void read_all(int ncid, int f, int g) {
  MPI_Offset start[2] = {0, 0}, count[2] = {ROWS, COLS};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, f, start, count, fvals));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, g, start, count, ivals));
}

/* (f op1 c1) AND/OR (g op2 c2), or the first alone (how 0), evaluated on the
 * default split (rank r: rows [r*ROWS/p, (r+1)*ROWS/p)), equal to the scan. */
static void check_query(int ncid, int f, int g, int op1, float c1, int how, int op2, int c2, const char *what) {
  read_all(ncid, f, g);
  const MPI_Offset lo = (MPI_Offset)ROWS * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = (MPI_Offset)ROWS * (mpi_test_rank + 1) / mpi_test_nprocs;
  const char *shares[2] = {"1e30", NULL}; /* the index whenever usable; the cost check's choice */
  for (int s = 0; s < 2; ++s) {
    if (shares[s]) setenv("EXACDF_QUERY_INDEX_SHARE", shares[s], 1);
    else unsetenv("EXACDF_QUERY_INDEX_SHARE");
    int q1, q2, q;
    CHECK_OK(exa_query_create(ncid, f, op1, NC_FLOAT, &c1, &q1));
    q = q1;
    if (how) {
      CHECK_OK(exa_query_create(ncid, g, op2, NC_INT, &c2, &q2));
      CHECK_OK(exa_query_combine(q1, how, q2, &q));
    }
    MPI_Offset nhits = -1, want = 0;
    CHECK_OK(exa_query_eval(ncid, q, NULL, NULL, &nhits));
    MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * 2 * sizeof *coords);
    CHECK_OK(exa_query_hits(ncid, q, nhits, coords));
    for (MPI_Offset i = lo * COLS; i < hi * COLS; ++i) {
      int a = test_op(op1, fvals[i], c1), pass = a;
      if (how == EXA_QUERY_AND) pass = a && test_op(op2, ivals[i], c2);
      if (how == EXA_QUERY_OR) pass = a || test_op(op2, ivals[i], c2);
      if (!pass) continue;
      if (want < nhits) CHECK(coords[2 * want] == i / COLS && coords[2 * want + 1] == i % COLS);
      ++want;
    }
    if (nhits != want)
      fprintf(stderr, "[rank %d] %s: %lld hits, want %lld\n", mpi_test_rank, what, (long long)nhits, (long long)want);
    CHECK(nhits == want);
    free(coords);
    if (how) {
      CHECK_OK(exa_query_free(q));
      CHECK_OK(exa_query_free(q2));
    }
    CHECK_OK(exa_query_free(q1));
  }
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
}

static void all_queries(int ncid, int f, int g, const char *what) {
  char label[200];
  /* On and off bin edges (values are multiples of 0.5), below and above every value. */
  const float cs[] = {-1.0f, 0.0f, 37.5f, 100.0f, 250.25f, 511.5f, 2000.0f, 6000.0f};
  const int ops[] = {EXA_QUERY_EQ, EXA_QUERY_NE, EXA_QUERY_LT, EXA_QUERY_LE, EXA_QUERY_GT, EXA_QUERY_GE};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i)
    for (size_t k = 0; k < 6; ++k) {
      snprintf(label, sizeof label, "%s: f op%d %g", what, ops[k], cs[i]);
      check_query(ncid, f, g, ops[k], cs[i], 0, 0, 0, label);
    }
  snprintf(label, sizeof label, "%s: f > 100 and g < 3", what);
  check_query(ncid, f, g, EXA_QUERY_GT, 100.0f, EXA_QUERY_AND, EXA_QUERY_LT, 3, label);
  snprintf(label, sizeof label, "%s: f <= 20 or g == 5", what);
  check_query(ncid, f, g, EXA_QUERY_LE, 20.0f, EXA_QUERY_OR, EXA_QUERY_EQ, 5, label);
}

static void expect_index(int ncid, int varid, int present, int current, MPI_Offset nstale, const char *what) {
  int p = -1, cur = -1;
  MPI_Offset n = -1, stale = -1;
  CHECK_OK(exa_index_inq(ncid, varid, &p, &cur, NULL, NULL));
  CHECK_OK(exa_index_inq_chunks(ncid, varid, &n, &stale, NULL, NULL));
  int ok = p == present && (!present || (cur == current && n == NCHUNKS && (nstale < 0 || stale == nstale)));
  if (!ok)
    fprintf(stderr, "[rank %d] %s: present %d current %d chunks %lld stale %lld\n", mpi_test_rank, what, p, cur,
            (long long)n, (long long)stale);
  CHECK(ok);
}

static void expect_rebuilt(int ncid, int varid, MPI_Offset rebuilt, MPI_Offset kept, const char *what) {
  MPI_Offset r = -1, k = -1;
  CHECK_OK(exa_index_inq_chunks(ncid, varid, NULL, NULL, &r, &k));
  if (r != rebuilt || k != kept)
    fprintf(stderr, "[rank %d] %s: rebuilt %lld kept %lld\n", mpi_test_rank, what, (long long)r, (long long)k);
  CHECK(r == rebuilt && k == kept);
}

/* Rank 0 writes rows [row, row + nrows) of f with values from `first` (the others take part with nothing). */
static void put_rows(int ncid, int f, MPI_Offset row, MPI_Offset nrows, float first) {
  float buf[CHUNK_ROWS * 2 * COLS];
  for (MPI_Offset i = 0; i < nrows * COLS; ++i) buf[i] = first + (float)i;
  MPI_Offset start[2] = {row, 0}, count[2] = {mpi_test_rank == 0 ? nrows : 0, COLS};
  CHECK_OK(ncmpi_put_vara_float_all(ncid, f, start, count, buf));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("query_infile.exa"));
  int ncid, dims[2], f, g;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "row", ROWS, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", COLS, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "f", NC_FLOAT, 2, dims, &f));
  CHECK_OK(ncmpi_def_var(ncid, "g", NC_INT, 2, dims, &g));
  CHECK_OK(ncmpi_enddef(ncid));
  {
    /* f: a smooth field with repeats (multiples of 0.5); g: small integers. */
    const MPI_Offset lo = (MPI_Offset)ROWS * mpi_test_rank / mpi_test_nprocs;
    const MPI_Offset hi = (MPI_Offset)ROWS * (mpi_test_rank + 1) / mpi_test_nprocs;
    for (MPI_Offset i = lo * COLS; i < hi * COLS; ++i) {
      fvals[i - lo * COLS] = (float)(i / 4) * 0.5f;
      ivals[i - lo * COLS] = (int)((i * 7) % 11);
    }
    MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
    CHECK_OK(ncmpi_put_vara_float_all(ncid, f, start, count, fvals));
    CHECK_OK(ncmpi_put_vara_int_all(ncid, g, start, count, ivals));
  }
  MPI_Offset blocks_before = 0, blocks_after = 0, hoff = 0, hsize = 0;
  CHECK_OK(exa_inq_blocks(ncid, &blocks_before));
  CHECK_OK(exa_index_create(ncid, f, "bins=16;chunk=32"));
  CHECK_OK(exa_inq_blocks(ncid, &blocks_after));
  CHECK(blocks_after == blocks_before + 1);
  CHECK(find_index_block(ncid, f, &hoff, &hsize));
  CHECK(!sidecar_exists(path, f)); /* inside the file, no sidecar */
  expect_index(ncid, f, 1, 1, 0, "built");
  expect_rebuilt(ncid, f, NCHUNKS, 0, "built");
  all_queries(ncid, f, g, "built");

  /* Overwrites: chunk 1 (rows 40-43) and chunk 9 (rows 300-301) stale; an update rebuilds those two only. */
  put_rows(ncid, f, 40, 4, 5000.0f);
  put_rows(ncid, f, 300, 2, -3.0f);
  expect_index(ncid, f, 1, 1, 2, "overwritten");
  all_queries(ncid, f, g, "overwritten");
  CHECK_OK(exa_index_create(ncid, f, "update"));
  expect_rebuilt(ncid, f, 2, NCHUNKS - 2, "update");
  expect_index(ncid, f, 1, 1, 0, "updated");
  all_queries(ncid, f, g, "updated");
  CHECK(!sidecar_exists(path, f));

  /* A put before the close: its chunk's mark is committed with the close. */
  put_rows(ncid, f, 100, 1, 7.0f);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 1, 1, 1, "reopened");
  all_queries(ncid, f, g, "reopened");
  CHECK_OK(ncmpi_close(ncid));

  /* A writer that never queries: its puts reach the index blocks at its close.
   * While it has the file open, another open does not trust them. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_rows(ncid, f, 200, 3, 123.5f); /* chunk 6 */
  CHECK_OK(ncmpi_sync(ncid));
  {
    int other;
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &other));
    expect_index(other, f, 1, 0, -1, "while a writer has it open");
    all_queries(other, f, g, "while a writer has it open");
    CHECK_OK(ncmpi_close(other));
  }
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 1, 1, 2, "after a writer that did not query");
  all_queries(ncid, f, g, "after a writer that did not query");
  CHECK_OK(ncmpi_close(ncid));

  /* A writer that never closes (as a crash): its data is on disk, its marks
   * are not; the index blocks are not used, and the next writer drops them. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_rows(ncid, f, 480, 4, 9999.0f); /* chunk 15 */
  CHECK_OK(ncmpi_sync(ncid));
  CHECK_OK(ncmpi_abort(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 1, 0, -1, "after a crashed writer");
  all_queries(ncid, f, g, "after a crashed writer");
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 0, 0, 0, "dropped by the next writer");
  all_queries(ncid, f, g, "dropped by the next writer");
  CHECK_OK(exa_index_create(ncid, f, "bins=8;chunk=32"));
  CHECK(find_index_block(ncid, f, &hoff, &hsize));
  expect_index(ncid, f, 1, 1, 0, "rebuilt");
  all_queries(ncid, f, g, "rebuilt");
  CHECK_OK(ncmpi_close(ncid));

  /* A damaged chunk piece: that chunk is scanned; a damaged header block: the index is not used. */
  flip_byte(path, chunk_offset(path, hoff, hsize, 3) + 2);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  all_queries(ncid, f, g, "damaged chunk piece");
  CHECK_OK(ncmpi_close(ncid));
  flip_byte(path, hoff + 40);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 0, 0, 0, "damaged header block");
  all_queries(ncid, f, g, "damaged header block");
  CHECK_OK(ncmpi_close(ncid));

  /* Dropped: no index block left. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_index_drop(ncid, f));
  CHECK(!find_index_block(ncid, f, &hoff, &hsize));
  expect_index(ncid, f, 0, 0, 0, "dropped");
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
