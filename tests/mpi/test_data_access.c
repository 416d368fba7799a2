/* Blocking data calls: var1/var/vara/vars x put/get x collective/independent
 * x fixed/record variables x several types, every value read back; ranks
 * with nothing to do still take part; numrecs agreed on every rank. */
#include "mpi_test.h"

#define NX 12
#define NY 6

static int failures_before;

static void fixed_vara(int ncid, int var) {
  /* Each rank writes a block of rows; the last rank may get none. */
  MPI_Offset rows = NY / (mpi_test_nprocs > NY ? NY : mpi_test_nprocs);
  MPI_Offset start[2] = {mpi_test_rank * rows, 0}, count[2] = {rows, NX};
  if (start[0] >= NY) { start[0] = NY; count[0] = 0; }
  if (mpi_test_rank == mpi_test_nprocs - 1 && start[0] < NY) count[0] = NY - start[0];
  double buf[NY * NX];
  for (MPI_Offset i = 0; i < count[0] * NX; i++) buf[i] = (double)(start[0] * NX + i) + 0.25;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, var, start, count, buf));
  double all[NY * NX];
  CHECK_OK(ncmpi_get_var_double_all(ncid, var, all));
  for (int i = 0; i < NY * NX; i++) CHECK(all[i] == i + 0.25);
  /* The same values read as another memory type. */
  int ints[NY * NX];
  CHECK_OK(ncmpi_get_var_int_all(ncid, var, ints));
  for (int i = 0; i < NY * NX; i++) CHECK(ints[i] == i);
}

static void strided(int ncid, int var) {
  /* Every other column of row 1, written by rank 0 only (others: zero count). */
  MPI_Offset start[2] = {1, 1}, count[2] = {1, mpi_test_rank == 0 ? NX / 2 : 0}, stride[2] = {1, 2};
  short vals[NX / 2];
  for (int i = 0; i < NX / 2; i++) vals[i] = (short)(-i);
  CHECK_OK(ncmpi_put_vars_short_all(ncid, var, start, count, stride, vals));
  count[1] = NX / 2;
  short got[NX / 2];
  CHECK_OK(ncmpi_get_vars_short_all(ncid, var, start, count, stride, got));
  for (int i = 0; i < NX / 2; i++) CHECK(got[i] == -i);
  MPI_Offset bad_stride[2] = {1, 0};
  CHECK_ERR(ncmpi_get_vars_short_all(ncid, var, start, count, bad_stride, got), NC_ESTRIDE);
}

static void records(int ncid, int var, int dim_t) {
  /* Rank r writes record r independently, then all agree on numrecs at end_indep. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  MPI_Offset start[2] = {mpi_test_rank, 0}, count[2] = {1, NX};
  float row[NX];
  for (int i = 0; i < NX; i++) row[i] = (float)(mpi_test_rank * 100 + i);
  CHECK_OK(ncmpi_put_vara_float(ncid, var, start, count, row));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dim_t, &nrec));
  CHECK(nrec == mpi_test_nprocs);
  /* Collective append of one more record, written by the last rank only. */
  start[0] = mpi_test_nprocs;
  count[0] = mpi_test_rank == mpi_test_nprocs - 1 ? 1 : 0;
  for (int i = 0; i < NX; i++) row[i] = -1.0f;
  CHECK_OK(ncmpi_put_vara_float_all(ncid, var, start, count, row));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dim_t, &nrec));
  CHECK(nrec == mpi_test_nprocs + 1);
  float all[5 * NX];
  CHECK_OK(ncmpi_get_var_float_all(ncid, var, all));
  for (int r = 0; r < mpi_test_nprocs; r++)
    for (int i = 0; i < NX; i++) CHECK(all[r * NX + i] == (float)(r * 100 + i));
  for (int i = 0; i < NX; i++) CHECK(all[mpi_test_nprocs * NX + i] == -1.0f);
  /* Reading past numrecs is an error; writing past it is not. */
  MPI_Offset past[2] = {nrec, 0}, one[2] = {1, NX};
  CHECK_ERR(ncmpi_get_vara_float_all(ncid, var, past, one, row), NC_EINVALCOORDS);
}

