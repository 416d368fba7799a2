/*
 * Redef of partitioned files (docs/format.md, "Commit"): objects added in a
 * later define phase -- in the same open and after a reopen -- with the old
 * data and records intact, unchanged blocks left where they are, a redef
 * that changes nothing writing nothing, and a crash test: the n-th write of
 * one rank fails (exa_debug_fail_write) at every step of enddef, after a
 * create and after a redef, and the file must open to the previous state or
 * to the new one, never to anything else. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static int rank, nprocs;

enum { STATE_A = 0, STATE_B = 1 };
#define NRECS 3

/* State A: root block (time, t, title "A"); /s<r>: n (r + 2), x(n) int64;
 * /static: k (3), c(k) int. */
static void define_a(int ncid) {
  int d, v;
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d));
  CHECK_OK(ncmpi_def_var(ncid, "t", NC_DOUBLE, 1, &d, &v));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 1, "A"));
  for (int r = 0; r < nprocs; r++) {
    char name[64];
    snprintf(name, sizeof name, "/s%d/n", r);
    CHECK_OK(ncmpi_def_dim(ncid, name, r + 2, &d));
    snprintf(name, sizeof name, "/s%d/x", r);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT64, 1, &d, &v));
  }
  CHECK_OK(ncmpi_def_dim(ncid, "/static/k", 3, &d));
  CHECK_OK(ncmpi_def_var(ncid, "/static/c", NC_INT, 1, &d, &v));
}

static void write_a(int ncid) {
  char name[64];
  int v;
  snprintf(name, sizeof name, "/s%d/x", rank);
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  long long vals[8];
  for (int i = 0; i < rank + 2; i++) vals[i] = 100LL * rank + i;
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_put_var_longlong(ncid, v, vals));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "/static/c", &v));
  int c[3] = {1, 2, 3};
  CHECK_OK(ncmpi_put_var_int_all(ncid, v, c));
  CHECK_OK(ncmpi_inq_varid(ncid, "t", &v));
  double t[NRECS];
  for (int k = 0; k < NRECS; k++) t[k] = k + 0.25;
  MPI_Offset start = 0, count = rank == 0 ? NRECS : 0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, v, &start, &count, t));
}

/* State B adds /s0/w(n) short (filled), /zadded: m (5), y(m) int, z(time)
 * float; the title becomes "B". */
static void define_b(int ncid) {
  int n, m, time, v;
  CHECK_OK(ncmpi_inq_dimid(ncid, "/s0/n", &n));
  CHECK_OK(ncmpi_def_var(ncid, "/s0/w", NC_SHORT, 1, &n, &v));
  CHECK_OK(ncmpi_def_var_fill(ncid, v, 0, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "/zadded/m", 5, &m));
  CHECK_OK(ncmpi_def_var(ncid, "/zadded/y", NC_INT, 1, &m, &v));
  CHECK_OK(ncmpi_inq_dimid(ncid, "time", &time));
  CHECK_OK(ncmpi_def_var(ncid, "/zadded/z", NC_FLOAT, 1, &time, &v));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 1, "B"));
}

static void write_b(int ncid) {
  int v;
  CHECK_OK(ncmpi_inq_varid(ncid, "/zadded/y", &v));
  int y[5];
  for (int i = 0; i < 5; i++) y[i] = 7 * i;
  CHECK_OK(ncmpi_put_var_int_all(ncid, v, y));
  CHECK_OK(ncmpi_inq_varid(ncid, "/zadded/z", &v));
  float z[NRECS];
  for (int k = 0; k < NRECS; k++) z[k] = 2.0f * k;
  MPI_Offset start = 0, count = rank == 0 ? NRECS : 0;
  CHECK_OK(ncmpi_put_vara_float_all(ncid, v, &start, &count, z));
}

