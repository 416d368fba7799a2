/*
 * Compact variables of partitioned files (docs/format.md, variable flag 1):
 * fixed-size variables of at most exa_compact_max bytes (default 64 KiB)
 * keep their data in their metadata block. Writes by several ranks to one
 * compact variable (collective, independent, nonblocking) are merged at the
 * next commit point (sync, close); after a reopen one read brings metadata
 * and data; fill values; the hint; no compact variables with records; redef
 * keeps compact data; a failed commit leaves the previous values. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static int rank, nprocs;

#define N 12       /* elements of /g/a */
#define BIG 10000  /* doubles of /g/big: 80,000 bytes, past the threshold */

static int create_file(const char *path, MPI_Info info) {
  int ncid, d, dbig, dh, v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, info, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/g/n", N, &d));
  CHECK_OK(ncmpi_def_dim(ncid, "/g/nbig", BIG, &dbig));
  CHECK_OK(ncmpi_def_var(ncid, "/g/a", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_def_var(ncid, "/g/b", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_def_var(ncid, "/g/big", NC_DOUBLE, 1, &dbig, &v));
  CHECK_OK(ncmpi_def_dim(ncid, "/h/m", 4, &dh));
  CHECK_OK(ncmpi_def_var(ncid, "/h/f", NC_SHORT, 1, &dh, &v));
  CHECK_OK(ncmpi_def_var_fill(ncid, v, 0, NULL));
  CHECK_OK(ncmpi_def_var(ncid, "/h/o", NC_INT, 0, NULL, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  return ncid;
}

static MPI_Offset var_offset(int ncid, const char *name) {
  int v;
  MPI_Offset off = -1;
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(ncmpi_inq_varoffset(ncid, v, &off));
  return off;
}

/* Element i of /g/a is written by rank i % nprocs, collectively, as
 * 1000 * gen + i; /g/b by rank 0 independently and, nonblocking, by the
 * last rank (its upper half). */
static void write_values(int ncid, int gen) {
  int a, b, big;
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/a", &a));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/b", &b));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/big", &big));
  int vals[N];
  MPI_Offset count = 0, start = rank, stride = nprocs;
  for (int i = rank; i < N; i += nprocs) vals[count++] = 1000 * gen + i;
  CHECK_OK(ncmpi_put_vars_int_all(ncid, a, &start, &count, &stride, vals));
  /* every rank sees its own writes at once */
  int back[N] = {0};
  CHECK_OK(ncmpi_get_vars_int_all(ncid, a, &start, &count, &stride, back));
  for (MPI_Offset k = 0; k < count; k++) CHECK(back[k] == vals[k]);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    int lo[N / 2];
    MPI_Offset s0 = 0, c0 = N / 2;
    for (int i = 0; i < N / 2; i++) lo[i] = -gen * i;
    CHECK_OK(ncmpi_put_vara_int(ncid, b, &s0, &c0, lo));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  int hi[N / 2], req = NC_REQ_NULL, st = -1;
  MPI_Offset s1 = N / 2, c1 = rank == nprocs - 1 ? N / 2 : 0;
  for (int i = 0; i < N / 2; i++) hi[i] = gen * (N / 2 + i);
  CHECK_OK(ncmpi_iput_vara_int(ncid, b, &s1, &c1, hi, &req));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &st));
  CHECK(st == NC_NOERR);
  static double d[BIG];
  for (int i = 0; i < BIG; i++) d[i] = gen + i * 0.5;
  MPI_Offset sb = 0, cb = rank == 0 ? BIG : 0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, big, &sb, &cb, d));
}

/* big_gen: /g/big is not compact; its writes land at once, as in PnetCDF. */
static void check_values(int ncid, int gen, int big_gen) {
  int a, b, big, f;
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/a", &a));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/b", &b));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/big", &big));
  CHECK_OK(ncmpi_inq_varid(ncid, "/h/f", &f));
  int va[N] = {0}, vb[N] = {0};
  CHECK_OK(ncmpi_get_var_int_all(ncid, a, va));
  CHECK_OK(ncmpi_get_var_int_all(ncid, b, vb));
  for (int i = 0; i < N; i++) CHECK(va[i] == 1000 * gen + i);
  for (int i = 0; i < N / 2; i++) CHECK(vb[i] == -gen * i && vb[N / 2 + i] == gen * (N / 2 + i));
  static double d[BIG];
  CHECK_OK(ncmpi_get_var_double_all(ncid, big, d));
  CHECK(d[0] == big_gen && d[BIG - 1] == big_gen + (BIG - 1) * 0.5);
  short s[4] = {0};
  CHECK_OK(ncmpi_get_var_short_all(ncid, f, s));
  for (int i = 0; i < 4; i++) CHECK(s[i] == NC_FILL_SHORT);
}

static void check_file(const char *path, int gen, int big_gen) {
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_values(ncid, gen, big_gen);
  CHECK_OK(ncmpi_close(ncid));
}

/* Writes merge across ranks at sync; values survive close and reopen; a
 * reopened compact variable costs one read for metadata and data. */
