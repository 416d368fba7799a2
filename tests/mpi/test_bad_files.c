/* Files that are not netCDF, truncated headers, and writes to read-only
 * files: the same NC_* code on every rank, and the file keeps its content. */
#include "mpi_test.h"

static void write_bytes(const char *path, const void *bytes, size_t n) {
  if (mpi_test_rank == 0) {
    FILE *f = fopen(path, "wb");
    if (f) {
      fwrite(bytes, 1, n, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static size_t read_bytes(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, cap, f) : 0;
  if (f) fclose(f);
  return n;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  int ncid, dimid, varid;
  char good[1200];
  snprintf(good, sizeof good, "%s", mpi_test_path("good.nc"));
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, good, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4, &dimid));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
  CHECK_OK(ncmpi_put_att_text(ncid, varid, "long_name", 11, "some values"));
  CHECK_OK(ncmpi_enddef(ncid));
  int values[4] = {1, 2, 3, 4};
  MPI_Offset start = 0, count = mpi_test_rank == 0 ? 4 : 0;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, &start, &count, values));
  CHECK_OK(ncmpi_close(ncid));

  unsigned char original[4096];
  size_t n = read_bytes(good, original, sizeof original);
  CHECK(n > 32);

  /* Not netCDF at all, empty, HDF5, and every truncation of the header. */
  write_bytes(mpi_test_path("junk.nc"), "this is not a netCDF file at all", 32);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("junk.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), NC_ENOTNC);
  /* Shorter than a magic number: PnetCDF reports a file error ("Unknown
   * error in file operation"); exacdf says it is not a netCDF file. */
  const int too_short = MPI_TEST_IS_EXACDF ? NC_ENOTNC : NC_EFILE;
  write_bytes(mpi_test_path("empty.nc"), "", 0);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("empty.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), too_short);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("empty.nc"), NC_WRITE, MPI_INFO_NULL, &ncid), too_short);
  write_bytes(mpi_test_path("short.nc"), "CDF\001", 4);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("short.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), too_short);
  const unsigned char hdf5[16] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  write_bytes(mpi_test_path("hdf5.nc"), hdf5, sizeof hdf5);
  int rc = ncmpi_open(MPI_COMM_WORLD, mpi_test_path("hdf5.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid);
  CHECK(rc == NC_ENOTBUILT || rc == NC_ENOTNC);
  MPI_Offset hsize = 0;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, good, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_header_size(ncid, &hsize));
  CHECK_OK(ncmpi_close(ncid));
  /* PnetCDF 1.12.3 reads missing header bytes as zeros and opens many
   * truncated headers; exacdf rejects every truncation. */
  for (MPI_Offset cut = 8; MPI_TEST_IS_EXACDF && cut < hsize; cut += 1) {
    write_bytes(mpi_test_path("cut.nc"), original, (size_t)cut);
    rc = ncmpi_open(MPI_COMM_WORLD, mpi_test_path("cut.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid);
    CHECK(rc != NC_NOERR);
    int lo = rc, hi = rc;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi);
    if (rc == NC_NOERR) ncmpi_close(ncid);
  }

  /* Writes to a read-only file fail and change nothing. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, good, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int other[4] = {9, 9, 9, 9};
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, varid, &start, &count, other), NC_EPERM);
  CHECK_ERR(ncmpi_redef(ncid), NC_EPERM);
  CHECK_ERR(ncmpi_put_att_text(ncid, varid, "long_name", 3, "abc"), NC_EPERM);
  CHECK_ERR(ncmpi_rename_var(ncid, varid, "w"), NC_EPERM);
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, 99, &start, &count, other), NC_ENOTVAR);
  CHECK_ERR(ncmpi_get_vara_int(ncid, varid, &start, &count, other), NC_ENOTINDEP);
  CHECK_OK(ncmpi_close(ncid));
  unsigned char after[4096];
  CHECK(read_bytes(good, after, sizeof after) == n && memcmp(original, after, n) == 0);

  /* Bad ids and arguments. */
  CHECK_ERR(ncmpi_inq_nvars(12345, &varid), NC_EBADID);
  CHECK_ERR(ncmpi_close(-1), NC_EBADID);
  CHECK_ERR(ncmpi_inq_libvers() != NULL ? NC_NOERR : NC_EINVAL, NC_NOERR);
  return mpi_test_finish();
}