/* Checks an open file against state A or B (B's data only if written). */
static void check_open_state(int ncid, int state, int b_data) {
  int nd = -1, nv = -1, ng = -1, unlim = -1, v;
  CHECK_OK(ncmpi_inq(ncid, &nd, &nv, &ng, &unlim));
  CHECK(nd == nprocs + 2 + (state == STATE_B));
  CHECK(nv == nprocs + 2 + 3 * (state == STATE_B));
  CHECK(ng == 1);
  char title[8] = "";
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", title));
  CHECK(title[0] == (state == STATE_B ? 'B' : 'A'));
  MPI_Offset len = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, unlim, &len));
  CHECK(len == NRECS);
  for (int r = 0; r < nprocs; r++) {
    char name[64];
    snprintf(name, sizeof name, "/s%d/x", r);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    long long got[8] = {0};
    CHECK_OK(ncmpi_get_var_longlong_all(ncid, v, got));
    for (int i = 0; i < r + 2; i++) CHECK(got[i] == 100LL * r + i);
  }
  int c[3] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "/static/c", &v));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, c));
  CHECK(c[0] == 1 && c[1] == 2 && c[2] == 3);
  double t[NRECS] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "t", &v));
  CHECK_OK(ncmpi_get_var_double_all(ncid, v, t));
  for (int k = 0; k < NRECS; k++) CHECK(t[k] == k + 0.25);
  if (state == STATE_A) {
    CHECK_ERR(ncmpi_inq_varid(ncid, "/zadded/y", &v), NC_ENOTVAR);
    CHECK_ERR(ncmpi_inq_varid(ncid, "/s0/w", &v), NC_ENOTVAR);
    return;
  }
  short w[2] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "/s0/w", &v));
  CHECK_OK(ncmpi_get_var_short_all(ncid, v, w));
  CHECK(w[0] == NC_FILL_SHORT && w[1] == NC_FILL_SHORT);
  CHECK_OK(ncmpi_inq_varid(ncid, "/zadded/y", &v));
  if (!b_data) return;
  int y[5] = {0};
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, y));
  for (int i = 0; i < 5; i++) CHECK(y[i] == 7 * i);
  float z[NRECS] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "/zadded/z", &v));
  CHECK_OK(ncmpi_get_var_float_all(ncid, v, z));
  for (int k = 0; k < NRECS; k++) CHECK(z[k] == 2.0f * k);
}

static void check_state(const char *path, int state, int b_data) {
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_open_state(ncid, state, b_data);
  CHECK_OK(ncmpi_close(ncid));
}

static void create_a(const char *path) {
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  define_a(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  write_a(ncid);
  CHECK_OK(ncmpi_close(ncid));
}

/* Offset of a block, by path. */
static MPI_Offset block_offset(int ncid, const char *want) {
  MPI_Offset n = 0, off = -1;
  CHECK_OK(exa_inq_blocks(ncid, &n));
  for (MPI_Offset b = 0; b < n; b++) {
    char path[EXA_MAX_PATH + 1];
    CHECK_OK(exa_inq_block(ncid, b, path, NULL, NULL, NULL, &off, NULL));
    if (strcmp(path, want) == 0) return off;
  }
  return -1;
}

/* Create, write, redef in the same open, add objects, write, reopen. */
static void test_redef_same_open(void) {
  const char *path = mpi_test_path("redef_same.nc");
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  define_a(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  write_a(ncid);
  /* a redef that changes nothing writes nothing */
  MPI_Offset put0 = -1, put1 = -1;
  CHECK_OK(ncmpi_inq_put_size(ncid, &put0));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_inq_put_size(ncid, &put1));
  CHECK(put1 == put0);
  CHECK_OK(ncmpi_redef(ncid));
  define_b(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  check_open_state(ncid, STATE_B, 0);
  write_b(ncid);
  CHECK_OK(ncmpi_close(ncid));
  check_state(path, STATE_B, 1);
}

/* Reopen for writing, redef (every block read once and shared), add
 * objects; unchanged blocks stay where they were; then append records. */
static void test_redef_after_open(void) {
  const char *path = mpi_test_path("redef_open.nc");
  create_a(path);
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset static_at = block_offset(ncid, "/static"), s0_at = block_offset(ncid, "/s0");
  MPI_Offset calls0 = -1, calls1 = -1;
  CHECK_OK(exa_inq_io_calls(ncid, &calls0));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(exa_inq_io_calls(ncid, &calls1));
  /* nprocs + 1 blocks besides the root; each is read by one rank */
  long long mine = (long long)(calls1 - calls0), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == nprocs + 1);
  define_b(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  write_b(ncid);
  CHECK(block_offset(ncid, "/static") == static_at); /* unchanged: not rewritten */
  CHECK(block_offset(ncid, "/s0") != s0_at);         /* a new variable: rewritten */
  CHECK_OK(ncmpi_close(ncid));
  check_state(path, STATE_B, 1);

  /* records still append after the moved record section */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  int tv, zv;
  CHECK_OK(ncmpi_inq_varid(ncid, "t", &tv));
  CHECK_OK(ncmpi_inq_varid(ncid, "/zadded/z", &zv));
  MPI_Offset start = NRECS, count = 1;
  double t = 99.5;
  float z = 42.0f;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, tv, &start, &count, &t));
  CHECK_OK(ncmpi_put_vara_float_all(ncid, zv, &start, &count, &z));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "t", &tv));
  CHECK_OK(ncmpi_inq_varid(ncid, "/zadded/z", &zv));
  double tt[NRECS + 1] = {0};
  float zz[NRECS + 1] = {0};
  CHECK_OK(ncmpi_get_var_double_all(ncid, tv, tt));
  CHECK_OK(ncmpi_get_var_float_all(ncid, zv, zz));
  CHECK(tt[0] == 0.25 && tt[NRECS - 1] == NRECS - 1 + 0.25 && tt[NRECS] == 99.5);
  CHECK(zz[1] == 2.0f && zz[NRECS] == 42.0f);
  CHECK_OK(ncmpi_close(ncid));
}

