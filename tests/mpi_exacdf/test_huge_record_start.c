/*
 * A record number no file of the format can hold (issue 15, item 1): a put
 * whose start, count or stride along the record dimension reaches past what
 * numrecs can count (CDF-1/2: 2^32-2) or past a 2^63-byte offset (CDF-5,
 * partitioned) is NC_EINVALCOORDS (the start) or NC_EEDGE (start + count),
 * blocking, independent and nonblocking alike, and writes nothing: the
 * fixed-size variable's data and numrecs are intact after a reopen.
 * PnetCDF 1.12.3 returns NC_NOERR for start = INT64_MAX and overwrites other
 * data (offset overflow), hence exacdf only.
 */
#include <exacdf.h>
#include <stdint.h>

#include "mpi_test.h"

#define NX 4

static void make_file(const char* path, int cmode) {
  int ncid, dims[2], fixed, rec;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "fixed", NC_INT, 1, &dims[0], &fixed));
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_FLOAT, 1, &dims[1], &rec));
  CHECK_OK(ncmpi_enddef(ncid));
  int values[NX] = {1, 2, 3, 4};
  MPI_Offset start = 0, count = NX;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, fixed, &start, &count, values));
  float seven = 7.0f;
  count = 1;
  CHECK_OK(ncmpi_put_vara_float_all(ncid, rec, &start, &count, &seven));
  CHECK_OK(ncmpi_close(ncid));
}

/* Every way of naming a huge record, each with the code it must give. */
static void bad_puts(const char* path, int cdf12) {
  int ncid, rec;
  float v[2] = {-1.0f, -1.0f};
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "rec", &rec));
  MPI_Offset start, count = 1, stride;

  start = INT64_MAX;
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, rec, &start, &count, v), NC_EINVALCOORDS);
  start = (MPI_Offset)1 << 62;
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, rec, &start, &count, v), NC_EINVALCOORDS);
  start = INT64_MAX / 4; /* the record's offset is beyond 2^63 */
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, rec, &start, &count, v), NC_EINVALCOORDS);
  if (cdf12) { /* numrecs is 32 bits, all ones means streaming */
    start = ((MPI_Offset)1 << 32) - 2;
    CHECK_ERR(ncmpi_put_vara_float_all(ncid, rec, &start, &count, v), NC_EINVALCOORDS);
    start = ((MPI_Offset)1 << 32) - 3;
    count = 2;
    CHECK_ERR(ncmpi_put_vara_float_all(ncid, rec, &start, &count, v), NC_EEDGE);
  }
  start = 0;
  count = (MPI_Offset)1 << 62; /* 2^64 bytes: PnetCDF's NC_EINTOVERFLOW comes first */
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, rec, &start, &count, v), NC_EINTOVERFLOW);
  count = 2;
  stride = INT64_MAX;
  CHECK_ERR(ncmpi_put_vars_float_all(ncid, rec, &start, &count, &stride, v), NC_EEDGE);
  stride = (MPI_Offset)1 << 61;
  CHECK_ERR(ncmpi_put_vars_float_all(ncid, rec, &start, &count, &stride, v), NC_EEDGE);

  count = 1;
  start = INT64_MAX;
  int req = NC_REQ_NULL;
  CHECK_ERR(ncmpi_iput_vara_float(ncid, rec, &start, &count, v, &req), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_get_vara_float_all(ncid, rec, &start, &count, v), NC_EINVALCOORDS);

  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_ERR(ncmpi_put_vara_float(ncid, rec, &start, &count, v), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_end_indep_data(ncid));

  MPI_Offset numrecs = -1;
  int time;
  CHECK_OK(ncmpi_inq_dimid(ncid, "time", &time));
  CHECK_OK(ncmpi_inq_dimlen(ncid, time, &numrecs));
  CHECK(numrecs == 1);
  CHECK_OK(ncmpi_close(ncid));
}

static void check_intact(const char* path) {
  int ncid, fixed, rec, time;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "fixed", &fixed));
  CHECK_OK(ncmpi_inq_varid(ncid, "rec", &rec));
  CHECK_OK(ncmpi_inq_dimid(ncid, "time", &time));
  MPI_Offset numrecs = -1, start = 0, count = NX;
  CHECK_OK(ncmpi_inq_dimlen(ncid, time, &numrecs));
  CHECK(numrecs == 1);
  int values[NX] = {0};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, fixed, &start, &count, values));
  for (int i = 0; i < NX; i++) CHECK(values[i] == i + 1);
  float seven = 0.0f;
  count = 1;
  CHECK_OK(ncmpi_get_vara_float_all(ncid, rec, &start, &count, &seven));
  CHECK(seven == 7.0f);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char** argv) {
  mpi_test_init(&argc, &argv);
  const struct {
    const char* name;
    int cmode;
    int cdf12;
  } formats[] = {
      {"huge_rec_cdf1.nc", 0, 1},
      {"huge_rec_cdf2.nc", NC_64BIT_OFFSET, 1},
      {"huge_rec_cdf5.nc", NC_64BIT_DATA, 0},
      {"huge_rec_part.nc", EXA_FORMAT_PARTITIONED, 0},
  };
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    const char* path = mpi_test_path(formats[i].name);
    make_file(path, formats[i].cmode);
    bad_puts(path, formats[i].cdf12);
    check_intact(path);
  }
  return mpi_test_finish();
}
