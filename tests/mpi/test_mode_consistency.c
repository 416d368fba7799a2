/* Create and open modes that differ between ranks (PnetCDF 1.12.3): rank 0's
 * mode is the file's; a rank that passed another gets NC_EMULTIDEFINE_CMODE /
 * NC_EMULTIDEFINE_OMODE and still a valid ncid (the file opened with rank 0's
 * mode); in safe mode (PNETCDF_SAFE_MODE=1, read at create/open) every rank
 * gets the code. Mode checks: NC_64BIT_OFFSET|NC_64BIT_DATA, NC_DISKLESS and
 * NC_MMAP are NC_EINVAL_CMODE, NC_DISKLESS NC_EINVAL_OMODE; unknown bits are
 * ignored by PnetCDF and NC_EINVAL_CMODE/_OMODE for exacdf. At 1 rank modes
 * cannot differ: only the mode checks run. */
#include "mpi_test.h"

/* Ranks where `differs` is set pass `other`, the rest `mode`; checks each
 * rank's code and that its ncid works on the file rank 0's mode made. */
static void create_differing(int differs, int mode, int other, int safe, int expect_format) {
  int ncid = -1, dimid, fmt = -1;
  const char *path = mpi_test_path("cmode.nc");
  int rc = ncmpi_create(MPI_COMM_WORLD, path, differs ? other : mode, MPI_INFO_NULL, &ncid);
  int any = differs;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int root_differs = differs;
  MPI_Bcast(&root_differs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK_ERR(rc, (any && (safe || differs != root_differs)) ? NC_EMULTIDEFINE_CMODE : NC_NOERR);
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == expect_format); /* rank 0's mode made the file */
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4, &dimid));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == expect_format);
  CHECK_OK(ncmpi_close(ncid));
}

static void open_differing(int differs, int mode, int other, int safe) {
  int ncid = -1, mine = differs ? other : mode, root_mode = mine;
  int rc = ncmpi_open(MPI_COMM_WORLD, mpi_test_path("cmode.nc"), mine, MPI_INFO_NULL, &ncid);
  int any = differs;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Bcast(&root_mode, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK_ERR(rc, (any && (safe || mine != root_mode)) ? NC_EMULTIDEFINE_OMODE : NC_NOERR);
  /* Rank 0's mode decides whether the file is writable, on every rank. */
  if (root_mode & NC_WRITE) {
    CHECK_OK(ncmpi_redef(ncid));
    CHECK_OK(ncmpi_enddef(ncid));
  } else {
    CHECK_ERR(ncmpi_redef(ncid), NC_EPERM);
  }
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  unsetenv("PNETCDF_SAFE_MODE");
  const int r = mpi_test_rank, np = mpi_test_nprocs;
  int ncid;
  const char *path = mpi_test_path("modes.nc");

  /* Mode checks (the same mode on every rank). */
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, NC_64BIT_OFFSET | NC_64BIT_DATA, MPI_INFO_NULL, &ncid), NC_EINVAL_CMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, NC_DISKLESS, MPI_INFO_NULL, &ncid), NC_EINVAL_CMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, NC_MMAP, MPI_INFO_NULL, &ncid), NC_EINVAL_CMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, NC_NETCDF4 | NC_64BIT_DATA, MPI_INFO_NULL, &ncid), NC_ENOTBUILT);
  /* Flags PnetCDF knows and accepts. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_SHARE | NC_LOCK | NC_MPIIO | NC_CLASSIC_MODEL | NC_64BIT_DATA,
                        MPI_INFO_NULL, &ncid));
  int fmt = -1;
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == NC_FORMAT_CDF5);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, path, NC_DISKLESS, MPI_INFO_NULL, &ncid), NC_EINVAL_OMODE);
  /* The file tells its format: format flags in an open mode are ignored. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | NC_64BIT_OFFSET | NC_NETCDF4, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_close(ncid));
  /* Bits no header defines: PnetCDF ignores them, exacdf rejects them. */
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, path, 0x40000000, MPI_INFO_NULL, &ncid),
            MPI_TEST_IS_EXACDF ? NC_EINVAL_CMODE : NC_NOERR);
  if (!MPI_TEST_IS_EXACDF) CHECK_OK(ncmpi_close(ncid));
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | 0x40000000, MPI_INFO_NULL, &ncid),
            MPI_TEST_IS_EXACDF ? NC_EINVAL_OMODE : NC_NOERR);
  if (!MPI_TEST_IS_EXACDF) CHECK_OK(ncmpi_close(ncid));

  if (np > 1) {
    const int last = r == np - 1;
    for (int safe = 0; safe < 2; ++safe) {
      if (safe) setenv("PNETCDF_SAFE_MODE", "1", 1);
      /* The last rank differs; then rank 0 differs from all the others. */
      create_differing(last, NC_64BIT_OFFSET, NC_64BIT_DATA, safe, NC_FORMAT_CDF2);
      create_differing(r == 0, NC_64BIT_OFFSET, NC_64BIT_DATA, safe, NC_FORMAT_CDF5);
      /* Open: NC_WRITE only on the last rank (read-only file everywhere),
       * then only on rank 0 (writable everywhere). */
      open_differing(last, NC_NOWRITE, NC_WRITE, safe);
      open_differing(r == 0, NC_NOWRITE, NC_WRITE, safe);
      if (safe) unsetenv("PNETCDF_SAFE_MODE");
    }
  }
  return mpi_test_finish();
}
