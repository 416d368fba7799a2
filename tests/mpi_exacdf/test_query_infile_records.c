/* Query indexes inside partitioned files WITH record variables (issue 20;
 * docs/format.md "Index blocks"): the commit that lists index blocks moves
 * the current record section past them, so records appended later never
 * overwrite a chunk piece. Every query equals a brute-force scan of the
 * values read back, and the values read back equal what was put (a model
 * kept on every rank; a record variable of another block too): after the
 * build, after appended records (beyond what the index covers: scanned),
 * after overwrites (stale chunks) and an update, after a reopen, after a
 * writer that appends without querying, after a writer that appended and
 * never closed (a crash: the index is not used, the next writer drops it),
 * with requests posted across an index build, after a redef that adds a
 * record variable (the index blocks go; a new build works), with a damaged
 * chunk piece or header block. The chunk pieces are checked to be still in
 * use (the bitmaps alone answer a condition on a bin edge). */
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

#define COLS 8
#define MAXROWS 1024
#define CHUNK_ROWS 32
#define EDGES "edges=50,100,150,200,250,300;chunk=32" /* the constants of expect_pieces_used on edges */

static float fmodel[MAXROWS * COLS], fvals[MAXROWS * COLS];
static int gmodel[MAXROWS * COLS], ivals[MAXROWS * COLS];
static MPI_Offset nrows; /* records written so far (the model's) */
static int grp = -1;       /* "/grp/r": a record variable in another block (its begin moves too) */
static double rmodel[MAXROWS], rvals[MAXROWS];

static float f_at(MPI_Offset i) { return (float)((i / 4) % 700) * 0.5f; }
static int g_at(MPI_Offset i) { return (int)((i * 7) % 11); }

/* Every value read back equals the model (no record was overwritten by index bytes). */
static void read_all(int ncid, int f, int g, const char *what) {
  MPI_Offset len = -1;
  int dimids[2];
  CHECK_OK(ncmpi_inq_vardimid(ncid, f, dimids));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dimids[0], &len));
  CHECK(len == nrows);
  MPI_Offset start[2] = {0, 0}, count[2] = {nrows, COLS};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, f, start, count, fvals));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, g, start, count, ivals));
  CHECK_OK(ncmpi_inq_varid(ncid, "/grp/r", &grp)); /* (ids follow the blocks' order on disk) */
  CHECK_OK(ncmpi_get_vara_double_all(ncid, grp, start, count, rvals));
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < nrows * COLS; ++i) bad += fvals[i] != fmodel[i] || ivals[i] != gmodel[i];
  for (MPI_Offset r = 0; r < nrows; ++r) bad += rvals[r] != rmodel[r];
  if (bad) fprintf(stderr, "[rank %d] %s: %lld values differ from what was put\n", mpi_test_rank, what, (long long)bad);
  CHECK(bad == 0);
}

/* (f op1 c1) AND/OR (g op2 c2), or the first alone (how 0), on the default
 * split (rank r: rows [r*nrows/p, (r+1)*nrows/p)), equal to the scan. */
static void check_query(int ncid, int f, int g, int op1, float c1, int how, int op2, int c2, const char *what) {
  const MPI_Offset lo = nrows * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = nrows * (mpi_test_rank + 1) / mpi_test_nprocs;
  const char *shares[2] = {"1e30", NULL}; /* the index whenever usable; the cost check's choice */
  for (int s = 0; s < 2; ++s) {
    if (shares[s]) setenv("EXACDF_QUERY_INDEX_SHARE", shares[s], 1);
    else unsetenv("EXACDF_QUERY_INDEX_SHARE");
    int q1, q2 = -1, q;
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
    MPI_Offset wrong = 0;
    for (MPI_Offset i = lo * COLS; i < hi * COLS; ++i) {
      int a = test_op(op1, fvals[i], c1), pass = a;
      if (how == EXA_QUERY_AND) pass = a && test_op(op2, ivals[i], c2);
      if (how == EXA_QUERY_OR) pass = a || test_op(op2, ivals[i], c2);
      if (!pass) continue;
      if (want < nhits) wrong += !(coords[2 * want] == i / COLS && coords[2 * want + 1] == i % COLS);
      ++want;
    }
    if (nhits != want || wrong)
      fprintf(stderr, "[rank %d] %s: %lld hits, want %lld (%lld misplaced)\n", mpi_test_rank, what, (long long)nhits,
              (long long)want, (long long)wrong);
    CHECK(nhits == want && wrong == 0);
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
  read_all(ncid, f, g, what);
  /* On and off bin edges (values are multiples of 0.5), below and above every value. */
  const float cs[] = {-1.0f, 37.5f, 100.0f, 250.25f, 6000.0f};
  const int ops[] = {EXA_QUERY_EQ, EXA_QUERY_NE, EXA_QUERY_LT, EXA_QUERY_GE};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i)
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; ++k) {
      snprintf(label, sizeof label, "%s: f op%d %g", what, ops[k], cs[i]);
      check_query(ncid, f, g, ops[k], cs[i], 0, 0, 0, label);
    }
  snprintf(label, sizeof label, "%s: f > 100 and g < 3", what);
  check_query(ncid, f, g, EXA_QUERY_GT, 100.0f, EXA_QUERY_AND, EXA_QUERY_LT, 3, label);
  snprintf(label, sizeof label, "%s: f <= 20 or g == 5", what);
  check_query(ncid, f, g, EXA_QUERY_LE, 20.0f, EXA_QUERY_OR, EXA_QUERY_EQ, 5, label);
}