static void test_write_sync_reopen(void) {
  const char *path = mpi_test_path("compact.nc");
  int ncid = create_file(path, MPI_INFO_NULL);
  CHECK(var_offset(ncid, "/g/a") == 0);   /* compact */
  CHECK(var_offset(ncid, "/g/big") > 0);  /* 80,000 bytes: not */
  write_values(ncid, 1);
  /* every rank writes the same scalar: in rank order, the last rank's value stays */
  int o, got = -1, mine = 100 + rank;
  CHECK_OK(ncmpi_inq_varid(ncid, "/h/o", &o));
  CHECK_OK(ncmpi_put_var_int_all(ncid, o, &mine));
  CHECK_OK(ncmpi_sync(ncid)); /* commit: every rank now sees every rank's writes */
  check_values(ncid, 1, 1);
  CHECK_OK(ncmpi_get_var_int_all(ncid, o, &got));
  CHECK(got == 100 + nprocs - 1);
  CHECK_OK(ncmpi_close(ncid));
  check_file(path, 1, 1);

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset calls0 = -1, calls = -1;
  int a, va[N] = {0};
  CHECK_OK(exa_inq_io_calls(ncid, &calls0));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/a", &a));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_get_var_int(ncid, a, va));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(exa_inq_io_calls(ncid, &calls));
  CHECK(calls == calls0 + 1); /* the block, with the data in it */
  CHECK(va[0] == 1000 && va[N - 1] == 1000 + N - 1);
  /* put_vard/get_vard cannot address data inside a block */
  MPI_Datatype t;
  MPI_Type_contiguous(N, MPI_INT, &t);
  MPI_Type_commit(&t);
  CHECK_ERR(ncmpi_get_vard_all(ncid, a, t, va, N, MPI_INT), NC_ENOTSUPPORT);
  MPI_Type_free(&t);
  CHECK_OK(ncmpi_close(ncid));
}

/* exa_compact_max=0 turns compact storage off; so does a record variable. */
static void test_when_not_compact(void) {
  const char *path = mpi_test_path("compact_off.nc");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_compact_max", "0");
  int ncid = create_file(path, info);
  MPI_Info_free(&info);
  CHECK(var_offset(ncid, "/g/a") > 0);
  write_values(ncid, 2);
  CHECK_OK(ncmpi_close(ncid));
  check_file(path, 2, 2);

  int d, t, v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 1, &t, &v));
  CHECK_OK(ncmpi_def_dim(ncid, "/g/n", 3, &d));
  CHECK_OK(ncmpi_def_var(ncid, "/g/a", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK(var_offset(ncid, "/g/a") > 0);
  CHECK_OK(ncmpi_close(ncid));
}

/* A redef that adds to a block with compact variables copies their data
 * into the new block; a record variable cannot join them. */
static void test_redef_keeps_data(void) {
  const char *path = mpi_test_path("compact_redef.nc");
  int ncid = create_file(path, MPI_INFO_NULL);
  write_values(ncid, 3);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  int d, v, t;
  CHECK_OK(ncmpi_inq_dimid(ncid, "/g/n", &d));
  CHECK_OK(ncmpi_def_var(ncid, "/g/c", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_INT, 1, &t, &v));
  CHECK_ERR(ncmpi_enddef(ncid), NC_ENOTSUPPORT);
  CHECK_OK(ncmpi_abort(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_inq_dimid(ncid, "/g/n", &d));
  CHECK_OK(ncmpi_def_var(ncid, "/g/c", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK(var_offset(ncid, "/g/c") == 0);
  int c[N];
  for (int i = 0; i < N; i++) c[i] = 7 * i;
  MPI_Offset s = 0, n = rank == 0 ? N : 0;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &s, &n, c));
  CHECK_OK(ncmpi_close(ncid));
  check_file(path, 3, 3);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int got[N] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/c", &v));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, got));
  for (int i = 0; i < N; i++) CHECK(got[i] == 7 * i);
  CHECK_OK(ncmpi_close(ncid));
}

/* The commit of compact writes fails at step n of one rank, for n = 1, 2,
 * ... until it succeeds: the file keeps the previous values until then. */
static void test_commit_crash(int victim) {
  const char *path = mpi_test_path("compact_crash.nc");
  int ncid = create_file(path, MPI_INFO_NULL);
  write_values(ncid, 4);
  CHECK_OK(ncmpi_close(ncid));
  int steps = 0;
  for (int n = 1; n <= 32 && !steps; n++) {
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
    write_values(ncid, 5);
    exa_debug_fail_write(rank == victim ? n : 0);
    int st = ncmpi_sync(ncid);
    exa_debug_fail_write(0);
    if (st == NC_NOERR) {
      steps = n;
      CHECK_OK(ncmpi_close(ncid));
      check_file(path, 5, 5);
      break;
    }
    CHECK(st == NC_EWRITE);
    check_file(path, 4, 5);
    CHECK_OK(ncmpi_abort(ncid));
    check_file(path, 4, 5);
  }
  CHECK(steps > 1);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  test_write_sync_reopen();
  test_when_not_compact();
  test_redef_keeps_data();
  test_commit_crash(0);
  if (nprocs > 1) test_commit_crash(nprocs - 1);
  return mpi_test_finish();
}
