/* Space an index commit frees IS written again by later commits, in a file
 * with records, and none of it is still in use (issue 20; docs/format.md
 * "Index blocks"). test_query_index_reuse's rounds reach a steady state in
 * which every commit takes back extents of the sizes it frees, so a commit
 * that wrongly freed bytes it still references went unnoticed: nothing was
 * ever written there. (Planted: the first page-keeping commit after a
 * record move freeing the whole table that move wrote, page 0 included,
 * which it keeps. That test passed; this one fails at 1, 2 and 4 ranks: a
 * later commit writes its table over the kept page 0, and the reopen at
 * the end is refused with NC_EFILEMETA.)
 *
 * Rounds of appended records, an overwrite and updates of f's index, with a
 * second variable's index built (its pieces go past the end: the records
 * move, the whole table is written anew), dropped, and a third one built.
 * Then a new writer (its list of freed space starts empty) of a file whose
 * last commit kept a page: g's build moves the records and writes the whole
 * table; f's updates keep that table's page 0 and take back what the
 * commits before them freed. After every commit every value read back
 * equals the model and every query (index forced) equals a brute-force
 * scan; after each reopen too. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <exacdf.h>

#include "mpi_test.h"
#include "superblock_probe.h"

#define COLS 8
#define NF 3      /* float variables f, g, h (indexed at different times) */
#define GROUPS 24 /* record variables in blocks of their own: a record move rewrites them all */
#define EMPTY_GROUPS 520 /* so the table has two pages (512 entries a page) */
#define ROWS0 64
#define STEP 8
#define ROUNDS 14
#define MAXROWS (ROWS0 + STEP * ROUNDS + 16)
#define EDGES "edges=50,100,150,200,250,300;chunk=128"

static float fmodel[NF][MAXROWS * COLS], fvals[MAXROWS * COLS];
static double rmodel[GROUPS][MAXROWS], rvals[MAXROWS];
static MPI_Offset nrows;
static int ncid, fv[NF], rv[GROUPS];
static const char *fnames[NF] = {"f", "g", "h"};

static int test_op(int op, double v, double c) {
  switch (op) {
    case EXA_QUERY_EQ: return v == c;
    case EXA_QUERY_LT: return v < c;
    default: return v >= c;
  }
}

static float value_at(int k, MPI_Offset i) { return (float)((i / (4 + k)) % 700) * 0.5f + (float)k; }

static void define(const char *path) {
  int dims[2];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", COLS, &dims[1]));
  for (int k = 0; k < NF; ++k) CHECK_OK(ncmpi_def_var(ncid, fnames[k], NC_FLOAT, 2, dims, &fv[k]));
  for (int k = 0; k < GROUPS; ++k) {
    char name[64];
    snprintf(name, sizeof name, "/g%02d/r", k);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_DOUBLE, 1, dims, &rv[k]));
  }
  for (int k = 0; k < EMPTY_GROUPS; ++k) {
    char name[64];
    int d;
    snprintf(name, sizeof name, "/h%03d/d", k);
    CHECK_OK(ncmpi_def_dim(ncid, name, 1, &d));
  }
  CHECK_OK(ncmpi_enddef(ncid));
}

static void lookup(void) {
  for (int k = 0; k < NF; ++k) CHECK_OK(ncmpi_inq_varid(ncid, fnames[k], &fv[k]));
  for (int k = 0; k < GROUPS; ++k) {
    char name[64];
    snprintf(name, sizeof name, "/g%02d/r", k);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &rv[k]));
  }
}

/* Rows [row, row + n) of every variable, split over the ranks. */
static void put_rows(MPI_Offset row, MPI_Offset n, float shift) {
  CHECK(row + n <= MAXROWS);
  for (int k = 0; k < NF; ++k)
    for (MPI_Offset i = row * COLS; i < (row + n) * COLS; ++i) fmodel[k][i] = value_at(k, i) + shift;
  for (int k = 0; k < GROUPS; ++k)
    for (MPI_Offset r = row; r < row + n; ++r) rmodel[k][r] = (double)r * 1.5 + k + shift;
  const MPI_Offset lo = row + n * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = row + n * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
  for (int k = 0; k < NF; ++k) CHECK_OK(ncmpi_put_vara_float_all(ncid, fv[k], start, count, fmodel[k] + lo * COLS));
  for (int k = 0; k < GROUPS; ++k) CHECK_OK(ncmpi_put_vara_double_all(ncid, rv[k], start, count, rmodel[k] + lo));
  if (row + n > nrows) nrows = row + n;
}

/* Every record value read back equals the model. */
static void read_records(const char *what) {
  MPI_Offset start[2] = {0, 0}, count[2] = {nrows, COLS}, bad = 0;
  for (int k = 0; k < GROUPS; ++k) {
    CHECK_OK(ncmpi_get_vara_double_all(ncid, rv[k], start, count, rvals));
    for (MPI_Offset r = 0; r < nrows; ++r) bad += rvals[r] != rmodel[k][r];
  }
  if (bad) fprintf(stderr, "[rank %d] %s: %lld record values differ from what was put\n", mpi_test_rank, what, (long long)bad);
  CHECK(bad == 0);
}

/* Variable k's values read back equal the model (into fvals); then every
 * query on it, with the index forced, equals a scan of them. */
