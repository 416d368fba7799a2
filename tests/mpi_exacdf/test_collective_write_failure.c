/* A collective write that fails on one rank only (exa_debug_fail_write on
 * the last rank stands for a full disk): for a record variable the failure
 * travels in the numrecs agreement the call makes anyway, so every rank
 * returns NC_EWRITE and a program that stops on error does not hang. A
 * fixed-size variable's put makes no MPI call beyond its MPI-IO one (as
 * PnetCDF): only the failing rank returns the error, the others' data lands.
 * ncmpi_wait_all agrees (numrecs, what to do) before its I/O and, as PnetCDF,
 * makes no MPI call after it: the failure is the failing rank's, unless
 * PNETCDF_SAFE_MODE=1, where the flush also agrees on it. */
#include <exacdf.h>
#include "mpi_test.h"

#define PER 4

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const int victim = rank == nprocs - 1;
  const char *path = mpi_test_path("collective_write_failure.nc");
  int ncid, dims[2], v, r;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dims[1], &v));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, dims, &r));
  CHECK_OK(ncmpi_enddef(ncid));

  int mine[PER];
  for (int i = 0; i < PER; ++i) mine[i] = 100 * (rank + 1) + i;
  MPI_Offset start[2] = {0, (MPI_Offset)PER * rank}, count[2] = {1, PER};

  /* Record variable: every rank returns the failure. */
  exa_debug_fail_write(victim ? 1 : 0);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, r, start, count, mine), NC_EWRITE);
  exa_debug_fail_write(0);
  /* The ranks still agree on numrecs: the good ranks' record was written. */
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == (nprocs > 1 ? 1 : 0));

  /* The nonblocking flush: a wait_all whose puts add a record agrees numrecs before its
   * I/O; outside safe mode the failed write is the failing rank's alone. */
  int req = NC_REQ_NULL, status = NC_NOERR;
  MPI_Offset next[2] = {1, (MPI_Offset)PER * rank};
  CHECK_OK(ncmpi_iput_vara_int(ncid, r, next, count, mine, &req));
  exa_debug_fail_write(victim ? 1 : 0);
  CHECK_ERR(ncmpi_wait_all(ncid, 1, &req, &status), victim ? NC_EWRITE : NC_NOERR);
  exa_debug_fail_write(0);
  CHECK(status == (victim ? NC_EWRITE : NC_NOERR));
  /* (numrecs was agreed before the I/O: the record counts even where its data failed.) */
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 2);

  /* Fixed-size variable: the failure is the failing rank's. */
  exa_debug_fail_write(victim ? 1 : 0);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start[1], &count[1], mine), victim ? NC_EWRITE : NC_NOERR);
  exa_debug_fail_write(0);
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int got[PER];
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &start[1], &count[1], got));
  for (int i = 0; i < PER; ++i) CHECK(got[i] == (victim ? NC_FILL_INT : mine[i]));
  if (nprocs > 1) { /* records are not filled: only the good ranks' part is known */
    CHECK_OK(ncmpi_get_vara_int_all(ncid, r, start, count, got));
    for (int i = 0; i < PER; ++i) CHECK(victim || got[i] == mine[i]);
  }
  CHECK_OK(ncmpi_close(ncid));

  /* Safe mode: the nonblocking flush carries the failed write to every rank. */
  setenv("PNETCDF_SAFE_MODE", "1", 1);
  const char *safe_path = mpi_test_path("collective_write_failure_safe.nc");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, safe_path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, dims, &r));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_iput_vara_int(ncid, r, start, count, mine, &req));
  exa_debug_fail_write(victim ? 1 : 0);
  CHECK_ERR(ncmpi_wait_all(ncid, 1, &req, &status), NC_EWRITE);
  exa_debug_fail_write(0);
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 1);
  CHECK_OK(ncmpi_close(ncid));
  unsetenv("PNETCDF_SAFE_MODE");
  return mpi_test_finish();
}