static void expect_index(int ncid, int varid, int present, int current, MPI_Offset nchunks, MPI_Offset nstale,
                         const char *what) {
  int p = -1, cur = -1;
  MPI_Offset n = -1, stale = -1;
  CHECK_OK(exa_index_inq(ncid, varid, &p, &cur, NULL, NULL));
  CHECK_OK(exa_index_inq_chunks(ncid, varid, &n, &stale, NULL, NULL));
  int ok = p == present && (!present || (cur == current && n == nchunks && (nstale < 0 || stale == nstale)));
  if (!ok)
    fprintf(stderr, "[rank %d] %s: present %d current %d chunks %lld stale %lld\n", mpi_test_rank, what, p, cur,
            (long long)n, (long long)stale);
  CHECK(ok);
}

/* The chunk pieces are used, so none was overwritten by records: with the
 * index forced, f >= c for c on a bin edge over rows [row0, row1) (chunks
 * built and not stale since) is answered by the bitmaps alone (no value
 * tested one by one), where a piece that failed its CRC would have its
 * chunk's values tested. */
static void check_pieces(int ncid, int f, MPI_Offset row0, MPI_Offset row1, float c, int intact, const char *what) {
  const MPI_Offset lo = row0 + (row1 - row0) * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = row0 + (row1 - row0) * (mpi_test_rank + 1) / mpi_test_nprocs;
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1);
  setenv("EXACDF_QUERY_DENSE_CANDIDATES", "0", 1); /* candidates from the bitmaps, never a dense read */
  int q;
  MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, COLS}, nhits = -1, want = 0;
  CHECK_OK(exa_query_create(ncid, f, EXA_QUERY_GE, NC_FLOAT, &c, &q));
  const long long before = exa_debug_query_values_tested();
  CHECK_OK(exa_query_eval(ncid, q, start, count, &nhits));
  const long long tested = exa_debug_query_values_tested() - before;
  CHECK_OK(exa_query_free(q));
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  unsetenv("EXACDF_QUERY_DENSE_CANDIDATES");
  for (MPI_Offset i = lo * COLS; i < hi * COLS; ++i) want += fmodel[i] >= c;
  if (nhits != want || (tested == 0) != intact)
    fprintf(stderr, "[rank %d] %s: %lld hits (want %lld), %lld values tested\n", mpi_test_rank, what,
            (long long)nhits, (long long)want, tested);
  CHECK(nhits == want && (tested == 0) == intact);
}

static void expect_pieces_used(int ncid, int f, MPI_Offset row0, MPI_Offset row1, float c, const char *what) {
  check_pieces(ncid, f, row0, row1, c, 1, what);
}

/* Rows [row, row + n) of f and g (values from the model's formulas plus
 * `shift` for f), split over the ranks; rows past nrows are appended. */
