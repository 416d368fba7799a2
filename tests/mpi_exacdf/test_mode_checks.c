/* exacdf's own create-mode bits: EXA_FORMAT_PARTITIONED with a classic format
 * flag is NC_EINVAL_CMODE (which format was meant?), a bit no header defines
 * NC_EINVAL_CMODE/_OMODE (PnetCDF ignores it), and a rank passing the
 * partitioned flag when rank 0 does not gets NC_EMULTIDEFINE_CMODE and the
 * file rank 0's mode makes. A file too short to be netCDF is NC_ENOTNC. */
#include <exacdf.h>

#include "mpi_test.h"

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  unsetenv("PNETCDF_SAFE_MODE");
  const char *path = mpi_test_path("modes.nc");
  int ncid = -1, fmt = -1, dimid;
  if (mpi_test_rank == 0) remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, EXA_FORMAT_PARTITIONED | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid),
            NC_EINVAL_CMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, EXA_FORMAT_PARTITIONED | NC_64BIT_DATA, MPI_INFO_NULL, &ncid),
            NC_EINVAL_CMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, (int)0x80000000u, MPI_INFO_NULL, &ncid), NC_EINVAL_CMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, 0x00040000, MPI_INFO_NULL, &ncid), NC_EINVAL_CMODE);
  /* Nothing was created by the rejected calls. */
  struct stat sb;
  CHECK(stat(path, &sb) != 0);

  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE | NC_CLOBBER, MPI_INFO_NULL,
                        &ncid));
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == EXA_FORMAT_PARTITIONED_V1);
  CHECK_OK(ncmpi_def_dim(ncid, "x", 3, &dimid));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | 0x40000000, MPI_INFO_NULL, &ncid), NC_EINVAL_OMODE);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_INDEP_DEFINE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == EXA_FORMAT_PARTITIONED_V1);
  CHECK_OK(ncmpi_close(ncid));

  if (mpi_test_nprocs > 1) {
    /* Only the last rank asks for the partitioned format: rank 0's classic file. */
    const int last = mpi_test_rank == mpi_test_nprocs - 1;
    int rc = ncmpi_create(MPI_COMM_WORLD, path, last ? EXA_FORMAT_PARTITIONED : NC_64BIT_DATA, MPI_INFO_NULL, &ncid);
    CHECK_ERR(rc, last ? NC_EMULTIDEFINE_CMODE : NC_NOERR);
    CHECK_OK(ncmpi_inq_format(ncid, &fmt));
    CHECK(fmt == NC_FORMAT_CDF5);
    CHECK_OK(ncmpi_close(ncid));
    int is_cdf = 0;
    if (mpi_test_rank == 0) {
      FILE *f = fopen(path, "rb");
      unsigned char magic[4] = {0};
      if (f) {
        is_cdf = fread(magic, 1, 4, f) == 4 && memcmp(magic, "CDF\005", 4) == 0;
        fclose(f);
      }
      CHECK(is_cdf);
    }
  }

  /* Empty and too-short files say what is wrong. */
  if (mpi_test_rank == 0) {
    FILE *f = fopen(mpi_test_path("empty.nc"), "wb");
    if (f) fclose(f);
    f = fopen(mpi_test_path("three.nc"), "wb");
    if (f) {
      fwrite("CDF", 1, 3, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("empty.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), NC_ENOTNC);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("empty.nc"), NC_WRITE, MPI_INFO_NULL, &ncid), NC_ENOTNC);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("three.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), NC_ENOTNC);
  return mpi_test_finish();
}
