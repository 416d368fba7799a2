/*
 * SWMR: a reader pinned on one generation (issue 19, "Tests"; docs/format.md
 * "SWMR").
 *
 * 1. Records: the writer commits 1,000 generations more while a reader stays
 *    on the one it opened (no refresh): records appended, a global attribute
 *    changed and one added every 100 commits, a record variable added at
 *    commit 500. At every 100th commit the reader reads its generation
 *    identically: the generation number, the record count, every 7th
 *    record's values, the attributes, the variables, and a fixed-size
 *    variable written before it opened (never rewritten: data written in
 *    place is not generation-isolated, docs/format.md).
 * 2. Compact data: the same with a file of compact variables only (their data
 *    lives in their blocks), the writer rewriting /c/a at every commit; the
 *    reader first reads /c/a after the writer's 100th commit more, from its
 *    generation's block, and must find that generation's values every time.
 *    In both, writer and reader agree a refresh bound of an hour, so the
 *    writer reuses no space the reader's generation references; after a
 *    refresh the reader sees the newest generation.
 * 3. Past the bound: writer and reader agree a bound of 1 s; the reader stays
 *    on its generation while the writer rewrites the compact variable after
 *    2 bounds (from then on the writer may reuse the space of the block the
 *    reader's generation references); the reader's reads fail with
 *    NC_ECANTREAD, delivering nothing, until it refreshes.
 * Every rank writes and reads (as test_swmr.c's interleaved part). exacdf
 * only. No timing assertions: the sleep only makes sure the bound is passed.
 */
#include <exacdf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi_test.h"

static int rank, nprocs;

#define X 8      /* ints per record of v */
#define N 256    /* ints of /c/a */
#define FIRST 5  /* commits before the reader opens */
#define MORE 1000

static int f(int var, int rec, int i) { return 100000 * var + 10 * rec + i; }

static void put_record(int ncid, int varid, int var, int rec) {
  int vals[X];
  MPI_Offset n = 0;
  for (int i = rank; i < X; i += nprocs) vals[n++] = f(var, rec, i);
  MPI_Offset start[2] = {rec, rank < X ? rank : 0}, count[2] = {1, n}, stride[2] = {1, nprocs};
  CHECK_OK(ncmpi_put_vars_int_all(ncid, varid, start, count, stride, vals));
}

/* /c/a = f(9, commit, i), the ranks splitting it */
static void put_a(int ncid, int varid, int commit) {
  int vals[N];
  const MPI_Offset share = (N + nprocs - 1) / nprocs, lo = rank * share < N ? rank * share : N;
  const MPI_Offset hi = lo + share < N ? lo + share : N;
  for (MPI_Offset i = lo; i < hi; i++) vals[i - lo] = f(9, commit, (int)i);
  MPI_Offset start[1] = {lo}, count[1] = {hi - lo};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
}

static int a_bad(int ncid, int commit) {
  int varid, got[N], bad = 0;
  CHECK_OK(ncmpi_inq_varid(ncid, "/c/a", &varid));
  CHECK_OK(ncmpi_get_var_int_all(ncid, varid, got));
  for (int i = 0; i < N; i++) bad += got[i] != f(9, commit, i);
  return bad;
}

/* records: v(time, x) and a fixed-size /c/a; else /c/a and /d/b, compact */
static int open_writer(const char *path, const char *bound, int records, int *v, int *a) {
  int w, d[2], dn;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", bound);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(w, "/c/n", N, &dn));
  CHECK_OK(ncmpi_def_var(w, "/c/a", NC_INT, 1, &dn, a));
  if (records) {
    CHECK_OK(ncmpi_def_dim(w, "time", NC_UNLIMITED, &d[0]));
    CHECK_OK(ncmpi_def_dim(w, "x", X, &d[1]));
    CHECK_OK(ncmpi_def_var(w, "v", NC_INT, 2, d, v));
  } else {
    CHECK_OK(ncmpi_def_var(w, "/d/b", NC_INT, 0, NULL, v));
  }
  int stage = 0;
  CHECK_OK(ncmpi_put_att_int(w, NC_GLOBAL, "stage", NC_INT, 1, &stage));
  CHECK_OK(ncmpi_enddef(w));
  put_a(w, *a, 0);
  return w;
}

static int open_reader(const char *path, const char *bound) {
  int r;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", bound);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, info, &r));
  MPI_Info_free(&info);
  return r;
}

/* Commit c of the writer: records (record c of v, and of w once it exists)
 * or /c/a = f(9, c); every 100th (c > 0) a redef (stage = c, attribute
 * "a<c>"; at 500 with records the variable w); then ncmpi_sync. */
