/* Dimension lengths per format (PnetCDF 1.12.3): CDF-1 up to NC_MAX_INT - 3,
 * CDF-2 up to NC_MAX_UINT - 3, CDF-5 up to NC_MAX_INT64; longer or negative is
 * NC_EDIMSIZE at def_dim. The largest length is written and read back exactly
 * (a NOFILL variable of it: the file holds only the header). A variable beyond
 * 2^63 - 4 bytes is NC_EVARSIZE at def_var; CDF-1/2 allow one large variable
 * only as the last one (NC_EVARSIZE at enddef). */
#include "mpi_test.h"

/* Creates a file with one dimension of `len` (and a NOFILL byte variable of
 * it when with_var), reopens it and checks the length. */
static void largest_round_trip(const char *name, int cmode, MPI_Offset len, int with_var) {
  int ncid, dimid, varid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(name), cmode | NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", len, &dimid));
  if (with_var) {
    CHECK_OK(ncmpi_def_var(ncid, "v", NC_BYTE, 1, &dimid, &varid));
    CHECK_OK(ncmpi_def_var_fill(ncid, varid, 1, NULL));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
  MPI_Offset got = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path(name), NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &got));
  CHECK(got == len);
  if (with_var) CHECK_OK(ncmpi_inq_varid(ncid, "v", &varid));
  CHECK_OK(ncmpi_close(ncid));
}

static void limits(int cmode, MPI_Offset max, const char *name) {
  int ncid, dimid = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(name), cmode | NC_CLOBBER, MPI_INFO_NULL, &ncid));
  if (max < NC_MAX_INT64) {
    CHECK_ERR(ncmpi_def_dim(ncid, "over", max + 1, &dimid), NC_EDIMSIZE);
    CHECK_ERR(ncmpi_def_dim(ncid, "over4", max + 4, &dimid), NC_EDIMSIZE);
  }
  CHECK_ERR(ncmpi_def_dim(ncid, "neg", -1, &dimid), NC_EDIMSIZE);
  CHECK_ERR(ncmpi_def_dim(ncid, "neg_min", (MPI_Offset)(-9223372036854775807LL - 1), &dimid), NC_EDIMSIZE);
  CHECK_OK(ncmpi_def_dim(ncid, "max", max, &dimid));
  int ndims = -1;
  CHECK_OK(ncmpi_inq_ndims(ncid, &ndims));
  CHECK(ndims == 1); /* the failed ones were not defined */
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  unsetenv("PNETCDF_SAFE_MODE");
  const MPI_Offset cdf1_max = (MPI_Offset)NC_MAX_INT - 3;  /* 2147483644 */
  const MPI_Offset cdf2_max = (MPI_Offset)NC_MAX_UINT - 3; /* 4294967292 */
  const MPI_Offset cdf5_max = NC_MAX_INT64;
  limits(NC_CLASSIC_MODEL, cdf1_max, "limits1.nc");
  limits(NC_64BIT_OFFSET, cdf2_max, "limits2.nc");
  limits(NC_64BIT_DATA, cdf5_max, "limits5.nc");
  {
    int ncid, dimid;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("limits1b.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
    CHECK_ERR(ncmpi_def_dim(ncid, "int_max", NC_MAX_INT, &dimid), NC_EDIMSIZE);
    CHECK_ERR(ncmpi_def_dim(ncid, "cdf2_max", cdf2_max, &dimid), NC_EDIMSIZE);
    CHECK_OK(ncmpi_close(ncid));
  }

  largest_round_trip("max1.nc", NC_CLASSIC_MODEL, cdf1_max, 1);
  largest_round_trip("max2.nc", NC_64BIT_OFFSET, cdf2_max, 1);
  largest_round_trip("max5.nc", NC_64BIT_DATA, cdf5_max, 0);
  largest_round_trip("big5.nc", NC_64BIT_DATA, (MPI_Offset)1 << 40, 1);
  struct stat sb;
  CHECK(stat(mpi_test_path("max2.nc"), &sb) == 0 && sb.st_size < 4096); /* no data written */

  /* A variable over 2^63 - 4 bytes: NC_EVARSIZE at def_var, nothing defined. */
  {
    int ncid, dimid, varid = -1, nvars = -1;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("huge5.nc"), NC_64BIT_DATA | NC_CLOBBER, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "x", cdf5_max, &dimid));
    CHECK_ERR(ncmpi_def_var(ncid, "b", NC_BYTE, 1, &dimid, &varid), NC_EVARSIZE);
    CHECK_ERR(ncmpi_def_var(ncid, "i", NC_INT, 1, &dimid, &varid), NC_EVARSIZE);
    int dims2[2];
    CHECK_OK(ncmpi_def_dim(ncid, "y", (MPI_Offset)1 << 32, &dims2[0]));
    CHECK_OK(ncmpi_def_dim(ncid, "z", (MPI_Offset)1 << 31, &dims2[1]));
    CHECK_ERR(ncmpi_def_var(ncid, "d", NC_DOUBLE, 2, dims2, &varid), NC_EVARSIZE);
    CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
    CHECK(nvars == 0);
    CHECK_OK(ncmpi_enddef(ncid));
    CHECK_OK(ncmpi_close(ncid));
  }
  /* CDF-1: the largest dimension's variable is fine as the last variable,
   * not before another one. */
  {
    int ncid, dims[2], varid;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("last1.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "small", 10, &dims[0]));
    CHECK_OK(ncmpi_def_dim(ncid, "large", cdf1_max, &dims[1]));
    CHECK_OK(ncmpi_def_var(ncid, "s", NC_INT, 1, &dims[0], &varid));
    CHECK_OK(ncmpi_def_var(ncid, "l", NC_INT, 1, &dims[1], &varid));
    CHECK_OK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
    CHECK_OK(ncmpi_enddef(ncid));
    CHECK_OK(ncmpi_redef(ncid));
    CHECK_OK(ncmpi_def_var(ncid, "after", NC_INT, 1, &dims[0], &varid));
    CHECK_ERR(ncmpi_enddef(ncid), NC_EVARSIZE);
    CHECK_ERR(ncmpi_close(ncid), NC_EVARSIZE); /* close ends define mode: the same error */
  }
  return mpi_test_finish();
}