static void var1_and_errors(int ncid, int var_text, int var_fixed) {
  MPI_Offset idx[2] = {0, (MPI_Offset)mpi_test_rank % NX};
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  char c = (char)('a' + mpi_test_rank);
  MPI_Offset ci[1] = {(MPI_Offset)mpi_test_rank};
  CHECK_OK(ncmpi_put_var1_text(ncid, var_text, ci, &c));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  char text[8] = {0};
  MPI_Offset s0 = 0, n = mpi_test_nprocs;
  CHECK_OK(ncmpi_get_vara_text_all(ncid, var_text, &s0, &n, text));
  for (int r = 0; r < mpi_test_nprocs; r++) CHECK(text[r] == 'a' + r);
  double d;
  CHECK_ERR(ncmpi_get_var1_text_all(ncid, var_fixed, idx, text), NC_ECHAR);
  CHECK_ERR(ncmpi_put_var1_double_all(ncid, var_text, ci, &d), NC_ECHAR);
  MPI_Offset out[2] = {NY + 1, 0}, edge_s[2] = {NY - 1, 0}, edge_c[2] = {2, NX};
  CHECK_ERR(ncmpi_get_var1_double_all(ncid, var_fixed, out, &d), NC_EINVALCOORDS);
  double buf[2 * NX];
  CHECK_ERR(ncmpi_get_vara_double_all(ncid, var_fixed, edge_s, edge_c, buf), NC_EEDGE);
  /* Only one rank errs: the others still complete the collective call. */
  MPI_Offset mine[2] = {mpi_test_rank == 0 ? NY + 5 : 0, 0}, cnt[2] = {1, 1};
  CHECK_ERR(ncmpi_get_vara_double_all(ncid, var_fixed, mine, cnt, &d), mpi_test_rank == 0 ? NC_EINVALCOORDS : NC_NOERR);
  CHECK(mpi_test_rank == 0 || d == 0.25);
  /* A value that does not fit the external type: NC_ERANGE, the rest written. */
  int big[2] = {7, 100000};
  MPI_Offset rs[2] = {2, 0}, rc[2] = {1, 2};
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, var_fixed + 1, rs, rc, big), NC_ERANGE);
  short back[2];
  CHECK_OK(ncmpi_get_vara_short_all(ncid, var_fixed + 1, rs, rc, back));
  CHECK(back[0] == 7);
}

/* A large put is byte-swapped in the caller's buffer and swapped back: the
 * buffer must hold the caller's values again afterwards (also in PnetCDF). */
static void large_put_keeps_buffer(int ncid, int var, MPI_Offset n) {
  double *buf = malloc((size_t)n * sizeof(double)), *back = malloc((size_t)n * sizeof(double));
  CHECK(buf && back);
  if (!buf || !back) return;
  MPI_Offset start = n * mpi_test_rank, count = n;
  for (MPI_Offset i = 0; i < n; i++) buf[i] = 0.5 * (double)(start + i) - 3.0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, var, &start, &count, buf));
  int changed = 0;
  for (MPI_Offset i = 0; i < n; i++) changed += buf[i] != 0.5 * (double)(start + i) - 3.0;
  CHECK(changed == 0);
  CHECK_OK(ncmpi_get_vara_double_all(ncid, var, &start, &count, back));
  int bad = 0;
  for (MPI_Offset i = 0; i < n; i++) bad += back[i] != buf[i];
  CHECK(bad == 0);
  free(buf);
  free(back);
}

static void run(int cmode, const char *file) {
  int ncid, dt, dy, dx, dc, dbig, v_fix, v_short, v_rec, v_text, v_big, dims[2];
  const MPI_Offset nbig = 20000; /* 160 KB per rank: above the in-place swap threshold */
  failures_before = mpi_test_failures;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(file), cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dy));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dx));
  CHECK_OK(ncmpi_def_dim(ncid, "c", 8, &dc));
  dims[0] = dy; dims[1] = dx;
  CHECK_OK(ncmpi_def_var(ncid, "field", NC_DOUBLE, 2, dims, &v_fix));
  CHECK_OK(ncmpi_def_var(ncid, "small", NC_SHORT, 2, dims, &v_short));
  dims[0] = dt;
  CHECK_OK(ncmpi_def_var(ncid, "series", NC_FLOAT, 2, dims, &v_rec));
  CHECK_OK(ncmpi_def_var(ncid, "letters", NC_CHAR, 1, &dc, &v_text));
  CHECK_OK(ncmpi_def_dim(ncid, "big", nbig * mpi_test_nprocs, &dbig));
  CHECK_OK(ncmpi_def_var(ncid, "bigvar", NC_DOUBLE, 1, &dbig, &v_big));
  CHECK_OK(ncmpi_enddef(ncid));
  large_put_keeps_buffer(ncid, v_big, nbig);
  fixed_vara(ncid, v_fix);
  strided(ncid, v_short);
  records(ncid, v_rec, dt);
  var1_and_errors(ncid, v_text, v_fix);
  CHECK_OK(ncmpi_close(ncid));
  /* Everything is still there after reopening. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path(file), NC_NOWRITE, MPI_INFO_NULL, &ncid));
  double all[NY * NX];
  CHECK_OK(ncmpi_get_var_double_all(ncid, v_fix, all));
  for (int i = 0; i < NY * NX; i++) CHECK(all[i] == i + 0.25);
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dt, &nrec));
  CHECK(nrec == mpi_test_nprocs + 1);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run(NC_CLOBBER, "data_cdf1.nc");
  run(NC_CLOBBER | NC_64BIT_DATA, "data_cdf5.nc");
  return mpi_test_finish();
}
