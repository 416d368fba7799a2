/* With PNETCDF_SAFE_MODE=1 a blocking collective varn call agrees on its
 * arguments like the other collective data calls: bad arguments on one rank
 * (coordinates, variable id, a NULL starts) are returned on every rank, no
 * rank writes or reads anything, and nothing hangs. */
#include "mpi_test.h"

#define PER 4

int main(int argc, char **argv) {
  setenv("PNETCDF_SAFE_MODE", "1", 1);
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const int bad = rank == nprocs - 1;
  const char *path = mpi_test_path("safe_mode_varn.nc");
  int ncid, dims[2], v, r;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dims[1], &v));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, dims, &r));
  CHECK_OK(ncmpi_enddef(ncid));

  const MPI_Offset end = (MPI_Offset)PER * nprocs;
  int mine[PER], got[PER];
  for (int i = 0; i < PER; ++i) mine[i] = 100 * (rank + 1) + i;
  /* Two subarrays of two elements each: this rank's part of x. */
  MPI_Offset s0[2] = {0, (MPI_Offset)PER * rank}, s1[2] = {0, (MPI_Offset)PER * rank + 2};
  MPI_Offset c0[2] = {1, 2}, c1[2] = {1, 2};
  MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
  MPI_Offset *fstarts[2] = {&s0[1], &s1[1]}, *fcounts[2] = {&c0[1], &c1[1]};

  /* Bad coordinates on one rank: every rank gets NC_EINVALCOORDS. */
  MPI_Offset far = end + 1;
  if (bad) fstarts[1] = &far;
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v, 2, fstarts, fcounts, mine), NC_EINVALCOORDS);
  fstarts[1] = &s1[1];
  /* A bad count on one rank: NC_EEDGE everywhere. */
  MPI_Offset wide = end + 1;
  if (bad) fcounts[0] = &wide;
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v, 2, fstarts, fcounts, mine), NC_EEDGE);
  fcounts[0] = &c0[1];
  /* An unknown variable on one rank: NC_ENOTVAR everywhere. */
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, bad ? 99 : v, 2, fstarts, fcounts, mine), NC_ENOTVAR);
  /* A record variable, bad record coordinates on one rank: no record appears. */
  MPI_Offset rfar[2] = {0, end + 1};
  MPI_Offset *rstarts[2] = {s0, bad ? rfar : s1};
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, r, 2, rstarts, counts, mine), NC_EINVALCOORDS);
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 0);

  /* The good call works, and a get with one bad rank reads nothing anywhere. */
  CHECK_OK(ncmpi_put_varn_int_all(ncid, r, 2, starts, counts, mine));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 1);
  for (int i = 0; i < PER; ++i) got[i] = -7;
  rstarts[1] = bad ? rfar : s1;
  CHECK_ERR(ncmpi_get_varn_int_all(ncid, r, 2, rstarts, counts, got), NC_EINVALCOORDS);
  for (int i = 0; i < PER; ++i) CHECK(got[i] == -7);
  CHECK_OK(ncmpi_get_varn_int_all(ncid, r, 2, starts, counts, got));
  for (int i = 0; i < PER; ++i) CHECK(got[i] == mine[i]);
  CHECK_OK(ncmpi_close(ncid));

  /* Nothing of the failed puts landed: v holds the fill value. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int all[64];
  MPI_Offset zero = 0;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &zero, &end, all));
  for (int i = 0; i < end; ++i) CHECK(all[i] == NC_FILL_INT);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
