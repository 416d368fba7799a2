/*
 * After a collective put returns, a collective get on any rank sees what
 * every rank put, in the same open and without ncmpi_sync (PnetCDF's
 * behaviour on CDF files). exacdf runs it on the partitioned format, whose
 * small variables are compact (their data lives in their metadata block and
 * a rank keeps its writes until the next commit point): the collective put
 * must make them visible to the other ranks' collective gets. Also: an
 * independent put of one rank is seen by the others after ncmpi_sync, and a
 * collective put where some ranks write a compact variable and others a
 * large one (not compact).
 */
#include "mpi_test.h"
#if MPI_TEST_IS_EXACDF
#include <exacdf.h>
#endif

#define N 8       /* elements of each small variable, per rank */
#define BIG 20000 /* doubles per rank of the large variable (past exa_compact_max) */

static int create_file(const char *path, int nprocs, int *small, int *other, int *big) {
  int ncid, d, dbig;
#if MPI_TEST_IS_EXACDF
  const int format = EXA_FORMAT_PARTITIONED;
#else
  const int format = NC_64BIT_DATA;
#endif
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | format, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", (MPI_Offset)N * nprocs, &d));
  CHECK_OK(ncmpi_def_dim(ncid, "nbig", (MPI_Offset)BIG * nprocs, &dbig));
  CHECK_OK(ncmpi_def_var(ncid, "small", NC_INT, 1, &d, small));
  CHECK_OK(ncmpi_def_var(ncid, "other", NC_INT, 1, &d, other));
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_DOUBLE, 1, &dbig, big));
  CHECK_OK(ncmpi_enddef(ncid));
  return ncid;
}

static void read_all_and_check(int ncid, int varid, int nprocs, int base, const char *what) {
  int got[N * 64];
  MPI_Offset start = 0, count = (MPI_Offset)N * nprocs;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, &start, &count, got));
  int bad = 0;
  for (int i = 0; i < N * nprocs; i++)
    if (got[i] != base + i) bad++;
  if (bad) fprintf(stderr, "[rank %d] %s: %d of %d values differ (first %d)\n", mpi_test_rank, what, bad,
                   N * nprocs, got[0]);
  CHECK(bad == 0);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("collective_put_then_get.nc");
  int small, other, big;
  int ncid = create_file(path, nprocs, &small, &other, &big);
  int vals[N];
  MPI_Offset start = (MPI_Offset)N * rank, count = N;

  /* 1. each rank puts its slice collectively; every rank reads all at once */
  for (int i = 0; i < N; i++) vals[i] = 100 + N * rank + i;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, small, &start, &count, vals));
  read_all_and_check(ncid, small, nprocs, 100, "after a collective put");

  /* 2. overwritten collectively: the newer values, still without a sync */
  for (int i = 0; i < N; i++) vals[i] = 5000 + N * rank + i;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, small, &start, &count, vals));
  read_all_and_check(ncid, small, nprocs, 5000, "after a second collective put");

  /* 3. a collective put where the last rank writes the large variable and
   * the others the small one; then every rank reads both */
  if (rank == nprocs - 1 && nprocs > 1) {
    double d[BIG];
    for (int i = 0; i < BIG; i++) d[i] = i;
    MPI_Offset bstart = 0, bcount = BIG;
    CHECK_OK(ncmpi_put_vara_double_all(ncid, big, &bstart, &bcount, d));
  } else {
    for (int i = 0; i < N; i++) vals[i] = 7000 + N * rank + i;
    CHECK_OK(ncmpi_put_vara_int_all(ncid, other, &start, &count, vals));
  }
  if (nprocs > 1) {
    int got[N * 64];
    MPI_Offset s = 0, c = (MPI_Offset)N * (nprocs - 1);
    CHECK_OK(ncmpi_get_vara_int_all(ncid, other, &s, &c, got));
    for (int i = 0; i < N * (nprocs - 1); i++) CHECK(got[i] == 7000 + i);
    double d[4];
    MPI_Offset bs = BIG - 4, bc = 4;
    CHECK_OK(ncmpi_get_vara_double_all(ncid, big, &bs, &bc, d));
    for (int i = 0; i < 4; i++) CHECK(d[i] == (double)(BIG - 4 + i));
  }

  /* 4. independent puts are seen by the other ranks after ncmpi_sync */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int i = 0; i < N; i++) vals[i] = 9000 + N * rank + i;
  CHECK_OK(ncmpi_put_vara_int(ncid, other, &start, &count, vals));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_sync(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_sync(ncid));
  read_all_and_check(ncid, other, nprocs, 9000, "after independent puts and a sync");
  CHECK_OK(ncmpi_close(ncid));

  /* 5. what was read in the open is what a reopen reads */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "small", &small));
  CHECK_OK(ncmpi_inq_varid(ncid, "other", &other));
  read_all_and_check(ncid, small, nprocs, 5000, "after a reopen");
  read_all_and_check(ncid, other, nprocs, 9000, "after a reopen (other)");
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
