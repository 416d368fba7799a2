/* Out-of-range values in exacdf's own settings: the hint exa_erange_fill=disable
 * (MPI_Info or PNETCDF_HINTS) keeps the converted value (the C cast, +-FLT_MAX
 * on a double -> float get) where the default stores the fill value; the
 * partitioned format fills as the classic ones do, for compact variables
 * (data in their block) and ordinary ones, before and after a reopen. */
#include <exacdf.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define N 4

static int me, np;

static void check_info(int ncid, const char *expect) {
  MPI_Info used;
  char value[32] = "";
  int flag = 0;
  CHECK_OK(ncmpi_inq_file_info(ncid, &used));
  MPI_Info_get(used, "exa_erange_fill", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, expect) == 0);
  MPI_Info_free(&used);
}

/* Puts {1, 40000, -40000, 2} into short variables with and without _FillValue
 * and reads them back; `keep`: the hint disabled the fill. */
static void short_puts(int ncid, int s, int sf, int keep) {
  MPI_Offset start[1] = {(MPI_Offset)me * N}, count[1] = {N};
  int val[N] = {1, 40000, -40000, 2}, got[N];
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, s, start, count, val), NC_ERANGE);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, sf, start, count, val), NC_ERANGE);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, s, start, count, got));
  CHECK(got[0] == 1 && got[3] == 2);
  CHECK(got[1] == (keep ? -25536 : NC_FILL_SHORT) && got[2] == (keep ? 25536 : NC_FILL_SHORT));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, sf, start, count, got));
  CHECK(got[1] == (keep ? -25536 : -99) && got[2] == (keep ? 25536 : -99));
  /* Nonblocking: the same values. */
  int req, status;
  CHECK_ERR(ncmpi_iput_vara_int(ncid, s, start, count, val, &req), NC_ERANGE);
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &status));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, s, start, count, got));
  CHECK(got[1] == (keep ? -25536 : NC_FILL_SHORT));
}

static void with_hint(MPI_Info info, int keep) {
  int ncid, d, s, sf, i, dd;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("erange_hint.nc"), NC_CLOBBER, info, &ncid));
  check_info(ncid, keep ? "disable" : "enable");
  CHECK_OK(ncmpi_def_dim(ncid, "x", N * np, &d));
  CHECK_OK(ncmpi_def_var(ncid, "s", NC_SHORT, 1, &d, &s));
  CHECK_OK(ncmpi_def_var(ncid, "sf", NC_SHORT, 1, &d, &sf));
  CHECK_OK(ncmpi_def_var(ncid, "i", NC_INT, 1, &d, &i));
  CHECK_OK(ncmpi_def_var(ncid, "dd", NC_DOUBLE, 1, &d, &dd));
  short fill = -99;
  CHECK_OK(ncmpi_put_att_short(ncid, sf, "_FillValue", NC_SHORT, 1, &fill));
  int ai[2] = {40000, 3};
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "g", NC_SHORT, 2, ai), NC_ERANGE);
  CHECK_OK(ncmpi_enddef(ncid));
  short gs[2];
  CHECK_OK(ncmpi_get_att_short(ncid, NC_GLOBAL, "g", gs));
  CHECK(gs[0] == (keep ? -25536 : NC_FILL_SHORT) && gs[1] == 3);
  signed char gc[2];
  CHECK_ERR(ncmpi_get_att_schar(ncid, NC_GLOBAL, "g", gc), NC_ERANGE);
  CHECK(gc[0] == (keep ? (signed char)-25536 : NC_FILL_BYTE) && gc[1] == 3);
  short_puts(ncid, s, sf, keep);
  MPI_Offset start[1] = {(MPI_Offset)me * N}, count[1] = {N};
  int big[N] = {1, 40000, 3, 4};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, i, start, count, big));
  short sh[N];
  CHECK_ERR(ncmpi_get_vara_short_all(ncid, i, start, count, sh), NC_ERANGE);
  CHECK(sh[1] == (keep ? -25536 : NC_FILL_SHORT) && sh[2] == 3);
  double dv[N] = {1e39, -1e39, 1, 2};
  CHECK_OK(ncmpi_put_vara_double_all(ncid, dd, start, count, dv));
  float fv[N];
  CHECK_ERR(ncmpi_get_vara_float_all(ncid, dd, start, count, fv), NC_ERANGE);
  CHECK(fv[0] == (keep ? FLT_MAX : NC_FILL_FLOAT) && fv[1] == (keep ? -FLT_MAX : NC_FILL_FLOAT));
  CHECK_OK(ncmpi_close(ncid));
}

/* The partitioned format: a compact variable (data in its block) and, with
 * exa_compact_max=0, ordinary ones; the fill survives a reopen. */
static void partitioned(int compact_max_zero) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (compact_max_zero) MPI_Info_set(info, "exa_compact_max", "0");
  const char *path = mpi_test_path("erange_part.nc");
  int ncid, d, s, sf;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, info, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/g/x", N * np, &d));
  CHECK_OK(ncmpi_def_var(ncid, "/g/s", NC_SHORT, 1, &d, &s));
  CHECK_OK(ncmpi_def_var(ncid, "/g/sf", NC_SHORT, 1, &d, &sf));
  short fill = -99;
  CHECK_OK(ncmpi_put_att_short(ncid, sf, "_FillValue", NC_SHORT, 1, &fill));
  CHECK_OK(ncmpi_enddef(ncid));
  MPI_Offset off = -1;
  CHECK_OK(ncmpi_inq_varoffset(ncid, s, &off));
  CHECK(compact_max_zero ? off > 0 : off == 0);
  short_puts(ncid, s, sf, 0);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/s", &s));
  CHECK_OK(ncmpi_inq_varid(ncid, "/g/sf", &sf));
  int all[N * 8];
  CHECK_OK(ncmpi_get_var_int_all(ncid, s, all));
  for (int r = 0; r < np; r++)
    CHECK(all[r * N] == 1 && all[r * N + 1] == NC_FILL_SHORT && all[r * N + 2] == NC_FILL_SHORT &&
          all[r * N + 3] == 2);
  CHECK_OK(ncmpi_get_var_int_all(ncid, sf, all));
  for (int r = 0; r < np; r++) CHECK(all[r * N + 1] == -99 && all[r * N + 2] == -99);
  short sh[N * 8];
  MPI_Offset start[1] = {0}, count[1] = {(MPI_Offset)N * np};
  CHECK_OK(ncmpi_get_vara_short_all(ncid, sf, start, count, sh));
  CHECK(sh[0] == 1 && sh[1] == -99 && sh[3] == 2);
  unsigned char uc[N * 8];
  CHECK_ERR(ncmpi_get_vara_uchar_all(ncid, sf, start, count, uc), NC_ERANGE);
  CHECK(uc[0] == 1 && uc[1] == NC_FILL_UBYTE && uc[3] == 2);
  CHECK_OK(ncmpi_close(ncid));
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  me = mpi_test_rank;
  np = mpi_test_nprocs;
  if (np > 8) return mpi_test_finish();
  with_hint(MPI_INFO_NULL, 0);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_erange_fill", "disable");
  with_hint(info, 1);
  MPI_Info_set(info, "exa_erange_fill", "enable");
  with_hint(info, 0);
  MPI_Info_free(&info);
  /* PNETCDF_HINTS wins over the info. */
  setenv("PNETCDF_HINTS", "exa_erange_fill=disable", 1);
  with_hint(MPI_INFO_NULL, 1);
  unsetenv("PNETCDF_HINTS");
  partitioned(0);
  partitioned(1);
  return mpi_test_finish();
}
