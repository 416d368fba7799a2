/* Safe mode (PNETCDF_SAFE_MODE=1): ranks passing different arguments to a
 * collective define call get the NC_EMULTIDEFINE_* code on every rank, the
 * call takes effect nowhere, and consistent calls still work. */
#include "mpi_test.h"

int main(int argc, char **argv) {
  setenv("PNETCDF_SAFE_MODE", "1", 1);
  mpi_test_init(&argc, &argv);
  int many = mpi_test_nprocs > 1;
  int odd = mpi_test_rank == mpi_test_nprocs - 1 && many;
  int ncid, dimid, varid, ndims, nvars;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("safe.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));

  CHECK_ERR(ncmpi_def_dim(ncid, "x", odd ? 7 : 5, &dimid), many ? NC_EMULTIDEFINE_DIM_SIZE : NC_NOERR);
  CHECK_ERR(ncmpi_def_dim(ncid, odd ? "y1" : "y0", 5, &dimid), many ? NC_EMULTIDEFINE_DIM_NAME : NC_NOERR);
  CHECK_OK(ncmpi_inq_ndims(ncid, &ndims));
  CHECK(ndims == (many ? 0 : 2));

  CHECK_OK(ncmpi_def_dim(ncid, "n", 4, &dimid));
  CHECK_ERR(ncmpi_def_var(ncid, "v", odd ? NC_INT : NC_FLOAT, 1, &dimid, &varid),
            many ? NC_EMULTIDEFINE_VAR_TYPE : NC_NOERR);
  CHECK_ERR(ncmpi_def_var(ncid, odd ? "w1" : "w0", NC_INT, 1, &dimid, &varid),
            many ? NC_EMULTIDEFINE_VAR_NAME : NC_NOERR);
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK(nvars == (many ? 0 : 2));

  int value = odd ? 2 : 1;
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, &value),
            many ? NC_EMULTIDEFINE_ATTR_VAL : NC_NOERR);
  CHECK_ERR(ncmpi_put_att_text(ncid, NC_GLOBAL, "t", odd ? 2 : 3, "abc"),
            many ? NC_EMULTIDEFINE_ATTR_LEN : NC_NOERR);

  CHECK_OK(ncmpi_def_var(ncid, "good", NC_DOUBLE, 1, &dimid, &varid));
  CHECK_OK(ncmpi_put_att_text(ncid, varid, "units", 1, "m"));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("safe.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "good", &varid));
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
