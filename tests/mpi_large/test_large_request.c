/* A single collective request of more than 2 GiB on one rank (MPI counts are
 * int): rank 0 writes and reads 2.2 GiB in one call, the others a few
 * elements each, and every value is checked. PnetCDF 1.12.3 as built by
 * Debian refuses such requests (NC_EMAX_REQ), so this runs against exacdf only. */
#include <stdint.h>

#include "mpi_test.h"

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const MPI_Offset big = (MPI_Offset)2200 * 1024 * 1024 / 8 + 13, small = 5;
  MPI_Offset total = big + small * (mpi_test_nprocs - 1);
  MPI_Offset start = mpi_test_rank == 0 ? 0 : big + small * (mpi_test_rank - 1);
  MPI_Offset count = mpi_test_rank == 0 ? big : small;
  int ncid, dim, var;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("large.nc"), NC_CLOBBER | NC_64BIT_DATA,
                        MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", total, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_DOUBLE, 1, &dim, &var));
  CHECK_OK(ncmpi_enddef(ncid));
  double *buf = malloc((size_t)count * sizeof(double));
  CHECK(buf != NULL);
  if (buf) {
    for (MPI_Offset i = 0; i < count; i++) buf[i] = (double)(start + i);
    CHECK_OK(ncmpi_put_vara_double_all(ncid, var, &start, &count, buf));
    for (MPI_Offset i = 0; i < count; i++) buf[i] = -1.0;
    CHECK_OK(ncmpi_get_vara_double_all(ncid, var, &start, &count, buf));
    MPI_Offset bad = 0;
    for (MPI_Offset i = 0; i < count; i++) bad += buf[i] != (double)(start + i);
    CHECK(bad == 0);
    free(buf);
  }
  CHECK_OK(ncmpi_close(ncid));
  if (mpi_test_rank == 0) remove(mpi_test_path("large.nc"));
  return mpi_test_finish();
}