static void check_var(int k, const char *what) {
  MPI_Offset start[2] = {0, 0}, count[2] = {nrows, COLS}, bad = 0;
  CHECK_OK(ncmpi_get_vara_float_all(ncid, fv[k], start, count, fvals));
  for (MPI_Offset i = 0; i < nrows * COLS; ++i) bad += fvals[i] != fmodel[k][i];
  if (bad) fprintf(stderr, "[rank %d] %s: %s: %lld values differ\n", mpi_test_rank, what, fnames[k], (long long)bad);
  CHECK(bad == 0);
  const MPI_Offset lo = nrows * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = nrows * (mpi_test_rank + 1) / mpi_test_nprocs;
  const float cs[] = {-1.0f, 100.0f, 250.25f, 1003.5f};
  const int ops[] = {EXA_QUERY_EQ, EXA_QUERY_LT, EXA_QUERY_GE};
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1);
  for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ++ci) {
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi) {
      int q;
      MPI_Offset nhits = -1, want = 0, wrong = 0;
      const float c = cs[ci];
      CHECK_OK(exa_query_create(ncid, fv[k], ops[oi], NC_FLOAT, &c, &q));
      CHECK_OK(exa_query_eval(ncid, q, NULL, NULL, &nhits));
      MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * 2 * sizeof *coords);
      CHECK_OK(exa_query_hits(ncid, q, nhits, coords));
      for (MPI_Offset i = lo * COLS; i < hi * COLS; ++i) {
        if (!test_op(ops[oi], fvals[i], c)) continue;
        if (want < nhits) wrong += !(coords[2 * want] == i / COLS && coords[2 * want + 1] == i % COLS);
        ++want;
      }
      if (nhits != want || wrong)
        fprintf(stderr, "[rank %d] %s: %s op %d %g: %lld hits, want %lld (%lld misplaced)\n", mpi_test_rank, what,
                fnames[k], ops[oi], (double)c, (long long)nhits, (long long)want, (long long)wrong);
      CHECK(nhits == want && wrong == 0);
      free(coords);
      CHECK_OK(exa_query_free(q));
    }
  }
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
}

/* The index of k is present and current (indexed) or absent. */
static void expect_index(int k, int indexed, const char *what) {
  int present = -1, current = -1;
  CHECK_OK(exa_index_inq(ncid, fv[k], &present, &current, NULL, NULL));
  if (present != indexed || (indexed && current != 1))
    fprintf(stderr, "[rank %d] %s: %s: index present %d current %d\n", mpi_test_rank, what, fnames[k], present, current);
  CHECK(present == indexed && (!indexed || current == 1));
}

static int indexed[NF];

static void check_all(const char *what) {
  read_records(what);
  for (int k = 0; k < NF; ++k) {
    expect_index(k, indexed[k], what);
    check_var(k, what);
  }
}

static long long file_size(const char *path) {
  long long n = -1;
  struct stat s;
  if (mpi_test_rank == 0 && stat(path, &s) == 0) n = (long long)s.st_size;
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  CHECK(n > 0);
  return n;
}

static void index_op(int k, const char *spec) {
  if (spec == NULL) {
    CHECK_OK(exa_index_drop(ncid, fv[k]));
    indexed[k] = 0;
    return;
  }
  CHECK_OK(exa_index_create(ncid, fv[k], spec));
  indexed[k] = 1;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("pages.exa"));
  unsetenv("EXACDF_QUERY_SIDECAR");
  define(path);
  put_rows(0, ROWS0, 0.0f);
  index_op(0, EDGES);
  check_all("built");
  long long size_before = 0;
  for (int k = 0; k < ROUNDS; ++k) {
    char what[64];
    snprintf(what, sizeof what, "round %d", k);
    put_rows(nrows, STEP, 0.0f);
    put_rows((MPI_Offset)(k * 13) % nrows, 1, 1000.0f + (float)k);
    if (k == 2) index_op(1, EDGES); /* g's pieces past the end: the records move */
    if (k == 6) index_op(1, NULL);  /* g's header block and pieces freed */
    if (k == 8) index_op(2, "edges=10,20,30,40,50,60,70,80,90,100,200,300,400;chunk=64");
    index_op(0, "update"); /* a page-keeping commit, its sizes changing as f grows */
    if (k >= 8 && indexed[2]) index_op(2, "update");
    check_all(what);
    if (k == ROUNDS / 2) {
      CHECK_OK(ncmpi_sync(ncid));
      size_before = file_size(path);
    }
  }
  CHECK_OK(ncmpi_sync(ncid));
  const long long grown = file_size(path) - size_before;
  if (mpi_test_rank == 0) printf("the file grew %lld bytes over rounds %d-%d\n", grown, ROUNDS / 2 + 1, ROUNDS - 1);
  CHECK_OK(ncmpi_close(ncid));
  CHECK(superblock_flag_set(path, 16u)); /* the last commit kept a page */

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  lookup();
  check_all("reopened");
  CHECK_OK(ncmpi_close(ncid));

  /* A new writer (its list of freed space starts empty) of a file whose
   * last commit kept a page: g's build moves the records and writes the
   * whole table (the old table was only its head and a page: the only
   * large extent it frees is what a later commit frees of this table);
   * f's updates keep page 0 of it; h's build then needs more than any
   * small extent freed so far. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  lookup();
  const char *steps[] = {"g built", "f updated", "f updated again", "h built", "f updated last"};
  for (int s = 0; s < 5; ++s) {
    put_rows(nrows, 2, 0.0f);
    put_rows(3 + s, 1, 3000.0f);
    if (s == 0) index_op(1, EDGES);
    else if (s == 3) index_op(2, "edges=10,20,30,40,50,60,70,80,90,100,200,300,400;chunk=32");
    else index_op(0, "update");
    check_all(steps[s]);
  }
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  lookup();
  check_all("reopened at the end");
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
