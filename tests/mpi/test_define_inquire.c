/* Define, annotate, inquire, reopen: the metadata side of the API, checked
 * value by value on every rank, for CDF-1, CDF-2 and CDF-5. */
#include "mpi_test.h"

static void check_file(const char *path, int cmode) {
  int ncid, fmt, ndims, nvars, ngatts, unlim, dimid, varid, natts, dims[2];
  nc_type type;
  MPI_Offset len;
  char name[NC_MAX_NAME + 1];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq(ncid, &ndims, &nvars, &ngatts, &unlim));
  CHECK(ndims == 3 && nvars == 3 && ngatts == 2 && unlim == 0);
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == ((cmode & NC_64BIT_DATA) ? NC_FORMAT_CDF5 : (cmode & NC_64BIT_OFFSET) ? NC_FORMAT_CDF2 : NC_FORMAT_CLASSIC));
  CHECK_OK(ncmpi_inq_dimid(ncid, "x", &dimid));
  CHECK(dimid == 1);
  CHECK_OK(ncmpi_inq_dim(ncid, dimid, name, &len));
  CHECK(strcmp(name, "x") == 0 && len == 5);
  CHECK_OK(ncmpi_inq_varid(ncid, "temp", &varid));
  CHECK_OK(ncmpi_inq_var(ncid, varid, name, &type, &ndims, dims, &natts));
  CHECK(strcmp(name, "temp") == 0 && type == NC_FLOAT && ndims == 2 && dims[0] == 0 && dims[1] == 1 && natts == 2);
  char units[16] = {0};
  CHECK_OK(ncmpi_inq_att(ncid, varid, "units", &type, &len));
  CHECK(type == NC_CHAR && len == 6);
  CHECK_OK(ncmpi_get_att_text(ncid, varid, "units", units));
  CHECK(memcmp(units, "kelvin", 6) == 0);
  double range[2];
  CHECK_OK(ncmpi_get_att_double(ncid, varid, "valid_range", range));
  CHECK(range[0] == 100.0 && range[1] == 400.5);
  int iv[3];
  CHECK_OK(ncmpi_get_att_int(ncid, NC_GLOBAL, "ints", iv));
  CHECK(iv[0] == -1 && iv[1] == 0 && iv[2] == 2147483647);
  short sv[3];
  CHECK_ERR(ncmpi_get_att_short(ncid, NC_GLOBAL, "ints", sv), NC_ERANGE);
  CHECK_ERR(ncmpi_get_att_text(ncid, NC_GLOBAL, "ints", units), NC_ECHAR);
  CHECK_ERR(ncmpi_inq_varid(ncid, "nope", &varid), NC_ENOTVAR);
  CHECK_ERR(ncmpi_inq_dim(ncid, 17, name, &len), NC_EBADDIM);
  CHECK_ERR(ncmpi_def_dim(ncid, "y", 3, &dimid), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 1, "x"), NC_EPERM);
  CHECK_ERR(ncmpi_redef(ncid), NC_EPERM);
  if (cmode & NC_64BIT_DATA) {
    unsigned long long u64;
    CHECK_OK(ncmpi_inq_varid(ncid, "big", &varid));
    CHECK_OK(ncmpi_get_att_ulonglong(ncid, varid, "u64", &u64));
    CHECK(u64 == 18446744073709551615ULL);
  }
  CHECK_OK(ncmpi_close(ncid));
}

