/* Hints (MPI_Info and PNETCDF_HINTS, which wins), ncmpi__enddef arguments,
 * independent/collective data modes, sync, default format, file info. */
#include "mpi_test.h"

static MPI_Offset info_value(MPI_Info info, const char *key) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  return flag ? atoll(value) : -1;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  int ncid, dx, v1, v2, old, rc;
  MPI_Offset off1, off2;

  /* nc_var_align_size from MPI_Info; nc_header_align_size overridden by the environment. */
  setenv("PNETCDF_HINTS", "nc_header_align_size=1024;nc_var_align_size=256", 1);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_var_align_size", "4096");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("hints.nc"), NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", 10, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dx, &v1));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 1, &dx, &v2));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_inq_varoffset(ncid, v1, &off1));
  CHECK_OK(ncmpi_inq_varoffset(ncid, v2, &off2));
  CHECK(off1 % 256 == 0 && off1 >= 1024 && off2 > off1);
  MPI_Info used;
  CHECK_OK(ncmpi_inq_file_info(ncid, &used));
  CHECK(info_value(used, "nc_var_align_size") == 256);
  CHECK(info_value(used, "nc_header_align_size") == 1024);
  MPI_Info_free(&used);
  unsetenv("PNETCDF_HINTS");

  /* Independent mode: each rank writes its own element; collective calls are refused. */
  int value = 100 + mpi_test_rank;
  MPI_Offset idx = mpi_test_rank % 10;
  CHECK_ERR(ncmpi_put_var1_int(ncid, v1, &idx, &value), NC_ENOTINDEP);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid)); /* already independent: no error, as PnetCDF */
  CHECK_ERR(ncmpi_put_var1_int_all(ncid, v1, &idx, &value), NC_EINDEP);
  if (mpi_test_rank < 10) CHECK_OK(ncmpi_put_var1_int(ncid, v1, &idx, &value));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_end_indep_data(ncid)); /* already collective: no error, as PnetCDF */
  CHECK_OK(ncmpi_sync(ncid));
  int all[10];
  CHECK_OK(ncmpi_get_var_int_all(ncid, v1, all));
  for (int r = 0; r < mpi_test_nprocs && r < 10; r++) CHECK(all[r] == 100 + r);
  MPI_Offset put_size = -1;
  CHECK_OK(ncmpi_inq_put_size(ncid, &put_size));
  /* Bytes this rank wrote: its element, plus the header on rank 0. */
  MPI_Offset header_size = 0;
  CHECK_OK(ncmpi_inq_header_size(ncid, &header_size));
  CHECK(put_size == (mpi_test_rank < 10 ? 4 : 0) + (mpi_test_rank == 0 ? header_size : 0));
  int pathlen = 0;
  char path[1200];
  CHECK_OK(ncmpi_inq_path(ncid, &pathlen, path));
  CHECK(pathlen == (int)strlen(mpi_test_path("hints.nc")) && strcmp(path, mpi_test_path("hints.nc")) == 0);
  CHECK_OK(ncmpi_close(ncid));

  /* ncmpi__enddef: v_align and h_minfree. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("enddef_args.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 10, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dx, &v1));
  CHECK_OK(ncmpi__enddef(ncid, 2000, 8, 0, 0));
  MPI_Offset hsize, hext;
  CHECK_OK(ncmpi_inq_header_size(ncid, &hsize));
  CHECK_OK(ncmpi_inq_header_extent(ncid, &hext));
  CHECK_OK(ncmpi_inq_varoffset(ncid, v1, &off1));
  CHECK(hext >= hsize + 2000 && off1 == hext && off1 % 8 == 0);
  CHECK_OK(ncmpi_close(ncid));

  /* Default format. */
  CHECK_OK(ncmpi_set_default_format(NC_FORMAT_CDF5, &old));
  CHECK(old == NC_FORMAT_CLASSIC);
  int fmt;
  CHECK_OK(ncmpi_inq_default_format(&fmt));
  CHECK(fmt == NC_FORMAT_CDF5);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("default5.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == NC_FORMAT_CDF5);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_inq_file_format(mpi_test_path("default5.nc"), &fmt));
  CHECK(fmt == NC_FORMAT_CDF5);
  CHECK_OK(ncmpi_set_default_format(NC_FORMAT_CLASSIC, &old));
  CHECK_ERR(ncmpi_set_default_format(12345, &old), NC_EINVAL);

  /* Abort of a new file removes it; delete removes a file. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("aborted.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
  rc = ncmpi_abort(ncid);
  CHECK(rc == NC_NOERR || !MPI_TEST_IS_EXACDF); /* PnetCDF 1.12.3: NC_ENOENT on ranks > 0 */
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("aborted.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), NC_ENOENT);
  if (mpi_test_rank == 0) CHECK_OK(ncmpi_delete(mpi_test_path("default5.nc"), MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("default5.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), NC_ENOENT);

  /* Abort after redef keeps the file as it was. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("hints.nc"), NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 1, &dx, &v2));
  CHECK_OK(ncmpi_abort(ncid));
  int nvars = 0;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("hints.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK(nvars == 2);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
