/*
 * ncmpi_inq_file_info / ncmpi_get_file_info report every hint PnetCDF 1.12.3
 * reports, with the value in force: the defaults, the user's MPI_Info values,
 * PNETCDF_HINTS overriding them, the alignments an enddef chose; the user's
 * other keys as given; and (exacdf) its own exa_* hints.
 */
#include "mpi_test.h"

/* Whether `info` holds `key` with exactly `expected`. */
static int has(MPI_Info info, const char *key, const char *expected) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  if (!flag) {
    fprintf(stderr, "[rank %d] key %s missing (expected %s)\n", mpi_test_rank, key, expected);
    return 0;
  }
  if (strcmp(value, expected) != 0) {
    fprintf(stderr, "[rank %d] key %s = %s, expected %s\n", mpi_test_rank, key, value, expected);
    return 0;
  }
  return 1;
}

/* The eight keys PnetCDF reports; alignments given as strings. */
static void check_pnetcdf_keys(int ncid, const char *h_align, const char *v_align,
                               const char *r_align, const char *chunk, const char *swap,
                               const char *ibuf) {
  MPI_Info info = MPI_INFO_NULL;
  CHECK_OK(ncmpi_inq_file_info(ncid, &info));
  if (info == MPI_INFO_NULL) {
    CHECK(0);
    return;
  }
  CHECK(has(info, "nc_header_align_size", h_align));
  CHECK(has(info, "nc_var_align_size", v_align));
  CHECK(has(info, "nc_record_align_size", r_align));
  CHECK(has(info, "nc_header_read_chunk_size", chunk));
  CHECK(has(info, "nc_in_place_swap", swap));
  CHECK(has(info, "nc_ibuf_size", ibuf));
  CHECK(has(info, "pnetcdf_subfiling", "disable"));
  CHECK(has(info, "nc_num_subfiles", "0"));
  MPI_Info_free(&info);
}

static void define_one(int ncid) {
  int dim, var;
  CHECK_OK(ncmpi_def_dim(ncid, "x", 10, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &var));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("file_info.nc"));
  int ncid;
  MPI_Info info;

  /* No hints: defaults; after enddef the alignments in force. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  check_pnetcdf_keys(ncid, "0", "0", "0", "262144", "auto", "16777216");
  define_one(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  check_pnetcdf_keys(ncid, "512", "4", "4", "262144", "auto", "16777216");
  CHECK_OK(ncmpi_get_file_info(ncid, &info)); /* the same call under its other name */
  CHECK(has(info, "nc_var_align_size", "4"));
  MPI_Info_free(&info);
#if MPI_TEST_IS_EXACDF
  CHECK_OK(ncmpi_inq_file_info(ncid, &info));
  CHECK(has(info, "exa_bcast_read", "auto"));
  CHECK(has(info, "exa_bcast_read_max", "2147483648"));
  CHECK(has(info, "exa_define_mode", "collective"));
  CHECK(has(info, "exa_format", "classic"));
  CHECK(has(info, "exa_compact_max", "65536"));
  MPI_Info_free(&info);
#endif
  CHECK_OK(ncmpi_close(ncid));

  /* The user's hints, before and after enddef, and a key PnetCDF does not know. */
  MPI_Info user;
  MPI_Info_create(&user);
  MPI_Info_set(user, "nc_header_align_size", "1024");
  MPI_Info_set(user, "nc_var_align_size", "512");
  MPI_Info_set(user, "nc_record_align_size", "256");
  MPI_Info_set(user, "nc_header_read_chunk_size", "4096");
  MPI_Info_set(user, "nc_in_place_swap", "Enable"); /* any case */
  MPI_Info_set(user, "nc_ibuf_size", "8192");
  MPI_Info_set(user, "my_own_key", "hello");
  MPI_Info_set(user, "exa_bcast_read", "disable");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, user, &ncid));
  check_pnetcdf_keys(ncid, "1024", "512", "256", "4096", "enable", "8192");
  define_one(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  check_pnetcdf_keys(ncid, "1024", "512", "256", "4096", "enable", "8192");
  CHECK_OK(ncmpi_inq_file_info(ncid, &info));
  CHECK(has(info, "my_own_key", "hello"));
#if MPI_TEST_IS_EXACDF
  CHECK(has(info, "exa_bcast_read", "disable"));
#endif
  MPI_Info_free(&info);
  int varid;
  MPI_Offset begin = 0;
  CHECK_OK(ncmpi_inq_varid(ncid, "v", &varid));
  CHECK_OK(ncmpi_inq_varoffset(ncid, varid, &begin));
  CHECK(begin == 1024); /* the header extent aligned as reported */
  CHECK_OK(ncmpi_close(ncid));

  /* PNETCDF_HINTS overrides the MPI_Info, key by key, and adds its own keys. */
  setenv("PNETCDF_HINTS",
         "nc_var_align_size=2048;nc_in_place_swap=disable;nc_header_read_chunk_size=8192;"
         "env_only_key=1",
         1);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, user, &ncid));
  define_one(ncid);
  CHECK_OK(ncmpi_enddef(ncid));
  check_pnetcdf_keys(ncid, "1024", "2048", "256", "8192", "disable", "8192");
  CHECK_OK(ncmpi_inq_file_info(ncid, &info));
  CHECK(has(info, "env_only_key", "1"));
  CHECK(has(info, "my_own_key", "hello"));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_inq_varid(ncid, "v", &varid));
  CHECK_OK(ncmpi_inq_varoffset(ncid, varid, &begin));
  CHECK(begin == 2048);
  CHECK_OK(ncmpi_close(ncid));
  unsetenv("PNETCDF_HINTS");

  /* Open: the hints given (none: defaults), not the file's alignments. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_pnetcdf_keys(ncid, "0", "0", "0", "262144", "auto", "16777216");
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, user, &ncid));
  check_pnetcdf_keys(ncid, "1024", "512", "256", "4096", "enable", "8192");
  CHECK_OK(ncmpi_close(ncid));
  MPI_Info_free(&user);

  CHECK_ERR(ncmpi_inq_file_info(ncid, &info), NC_EBADID);
  return mpi_test_finish();
}