static void run(int cmode, const char *file) {
  const char *path = mpi_test_path(file);
  int ncid, dt, dx, dz, v_temp, v_scalar, v_big, dims[2];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, cmode | NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 5, &dx));
  CHECK_ERR(ncmpi_def_dim(ncid, "t2", NC_UNLIMITED, &dz), NC_EUNLIMIT);
  CHECK_ERR(ncmpi_def_dim(ncid, "x", 3, &dz), NC_ENAMEINUSE);
  CHECK_ERR(ncmpi_def_dim(ncid, "bad/name", 3, &dz), NC_EBADNAME);
  CHECK_ERR(ncmpi_def_dim(ncid, "neg", -3, &dz), NC_EDIMSIZE);
  CHECK_OK(ncmpi_def_dim(ncid, "z", 2, &dz));
  dims[0] = dt; dims[1] = dx;
  CHECK_OK(ncmpi_def_var(ncid, "temp", NC_FLOAT, 2, dims, &v_temp));
  CHECK_ERR(ncmpi_def_var(ncid, "temp", NC_INT, 0, NULL, &v_scalar), NC_ENAMEINUSE);
  dims[0] = dx; dims[1] = dt;
  CHECK_ERR(ncmpi_def_var(ncid, "wrong", NC_INT, 2, dims, &v_scalar), NC_EUNLIMPOS);
  dims[1] = 42;
  CHECK_ERR(ncmpi_def_var(ncid, "wrong", NC_INT, 2, dims, &v_scalar), NC_EBADDIM);
  CHECK_ERR(ncmpi_def_var(ncid, "wrong", 99, 0, NULL, &v_scalar), NC_EBADTYPE);
  CHECK_OK(ncmpi_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &v_scalar));
  if (cmode & NC_64BIT_DATA) {
    CHECK_OK(ncmpi_def_var(ncid, "big", NC_UINT64, 1, &dz, &v_big));
    unsigned long long u = 18446744073709551615ULL;
    CHECK_OK(ncmpi_put_att_ulonglong(ncid, v_big, "u64", NC_UINT64, 1, &u));
  } else {
    CHECK_ERR(ncmpi_def_var(ncid, "big", NC_UINT64, 1, &dz, &v_big), NC_ESTRICTCDF2);
    CHECK_OK(ncmpi_def_var(ncid, "big", NC_SHORT, 1, &dz, &v_big));
  }
  CHECK_OK(ncmpi_put_att_text(ncid, v_temp, "units", 6, "kelvin"));
  double range[2] = {100.0, 400.5};
  CHECK_OK(ncmpi_put_att_double(ncid, v_temp, "valid_range", NC_DOUBLE, 2, range));
  int iv[3] = {-1, 0, 2147483647};
  CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "ints", NC_INT, 3, iv));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 4, "test"));
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "as_short", NC_SHORT, 3, iv), NC_ERANGE);
  CHECK_OK(ncmpi_del_att(ncid, NC_GLOBAL, "as_short"));
  CHECK_ERR(ncmpi_del_att(ncid, NC_GLOBAL, "as_short"), NC_ENOTATT);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "c", NC_CHAR, 1, iv), NC_ECHAR);
  CHECK_ERR(ncmpi_put_att_int(ncid, 77, "c", NC_INT, 1, iv), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_var_float_all(ncid, v_temp, NULL), NC_EINDEFINE);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_ERR(ncmpi_enddef(ncid), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_def_dim(ncid, "late", 3, &dz), NC_ENOTINDEFINE);
  CHECK_ERR(ncmpi_put_att_text(ncid, NC_GLOBAL, "new_in_data_mode", 1, "x"), NC_ENOTINDEFINE);
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 4, "TEST"));
  MPI_Offset hsize, hext;
  CHECK_OK(ncmpi_inq_header_size(ncid, &hsize));
  CHECK_OK(ncmpi_inq_header_extent(ncid, &hext));
  CHECK(hsize > 32 && hext >= hsize);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_ERR(ncmpi_close(ncid), NC_EBADID);
  check_file(path, cmode);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run(0, "cdf1.nc");
  run(NC_64BIT_OFFSET, "cdf2.nc");
  run(NC_64BIT_DATA, "cdf5.nc");
  int ncid;
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("missing.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid), NC_ENOENT);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("cdf1.nc"), NC_NOCLOBBER, MPI_INFO_NULL, &ncid), NC_EEXIST);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("x.nc"), NC_64BIT_OFFSET | NC_64BIT_DATA, MPI_INFO_NULL, &ncid), NC_EINVAL_CMODE);
  return mpi_test_finish();
}