static void put_rows(int ncid, int f, int g, MPI_Offset row, MPI_Offset n, float shift) {
  CHECK(row + n <= MAXROWS);
  const MPI_Offset lo = row + n * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = row + n * (mpi_test_rank + 1) / mpi_test_nprocs;
  for (MPI_Offset i = row * COLS; i < (row + n) * COLS; ++i) {
    fmodel[i] = f_at(i) + shift;
    gmodel[i] = g_at(i);
  }
  for (MPI_Offset r = row; r < row + n; ++r) rmodel[r] = (double)r * 1.5 + shift;
  MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
  CHECK_OK(ncmpi_put_vara_float_all(ncid, f, start, count, fmodel + lo * COLS));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, g, start, count, gmodel + lo * COLS));
  CHECK_OK(ncmpi_inq_varid(ncid, "/grp/r", &grp));
  CHECK_OK(ncmpi_put_vara_double_all(ncid, grp, start, count, rmodel + lo));
  if (row + n > nrows) nrows = row + n;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("query_infile_records.exa"));
  if (mpi_test_rank == 0) {
    char side[1300];
    for (int v = 0; v < 4; ++v) {
      snprintf(side, sizeof side, "%s.exaidx.%d", path, v);
      unlink(side);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int ncid, dims[3], f, g, fixed;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", COLS, &dims[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 100, &dims[2]));
  CHECK_OK(ncmpi_def_var(ncid, "f", NC_FLOAT, 2, dims, &f));
  CHECK_OK(ncmpi_def_var(ncid, "g", NC_INT, 2, dims, &g));
  CHECK_OK(ncmpi_def_var(ncid, "fixed", NC_DOUBLE, 1, &dims[2], &fixed));
  CHECK_OK(ncmpi_def_var(ncid, "/grp/r", NC_DOUBLE, 1, dims, &grp));
  CHECK_OK(ncmpi_enddef(ncid));
  double fixed_vals[100], fixed_back[100];
  for (int i = 0; i < 100; ++i) fixed_vals[i] = i * 1.25;
  CHECK_OK(ncmpi_put_var_double_all(ncid, fixed, fixed_vals));
  put_rows(ncid, f, g, 0, 256, 0.0f);

  MPI_Offset hoff = 0, hsize = 0;
  CHECK_OK(exa_index_create(ncid, f, EDGES));
  CHECK(find_index_block(ncid, f, &hoff, &hsize));
  CHECK(!sidecar_exists(path, f)); /* inside the file, no sidecar */
  expect_pieces_used(ncid, f, 0, 256, 100.0f, "built");
  expect_index(ncid, f, 1, 1, 8, 0, "built");
  all_queries(ncid, f, g, "built");

  /* Appended records: they go past the index bytes (read back intact);
   * rows past the index are scanned. Then a second index (g's) after them. */
  put_rows(ncid, f, g, 256, 40, 0.0f);
  all_queries(ncid, f, g, "appended");
  expect_pieces_used(ncid, f, 0, 256, 100.0f, "appended");
  CHECK_OK(exa_index_create(ncid, g, "bins=4;chunk=16"));
  put_rows(ncid, f, g, 296, 30, 0.0f);
  all_queries(ncid, f, g, "appended after a second index");

  /* Overwrites: chunk 1 and the appended rows; an update. */
  put_rows(ncid, f, g, 40, 4, 5000.0f);
  put_rows(ncid, f, g, 300, 2, -3.0f);
  all_queries(ncid, f, g, "overwritten");
  CHECK_OK(exa_index_create(ncid, f, "update"));
  expect_index(ncid, f, 1, 1, (nrows + CHUNK_ROWS - 1) / CHUNK_ROWS, 0, "updated");
  all_queries(ncid, f, g, "updated");
  put_rows(ncid, f, g, nrows, 17, 0.0f); /* appended after the update, before the close */
  CHECK_OK(ncmpi_get_var_double_all(ncid, fixed, fixed_back));
  CHECK(memcmp(fixed_back, fixed_vals, sizeof fixed_vals) == 0);
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK(find_index_block(ncid, f, &hoff, &hsize));
  expect_index(ncid, f, 1, 1, 11, -1, "reopened");
  all_queries(ncid, f, g, "reopened");
  expect_pieces_used(ncid, f, 128, 320, 200.0f, "reopened");
  CHECK_OK(ncmpi_get_var_double_all(ncid, fixed, fixed_back));
  CHECK(memcmp(fixed_back, fixed_vals, sizeof fixed_vals) == 0);
  CHECK_OK(ncmpi_close(ncid));

  /* A writer that appends and overwrites without querying: its marks reach
   * the index blocks at its close; its records are read back intact. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_rows(ncid, f, g, nrows, 50, 0.0f);
  put_rows(ncid, f, g, 100, 3, 123.5f); /* chunk 3 */
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 1, 1, 11, -1, "after a writer that did not query");
  all_queries(ncid, f, g, "after a writer that did not query");
  expect_pieces_used(ncid, f, 128, 320, 200.0f, "after a writer that did not query");
  CHECK_OK(ncmpi_close(ncid));

  /* A writer that never closes (as a crash) after appending: its records are
   * on disk, its marks are not; the index blocks are not used, and the next
   * writer drops them (that commit moves the records too). */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_rows(ncid, f, g, nrows, 12, 0.0f);
  put_rows(ncid, f, g, 200, 2, 4444.0f);
  CHECK_OK(ncmpi_sync(ncid));
  CHECK_OK(ncmpi_abort(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 1, 0, 11, -1, "after a crashed writer");
  all_queries(ncid, f, g, "after a crashed writer");
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK(!find_index_block(ncid, f, &hoff, &hsize));
  expect_index(ncid, f, 0, 0, 0, 0, "dropped by the next writer");
  all_queries(ncid, f, g, "dropped by the next writer");
  CHECK_OK(exa_index_create(ncid, f, EDGES));
  expect_index(ncid, f, 1, 1, (nrows + CHUNK_ROWS - 1) / CHUNK_ROWS, 0, "rebuilt after a crash");
  all_queries(ncid, f, g, "rebuilt after a crash");

  /* The same writer queries between appends (each commit of marks moves the
   * records again); requests posted before an index build and waited for
   * after it write where their records are now. */
  for (int k = 0; k < 3; ++k) {
    put_rows(ncid, f, g, nrows, 9, (float)k);
    put_rows(ncid, f, g, 10 + 32 * k, 1, 77.0f);
    all_queries(ncid, f, g, "queried between appends");
  }
  {
    float fr[COLS];
    int gr[COLS], req[4], st[4];
    const MPI_Offset row = nrows;
    for (int i = 0; i < COLS; ++i) {
      fmodel[row * COLS + i] = fr[i] = 1000.0f + (float)i;
      gmodel[row * COLS + i] = gr[i] = 3 + i;
      fmodel[20 * COLS + i] = 999.5f; /* an old record too (a closed section now) */
    }
    float old20[COLS];
    for (int i = 0; i < COLS; ++i) old20[i] = 999.5f;
    MPI_Offset start[2] = {row, 0}, count[2] = {1, COLS}, start20[2] = {20, 0};
    CHECK_OK(ncmpi_iput_vara_float(ncid, f, start, count, fr, &req[0]));
    CHECK_OK(ncmpi_iput_vara_int(ncid, g, start, count, gr, &req[1]));
    CHECK_OK(ncmpi_iput_vara_float(ncid, f, start20, count, old20, &req[2]));
    rmodel[row] = (double)row * 1.5;
    CHECK_OK(ncmpi_inq_varid(ncid, "/grp/r", &grp));
    CHECK_OK(ncmpi_iput_vara_double(ncid, grp, start, count, &rmodel[row], &req[3]));
    CHECK_OK(exa_index_create(ncid, g, "bins=4;chunk=16"));
    CHECK_OK(ncmpi_wait_all(ncid, 4, req, st));
    CHECK(st[0] == NC_NOERR && st[1] == NC_NOERR && st[2] == NC_NOERR && st[3] == NC_NOERR);
    nrows = row + 1;
    all_queries(ncid, f, g, "requests across an index build");
    expect_pieces_used(ncid, f, 128, 320, 200.0f, "requests across an index build");
  }
  /* A redef that adds a record variable: the index blocks go; queries scan; a new build. */
  int h;
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_var(ncid, "h", NC_SHORT, 2, dims, &h));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK(!find_index_block(ncid, f, &hoff, &hsize));
  expect_index(ncid, f, 0, 0, 0, 0, "after a redef");
  all_queries(ncid, f, g, "after a redef");
  CHECK_OK(exa_index_create(ncid, f, EDGES));
  put_rows(ncid, f, g, nrows, 20, 0.0f);
  {
    short hv[COLS];
    for (int i = 0; i < COLS; ++i) hv[i] = (short)(i + 1);
    MPI_Offset start[2] = {nrows - 1, 0}, count[2] = {mpi_test_rank == 0, COLS};
    CHECK_OK(ncmpi_put_vara_short_all(ncid, h, start, count, hv));
    short back[COLS];
    CHECK_OK(ncmpi_get_vara_short_all(ncid, h, start, count, back));
    if (mpi_test_rank == 0) CHECK(memcmp(back, hv, sizeof hv) == 0);
  }
  all_queries(ncid, f, g, "rebuilt after a redef");
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK(find_index_block(ncid, f, &hoff, &hsize));
  all_queries(ncid, f, g, "reopened after a redef");
  CHECK_OK(ncmpi_get_var_double_all(ncid, fixed, fixed_back));
  CHECK(memcmp(fixed_back, fixed_vals, sizeof fixed_vals) == 0);
  CHECK_OK(ncmpi_close(ncid));

  /* A damaged chunk piece: that chunk is scanned; a damaged header block: the index is not used. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_pieces_used(ncid, f, 96, 128, 100.0f, "chunk 3 before the damage");
  CHECK_OK(ncmpi_close(ncid));
  flip_byte(path, chunk_offset(path, hoff, hsize, 3) + 2);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  all_queries(ncid, f, g, "damaged chunk piece");
  if (mpi_test_nprocs == 1) check_pieces(ncid, f, 96, 128, 100.0f, 0, "damaged chunk piece: its values tested");
  CHECK_OK(ncmpi_close(ncid));
  flip_byte(path, hoff + 40);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_index(ncid, f, 0, 0, 0, 0, "damaged header block");
  all_queries(ncid, f, g, "damaged header block");
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
