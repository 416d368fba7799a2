/* ncmpi_get/put_vard argument checks (PnetCDF 1.12.3): a file type whose
 * elements are of mixed types is NC_EMULTITYPES, of another type than the
 * variable NC_ETYPE_MISMATCH; a buffer type of mixed types NC_EMULTITYPES, of
 * another element count NC_EIOMISMATCH (only on the rank that passed it, the
 * others' data moves); bufcount 0 with MPI_DATATYPE_NULL is the variable's own
 * type, contiguous, as many as the file type selects; bufcount 0 with a buffer
 * type and a null file type move nothing. Failed puts leave the file as it was. */
#include "mpi_test.h"

#define PER 4 /* elements per rank */

static void check_slice(const int *got, int base, const char *what) {
  for (int i = 0; i < PER; ++i)
    if (got[i] != base + i) {
      fprintf(stderr, "[rank %d] %s: element %d is %d, expected %d\n", mpi_test_rank, what, i, got[i], base + i);
      mpi_test_failures++;
      return;
    }
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  unsetenv("PNETCDF_SAFE_MODE");
  const int r = mpi_test_rank, np = mpi_test_nprocs;
  int ncid, dimid, varid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("vard_checks.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)np * PER, &dimid));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
  CHECK_OK(ncmpi_enddef(ncid));
  int values[PER];
  for (int i = 0; i < PER; ++i) values[i] = 100 * (r + 1) + i;
  MPI_Offset start = (MPI_Offset)r * PER, count = PER;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, &start, &count, values));

  /* This rank's slice, as ints, as floats, and two element types at once. */
  int gsize = np * PER, sub = PER, first = r * PER;
  MPI_Datatype ints, floats, mixed, mixed_buf;
  MPI_Type_create_subarray(1, &gsize, &sub, &first, MPI_ORDER_C, MPI_INT, &ints);
  MPI_Type_create_subarray(1, &gsize, &sub, &first, MPI_ORDER_C, MPI_FLOAT, &floats);
  int blocks[2] = {2, 2};
  MPI_Aint disps[2] = {(MPI_Aint)first * 4, (MPI_Aint)first * 4 + 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_FLOAT};
  MPI_Type_create_struct(2, blocks, disps, types, &mixed);
  MPI_Aint bdisps[2] = {0, 8};
  MPI_Type_create_struct(2, blocks, bdisps, types, &mixed_buf);
  MPI_Type_commit(&ints);
  MPI_Type_commit(&floats);
  MPI_Type_commit(&mixed);
  MPI_Type_commit(&mixed_buf);

  int buf[2 * PER];
  const int base = 100 * (r + 1);
  /* bufcount 0, null buffer type: the variable's type, as many as selected
   * (and any other bufcount is ignored). */
  memset(buf, 0, sizeof buf);
  CHECK_OK(ncmpi_get_vard_all(ncid, varid, ints, buf, 0, MPI_DATATYPE_NULL));
  check_slice(buf, base, "bufcount 0, null buftype");
  CHECK(buf[PER] == 0);
  memset(buf, 0, sizeof buf);
  CHECK_OK(ncmpi_get_vard_all(ncid, varid, ints, buf, 7, MPI_DATATYPE_NULL));
  check_slice(buf, base, "bufcount 7, null buftype");
  /* bufcount 0 with a buffer type: nothing. A null file type: nothing. */
  for (int i = 0; i < 2 * PER; ++i) buf[i] = -5;
  CHECK_OK(ncmpi_get_vard_all(ncid, varid, ints, buf, 0, MPI_INT));
  CHECK_OK(ncmpi_get_vard_all(ncid, varid, MPI_DATATYPE_NULL, buf, PER, MPI_INT));
  CHECK(buf[0] == -5 && buf[PER - 1] == -5);
  /* A buffer type converts (1.12.3 converts in vard), a derived one lays out. */
  double d[PER] = {0};
  CHECK_OK(ncmpi_get_vard_all(ncid, varid, ints, d, PER, MPI_DOUBLE));
  CHECK(d[0] == base && d[PER - 1] == base + PER - 1);
  MPI_Datatype every_other;
  MPI_Type_vector(PER, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int i = 0; i < 2 * PER; ++i) buf[i] = -1;
  CHECK_OK(ncmpi_get_vard_all(ncid, varid, ints, buf, 1, every_other));
  CHECK(buf[0] == base && buf[1] == -1 && buf[2] == base + 1 && buf[6] == base + 3);

  /* Element counts that differ: NC_EIOMISMATCH (bytes equal or not). */
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, buf, PER - 1, MPI_INT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, buf, PER + 1, MPI_INT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, d, PER / 2, MPI_DOUBLE), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, buf, 2 * PER, MPI_SHORT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, buf, -1, MPI_INT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_put_vard_all(ncid, varid, ints, buf, PER - 1, MPI_INT), NC_EIOMISMATCH);
  /* Text and numbers do not mix. */
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, buf, 4 * PER, MPI_CHAR), NC_ECHAR);
  /* The file type's elements: the variable's type, one type only. */
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, floats, buf, PER, MPI_INT), NC_ETYPE_MISMATCH);
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, mixed, buf, PER, MPI_INT), NC_EMULTITYPES);
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, mixed, buf, 0, MPI_DATATYPE_NULL), NC_EMULTITYPES);
  int junk[PER] = {-9, -9, -9, -9};
  CHECK_ERR(ncmpi_put_vard_all(ncid, varid, mixed, junk, PER, MPI_INT), NC_EMULTITYPES);
  CHECK_ERR(ncmpi_put_vard_all(ncid, varid, floats, junk, PER, MPI_INT), NC_ETYPE_MISMATCH);
  /* The buffer type: one element type. */
  CHECK_ERR(ncmpi_get_vard_all(ncid, varid, ints, buf, 1, mixed_buf), NC_EMULTITYPES);
  CHECK_ERR(ncmpi_put_vard_all(ncid, varid, ints, junk, 1, mixed_buf), NC_EMULTITYPES);
  /* Nothing the failed puts were given reached the file. */
  memset(buf, 0, sizeof buf);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, &start, &count, buf));
  check_slice(buf, base, "after failed puts");

  /* A put with bufcount 0 and a null buffer type writes the selection. */
  int w[PER];
  for (int i = 0; i < PER; ++i) w[i] = 7000 + 10 * r + i;
  CHECK_OK(ncmpi_put_vard_all(ncid, varid, ints, w, 0, MPI_DATATYPE_NULL));
  memset(buf, 0, sizeof buf);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, &start, &count, buf));
  check_slice(buf, 7000 + 10 * r, "put with bufcount 0, null buftype");

  /* One rank's mistake is that rank's error; the others' data moves. */
  const int odd_one = np - 1;
  memset(buf, 0, sizeof buf);
  int rc = ncmpi_get_vard_all(ncid, varid, ints, buf, r == odd_one && np > 1 ? PER - 1 : PER, MPI_INT);
  if (r == odd_one && np > 1) {
    CHECK_ERR(rc, NC_EIOMISMATCH);
  } else {
    CHECK_OK(rc);
    check_slice(buf, 7000 + 10 * r, "others of a collective call with one bad rank");
  }
  rc = ncmpi_get_vard_all(ncid, varid, r == odd_one && np > 1 ? mixed : ints, buf, PER, MPI_INT);
  CHECK_ERR(rc, r == odd_one && np > 1 ? NC_EMULTITYPES : NC_NOERR);

  /* Independent data mode: the same rules. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  memset(buf, 0, sizeof buf);
  CHECK_OK(ncmpi_get_vard(ncid, varid, ints, buf, 0, MPI_DATATYPE_NULL));
  check_slice(buf, 7000 + 10 * r, "independent, null buftype");
  CHECK_ERR(ncmpi_get_vard(ncid, varid, ints, buf, PER + 1, MPI_INT), NC_EIOMISMATCH);
  CHECK_ERR(ncmpi_get_vard(ncid, varid, mixed, buf, PER, MPI_INT), NC_EMULTITYPES);
  CHECK_OK(ncmpi_get_vard(ncid, varid, MPI_DATATYPE_NULL, buf, PER, MPI_INT));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));

  MPI_Type_free(&ints);
  MPI_Type_free(&floats);
  MPI_Type_free(&mixed);
  MPI_Type_free(&mixed_buf);
  MPI_Type_free(&every_other);
  return mpi_test_finish();
}