/* A redef that fails on one rank leaves the file as it was (the rank keeps
 * define mode; the redef can be retried). */
static void test_failed_redef_retries(void) {
  const char *path = mpi_test_path("redef_retry.nc");
  create_a(path);
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  define_b(ncid);
  exa_debug_fail_write(rank == 0 ? 2 : 0); /* rank 0's index table */
  CHECK_ERR(ncmpi_enddef(ncid), NC_EWRITE);
  exa_debug_fail_write(0);
  check_state(path, STATE_A, 0);
  CHECK_OK(ncmpi_enddef(ncid));
  write_b(ncid);
  CHECK_OK(ncmpi_close(ncid));
  check_state(path, STATE_B, 1);
}

/* Step n of one rank fails, for n = 1, 2, ... until enddef succeeds. After
 * each failure the file (opened a second time, read-only, while the writer
 * still holds it) must be in the previous state; after the success, in the
 * new one. `redef`: 0 tests the first enddef of a new file (the previous
 * state is no file: opening must fail cleanly), 1 a redef of state A. */
static void crash_at_every_step(int redef, int victim) {
  const char *path = mpi_test_path(redef ? "crash_redef.nc" : "crash_create.nc");
  int steps = 0;
  for (int n = 1; n <= 64; n++) {
    int ncid, st;
    if (redef) {
      create_a(path);
      CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
      CHECK_OK(ncmpi_redef(ncid));
      define_b(ncid);
    } else {
      CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
      define_a(ncid);
    }
    exa_debug_fail_write(rank == victim ? n : 0);
    st = ncmpi_enddef(ncid);
    exa_debug_fail_write(0);
    if (st == NC_NOERR) {
      if (!redef) write_a(ncid);
      CHECK_OK(ncmpi_close(ncid));
      check_state(path, redef ? STATE_B : STATE_A, 0);
      steps = n;
      break;
    }
    CHECK(st == NC_EWRITE); /* the same on every rank */
    if (redef) {
      check_state(path, STATE_A, 0);
    } else {
      int other;
      int opened = ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &other);
      CHECK(opened != NC_NOERR);
      if (opened == NC_NOERR) ncmpi_close(other);
    }
    CHECK_OK(ncmpi_abort(ncid));
    if (redef) check_state(path, STATE_A, 0);
  }
  CHECK(steps > 1); /* at least one step failed before the success */
  if (rank == 0) printf("crash test (%s, victim rank %d): enddef succeeded at step %d\n", redef ? "redef" : "create", victim, steps);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  test_redef_same_open();
  test_redef_after_open();
  test_failed_redef_retries();
  for (int redef = 0; redef <= 1; redef++) {
    crash_at_every_step(redef, 0);
    if (nprocs > 1) crash_at_every_step(redef, nprocs - 1);
  }
  return mpi_test_finish();
}