static void commit(int w, int records, int v, int a, int c, int *wvar) {
  if (records) {
    put_record(w, v, 0, c);
    if (*wvar >= 0) put_record(w, *wvar, 1, c);
  } else if (c > 0) {
    put_a(w, a, c);
  }
  if (c > 0 && c % 100 == 0) {
    char name[32];
    int d[2];
    CHECK_OK(ncmpi_redef(w));
    CHECK_OK(ncmpi_put_att_int(w, NC_GLOBAL, "stage", NC_INT, 1, &c));
    snprintf(name, sizeof name, "a%d", c);
    CHECK_OK(ncmpi_put_att_int(w, NC_GLOBAL, name, NC_INT, 1, &c));
    if (records && c == 500) {
      CHECK_OK(ncmpi_inq_dimid(w, "time", &d[0]));
      CHECK_OK(ncmpi_inq_dimid(w, "x", &d[1]));
      CHECK_OK(ncmpi_def_var(w, "w", NC_INT, 2, d, wvar));
    }
    CHECK_OK(ncmpi_enddef(w));
  }
  CHECK_OK(ncmpi_sync(w));
}

/* Whether the reader's view is the state after commit `last`: records (or
 * /c/a's values), attributes, variables. */
static void check_state(int r, int records, int last) {
  int varid, nvars = 0, natts = 0, stage = -1;
  CHECK_OK(ncmpi_inq_nvars(r, &nvars));
  CHECK(nvars == (records && last >= 500 ? 3 : 2));
  CHECK_OK(ncmpi_inq_natts(r, &natts));
  CHECK(natts == 1 + last / 100);
  CHECK_OK(ncmpi_get_att_int(r, NC_GLOBAL, "stage", &stage));
  CHECK(stage == last / 100 * 100);
  if (!records) {
    CHECK(a_bad(r, last) == 0);
    return;
  }
  MPI_Offset nrec = -1;
  int dim;
  CHECK_OK(ncmpi_inq_dimid(r, "time", &dim));
  CHECK_OK(ncmpi_inq_dimlen(r, dim, &nrec));
  CHECK(nrec == last + 1);
  CHECK_OK(ncmpi_inq_varid(r, "v", &varid));
  long long bad = 0;
  for (int rec = 0; rec <= last; rec += (last > 50 ? 7 : 1)) {
    int got[X];
    MPI_Offset start[2] = {rec, 0}, count[2] = {1, X};
    CHECK_OK(ncmpi_get_vara_int_all(r, varid, start, count, got));
    for (int i = 0; i < X; i++) bad += got[i] != f(0, rec, i);
  }
  CHECK(bad == 0);
  CHECK(a_bad(r, 0) == 0); /* written once, before the reader opened */
}

static void pinned(int records) {
  const char *path = mpi_test_path(records ? "swmr_pinned_records.nc" : "swmr_pinned_compact.nc");
  int v, a, wvar = -1;
  const int w = open_writer(path, "3600", records, &v, &a);
  for (int c = 0; c < FIRST; c++) commit(w, records, v, a, c, &wvar);
  const int r = open_reader(path, "3600");
  long long g0 = 0, g = 0;
  CHECK_OK(exa_inq_generation(r, &g0, NULL));
  for (int c = FIRST; c < FIRST + MORE; c++) {
    commit(w, records, v, a, c, &wvar);
    if ((c - FIRST + 1) % 100 == 0) { /* pinned: the generation it opened, whole */
      CHECK_OK(exa_inq_generation(r, &g, NULL));
      CHECK(g == g0);
      check_state(r, records, FIRST - 1);
    }
  }
  CHECK_OK(exa_refresh(r));
  CHECK_OK(exa_inq_generation(r, &g, NULL));
  CHECK(g >= g0 + MORE);
  check_state(r, records, FIRST + MORE - 1);
  if (records) {
    int wv, got[X];
    MPI_Offset start[2] = {FIRST + MORE - 1, 0}, count[2] = {1, X};
    CHECK_OK(ncmpi_inq_varid(r, "w", &wv));
    CHECK_OK(ncmpi_get_vara_int_all(r, wv, start, count, got));
    for (int i = 0; i < X; i++) CHECK(got[i] == f(1, FIRST + MORE - 1, i));
  }
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
}

static void past_bound(void) {
  const char *path = mpi_test_path("swmr_pinned_bound.nc");
  int b, a, wvar = -1;
  const int w = open_writer(path, "1", 0, &b, &a);
  for (int c = 0; c < FIRST; c++) commit(w, 0, b, a, c, &wvar);
  const int r = open_reader(path, "1");
  int ra, got[N];
  CHECK_OK(ncmpi_inq_varid(r, "/c/a", &ra));
  sleep(3); /* past 2 bounds: the writer's next commits may reuse what the reader's generation references */
  for (int c = FIRST; c < FIRST + 20; c++) commit(w, 0, b, a, c, &wvar);
  memset(got, 0xff, sizeof got);
  CHECK_ERR(ncmpi_get_var_int_all(r, ra, got), NC_ECANTREAD);
  for (int i = 0; i < N; i++) CHECK(got[i] == -1); /* nothing delivered */
  CHECK_OK(exa_refresh(r));
  check_state(r, 0, FIRST + 19);
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  pinned(1);
  pinned(0);
  past_bound();
  return mpi_test_finish();
}
