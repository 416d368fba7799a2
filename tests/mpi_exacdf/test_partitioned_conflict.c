/*
 * Ranks that define a dimension with different lengths in a partitioned
 * file (collective define mode, no safe mode; and independent define mode,
 * EXA_INDEP_DEFINE, where the merge compares them): the enddef that sees the
 * definitions reports NC_EMULTIDEFINE_DIM_SIZE on every rank, and nothing
 * written before is lost -- the data of the earlier define phase reads back
 * in the same open and after a reopen. At 1 rank there is nothing to
 * conflict: the same steps succeed. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static void run(int mode) {
  const int rank = mpi_test_rank, conflict = mpi_test_nprocs > 1;
  const int want = conflict ? NC_EMULTIDEFINE_DIM_SIZE : NC_NOERR;
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("conflict.exa"));
  int ncid, dn, dt, dm, vx, vt, vy;

  /* Generation 1: x(4) and three records of t, the same on every rank. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | mode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 4, &dn));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_var(ncid, "x", NC_INT, 1, &dn, &vx));
  CHECK_OK(ncmpi_def_var(ncid, "/g/t", NC_DOUBLE, 1, &dt, &vt));
  CHECK_OK(ncmpi_enddef(ncid));
  int x[4] = {5, 6, 7, 8};
  CHECK_OK(ncmpi_put_var_int_all(ncid, vx, x));
  double t[3] = {1.25, 2.25, 3.25};
  MPI_Offset start = 0, count = rank == 0 ? 3 : 0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, vt, &start, &count, t));

  /* A redef in which each rank gives /h/m its own length. */
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/h/m", 2 + rank, &dm));
  CHECK_OK(ncmpi_def_var(ncid, "/h/y", NC_INT, 1, &dm, &vy));
  CHECK_ERR(ncmpi_enddef(ncid), want);
  /* Close ends the define phase again: the same conflict. */
  CHECK_ERR(ncmpi_close(ncid), want);

  /* Everything of generation 1 is there; the conflicting phase is not. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | mode, MPI_INFO_NULL, &ncid));
  int got[4] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "x", &vx));
  CHECK_OK(ncmpi_get_var_int_all(ncid, vx, got));
  for (int i = 0; i < 4; i++) CHECK(got[i] == x[i]);
  MPI_Offset nrecs = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dt, &nrecs));
  CHECK(nrecs == 3);
  double gt[3] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/t", &vt));
  start = 0;
  count = 3;
  CHECK_OK(ncmpi_get_vara_double_all(ncid, vt, &start, &count, gt));
  for (int i = 0; i < 3; i++) CHECK(gt[i] == t[i]);
  int id = -1;
  CHECK_ERR(ncmpi_inq_varid(ncid, "/h/y", &id), conflict ? NC_ENOTVAR : NC_NOERR);
  CHECK_OK(ncmpi_close(ncid));

  /* The first enddef of a new file: the conflict there, and no file that
   * opens as something else. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | mode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/a/n", 3 + rank, &dn));
  CHECK_ERR(ncmpi_enddef(ncid), want);
  CHECK_ERR(ncmpi_close(ncid), want);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run(0);
  run(EXA_INDEP_DEFINE);
  return mpi_test_finish();
}
