/* Out-of-range values (NC_ERANGE) are stored and read as fill values, as Debian's
 * PnetCDF 1.12.3 (built with erange-fill) does: a put stores the variable's fill
 * value (_FillValue, else the type's default) where a value does not fit and still
 * returns NC_ERANGE; a get stores the memory type's default fill; an attribute
 * put stores the attribute type's default fill (even on a variable with a
 * _FillValue). Every kind of data path, CDF-1/2/5, values read back through a
 * wider type. The same expectations hold for the oracle build against PnetCDF. */
#include <math.h>

#include "mpi_test.h"

#define N 4 /* elements per rank */

static int ncid, np, me, cdf5;
static MPI_Offset mine[1], cnt[1] = {N}, one_stride[1] = {1};

/* Every rank's slot of `varid`, read as int, must be `expect`. */
static void expect_ints(int varid, const int expect[N], const char *what) {
  int all[N * 8];
  CHECK_OK(ncmpi_get_var_int_all(ncid, varid, all));
  for (int r = 0; r < np; r++)
    for (int i = 0; i < N; i++)
      if (all[r * N + i] != expect[i]) {
        CHECK(all[r * N + i] == expect[i]);
        fprintf(stderr, "  %s: rank %d slot %d holds %d, expected %d\n", what, r, i, all[r * N + i], expect[i]);
      }
}

static void expect_doubles(int varid, const double expect[N], const char *what) {
  double all[N * 8];
  CHECK_OK(ncmpi_get_var_double_all(ncid, varid, all));
  for (int r = 0; r < np; r++)
    for (int i = 0; i < N; i++) {
      double got = all[r * N + i];
      int same = isnan(expect[i]) ? isnan(got) : got == expect[i];
      if (!same) {
        CHECK(same);
        fprintf(stderr, "  %s: rank %d slot %d holds %g, expected %g\n", what, r, i, got, expect[i]);
      }
    }
}

static int def(const char *name, nc_type t, int dim) {
  int v;
  CHECK_OK(ncmpi_def_var(ncid, name, t, 1, &dim, &v));
  return v;
}

enum { P_VAR1, P_VARA, P_VARA_INDEP, P_VARS, P_VARM, P_FLEX, P_IPUT, P_BPUT, P_VARN, P_IPUT_INDEP, NPATHS };
static const char *path_names[NPATHS] = {"var1", "vara_all", "vara indep", "vars", "varm", "flexible",
                                         "iput", "bput", "varn", "iput indep"};

/* Puts {1, 40000, -40000, 2} as int into the short variable v by path p. */
static void put_by_path(int p, int v) {
  int val[N] = {1, 40000, -40000, 2};
  int req = NC_REQ_NULL, status = -1;
  switch (p) {
    case P_VAR1:
      for (int i = 0; i < N; i++) {
        MPI_Offset at[1] = {mine[0] + i};
        CHECK_ERR(ncmpi_put_var1_int_all(ncid, v, at, &val[i]), i == 1 || i == 2 ? NC_ERANGE : NC_NOERR);
      }
      break;
    case P_VARA: CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, mine, cnt, val), NC_ERANGE); break;
    case P_VARA_INDEP:
      CHECK_OK(ncmpi_begin_indep_data(ncid));
      CHECK_ERR(ncmpi_put_vara_int(ncid, v, mine, cnt, val), NC_ERANGE);
      CHECK_OK(ncmpi_end_indep_data(ncid));
      break;
    case P_VARS: CHECK_ERR(ncmpi_put_vars_int_all(ncid, v, mine, cnt, one_stride, val), NC_ERANGE); break;
    case P_VARM: {
      int spread[2 * N] = {1, 9, 40000, 9, -40000, 9, 2, 9}; /* every other int, by imap */
      MPI_Offset imap[1] = {2};
      CHECK_ERR(ncmpi_put_varm_int_all(ncid, v, mine, cnt, one_stride, imap, spread), NC_ERANGE);
      break;
    }
    case P_FLEX: CHECK_ERR(ncmpi_put_vara_all(ncid, v, mine, cnt, val, N, MPI_INT), NC_ERANGE); break;
    case P_IPUT:
      /* The conversion happens at post: NC_ERANGE there, the request still done. */
      CHECK_ERR(ncmpi_iput_vara_int(ncid, v, mine, cnt, val, &req), NC_ERANGE);
      CHECK(req != NC_REQ_NULL);
      CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &status));
      CHECK(status == NC_NOERR);
      break;
    case P_BPUT:
      CHECK_OK(ncmpi_buffer_attach(ncid, N * sizeof(short)));
      CHECK_ERR(ncmpi_bput_vara_int(ncid, v, mine, cnt, val, &req), NC_ERANGE);
      for (int i = 0; i < N; i++) val[i] = 7; /* the buffer is free at once */
      CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &status));
      CHECK(status == NC_NOERR);
      CHECK_OK(ncmpi_buffer_detach(ncid));
      break;
    case P_VARN: {
      MPI_Offset s0[1] = {mine[0]}, c0[1] = {2}, s1[1] = {mine[0] + 2}, c1[1] = {2};
      MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
      CHECK_ERR(ncmpi_put_varn_int_all(ncid, v, 2, starts, counts, val), NC_ERANGE);
      break;
    }
    case P_IPUT_INDEP:
      CHECK_OK(ncmpi_begin_indep_data(ncid));
      CHECK_ERR(ncmpi_iput_vara_int(ncid, v, mine, cnt, val, &req), NC_ERANGE);
      CHECK_OK(ncmpi_wait(ncid, 1, &req, &status));
      CHECK(status == NC_NOERR);
      CHECK_OK(ncmpi_end_indep_data(ncid));
      break;
  }
}

static void run(int cmode) {
  cdf5 = cmode == NC_64BIT_DATA;
  char name[32];
  snprintf(name, sizeof name, "erange_fill_%d.nc", cmode);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(name), NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  int dim;
  CHECK_OK(ncmpi_def_dim(ncid, "x", N * np, &dim));
  int vpath[NPATHS];
  for (int p = 0; p < NPATHS; p++) {
    snprintf(name, sizeof name, "s%d", p);
    vpath[p] = def(name, NC_SHORT, dim);
  }
  int sf = def("sf", NC_SHORT, dim), b = def("b", NC_BYTE, dim), bf = def("bf", NC_BYTE, dim);
  int vi = def("i", NC_INT, dim), fl = def("fl", NC_FLOAT, dim), d = def("d", NC_DOUBLE, dim);
  int dd = def("dd", NC_DOUBLE, dim), fi = def("fi", NC_INT, dim);
  int ub = cdf5 ? def("ub", NC_UBYTE, dim) : -1;
  short sfill = -99;
  signed char bfill = -5;
  CHECK_OK(ncmpi_put_att_short(ncid, sf, "_FillValue", NC_SHORT, 1, &sfill));
  CHECK_OK(ncmpi_put_att_schar(ncid, bf, "_FillValue", NC_BYTE, 1, &bfill));

  /* Attributes: the attribute type's default fill, also on a variable with _FillValue. */
  int ai[3] = {1, 40000, -40000};
  CHECK_ERR(ncmpi_put_att_int(ncid, sf, "range", NC_SHORT, 3, ai), NC_ERANGE);
  CHECK_ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "g", NC_SHORT, 3, ai), NC_ERANGE);
  double ad[2] = {1e39, 1.5};
  CHECK_ERR(ncmpi_put_att_double(ncid, NC_GLOBAL, "gf", NC_FLOAT, 2, ad), NC_ERANGE);
  unsigned char au[2] = {200, 5}; /* unsigned char -> NC_BYTE: raw in CDF-1/2 */
  CHECK_ERR(ncmpi_put_att_uchar(ncid, NC_GLOBAL, "gb", NC_BYTE, 2, au), cdf5 ? NC_ERANGE : NC_NOERR);
  CHECK_OK(ncmpi_enddef(ncid));
  {
    int g[3];
    CHECK_OK(ncmpi_get_att_int(ncid, sf, "range", g));
    CHECK(g[0] == 1 && g[1] == NC_FILL_SHORT && g[2] == NC_FILL_SHORT);
    CHECK_OK(ncmpi_get_att_int(ncid, NC_GLOBAL, "g", g));
    CHECK(g[0] == 1 && g[1] == NC_FILL_SHORT && g[2] == NC_FILL_SHORT);
    double gd[2];
    CHECK_OK(ncmpi_get_att_double(ncid, NC_GLOBAL, "gf", gd));
    CHECK(gd[0] == (double)NC_FILL_FLOAT && gd[1] == 1.5);
    CHECK_OK(ncmpi_get_att_int(ncid, NC_GLOBAL, "gb", g));
    CHECK(g[0] == (cdf5 ? NC_FILL_BYTE : -56) && g[1] == 5);
    /* A get: the memory type's default fill. */
    signed char sc[3];
    CHECK_ERR(ncmpi_get_att_schar(ncid, NC_GLOBAL, "g", sc), NC_ERANGE);
    CHECK(sc[0] == 1 && sc[1] == NC_FILL_BYTE && sc[2] == NC_FILL_BYTE);
    unsigned char uc[3];
    CHECK_ERR(ncmpi_get_att_uchar(ncid, NC_GLOBAL, "g", uc), NC_ERANGE);
    CHECK(uc[0] == 1 && uc[1] == NC_FILL_UBYTE && uc[2] == NC_FILL_UBYTE);
  }

  mine[0] = (MPI_Offset)me * N;
  /* Every put path into a short variable without _FillValue: NC_FILL_SHORT. */
  const int short_fill[N] = {1, NC_FILL_SHORT, NC_FILL_SHORT, 2};
  for (int p = 0; p < NPATHS; p++) {
    put_by_path(p, vpath[p]);
    expect_ints(vpath[p], short_fill, path_names[p]);
  }
  /* With _FillValue: that value. */
  int val[N] = {1, 40000, -40000, 2};
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, sf, mine, cnt, val), NC_ERANGE);
  const int sf_expect[N] = {1, -99, -99, 2};
  expect_ints(sf, sf_expect, "sf");
  /* Nonblocking, flexible and varn into the variable with _FillValue too. */
  {
    int req, status;
    int v2[N] = {-32768, 32768, 5, -32769};
    CHECK_ERR(ncmpi_iput_vara_int(ncid, sf, mine, cnt, v2, &req), NC_ERANGE);
    CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &status));
    const int e2[N] = {-32768, -99, 5, -99};
    expect_ints(sf, e2, "sf iput");
  }
  /* int -> NC_BYTE, unsigned char -> NC_BYTE (a range check only in CDF-5). */
  int iv[N] = {1, 200, -300, 2};
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, b, mine, cnt, iv), NC_ERANGE);
  const int b_int[N] = {1, NC_FILL_BYTE, NC_FILL_BYTE, 2};
  expect_ints(b, b_int, "b int");
  unsigned char uv[N] = {1, 200, 255, 2};
  CHECK_ERR(ncmpi_put_vara_uchar_all(ncid, b, mine, cnt, uv), cdf5 ? NC_ERANGE : NC_NOERR);
  const int b_uc5[N] = {1, NC_FILL_BYTE, NC_FILL_BYTE, 2}, b_uc[N] = {1, -56, -1, 2};
  expect_ints(b, cdf5 ? b_uc5 : b_uc, "b uchar");
  CHECK_ERR(ncmpi_put_vara_uchar_all(ncid, bf, mine, cnt, uv), cdf5 ? NC_ERANGE : NC_NOERR);
  const int bf_uc5[N] = {1, -5, -5, 2};
  expect_ints(bf, cdf5 ? bf_uc5 : b_uc, "bf uchar");
  /* Float -> int: NaN is no NC_ERANGE (x86 gives INT_MIN), +-inf and 3e9 are. */
  float fv[N] = {1.5f, NAN, INFINITY, 3e9f};
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, fi, mine, cnt, fv), NC_ERANGE);
  const int fi_expect[N] = {1, -2147483647 - 1, NC_FILL_INT, NC_FILL_INT};
  expect_ints(fi, fi_expect, "float -> int");
  /* Double -> float beyond FLT_MAX: the fill value; NaN stays NaN. */
  double dv[N] = {1.5, 1e39, -1e39, NAN};
  CHECK_ERR(ncmpi_put_vara_double_all(ncid, fl, mine, cnt, dv), NC_ERANGE);
  const double fl_expect[N] = {1.5, NC_FILL_FLOAT, NC_FILL_FLOAT, NAN};
  expect_doubles(fl, fl_expect, "double -> float");
  /* Float +-inf -> double is NC_ERANGE on a put: the fill value. */
  float finf[N] = {1.5f, INFINITY, -INFINITY, 2};
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, d, mine, cnt, finf), NC_ERANGE);
  const double d_expect[N] = {1.5, NC_FILL_DOUBLE, NC_FILL_DOUBLE, 2};
  expect_doubles(d, d_expect, "float inf -> double");

  /* Gets into narrower memory types: the memory type's default fill. */
  int gi[N] = {1, 40000, -40000, 200};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, vi, mine, cnt, gi));
  {
    short s[N];
    CHECK_ERR(ncmpi_get_vara_short_all(ncid, vi, mine, cnt, s), NC_ERANGE);
    CHECK(s[0] == 1 && s[1] == NC_FILL_SHORT && s[2] == NC_FILL_SHORT && s[3] == 200);
    signed char sc[N];
    CHECK_ERR(ncmpi_get_vara_schar_all(ncid, vi, mine, cnt, sc), NC_ERANGE);
    CHECK(sc[0] == 1 && sc[1] == NC_FILL_BYTE && sc[2] == NC_FILL_BYTE && sc[3] == NC_FILL_BYTE);
    unsigned char uc[N];
    CHECK_ERR(ncmpi_get_vara_uchar_all(ncid, vi, mine, cnt, uc), NC_ERANGE);
    CHECK(uc[0] == 1 && uc[1] == NC_FILL_UBYTE && uc[2] == NC_FILL_UBYTE && uc[3] == 200);
    short f[N];
    CHECK_ERR(ncmpi_get_vara_all(ncid, vi, mine, cnt, f, N, MPI_SHORT), NC_ERANGE);
    CHECK(f[0] == 1 && f[1] == NC_FILL_SHORT && f[2] == NC_FILL_SHORT && f[3] == 200);
    short n[N];
    int req, status = 0;
    CHECK_OK(ncmpi_iget_vara_short(ncid, vi, mine, cnt, n, &req));
    CHECK_ERR(ncmpi_wait_all(ncid, 1, &req, &status), NC_ERANGE);
    CHECK(status == NC_ERANGE);
    CHECK(n[0] == 1 && n[1] == NC_FILL_SHORT && n[2] == NC_FILL_SHORT && n[3] == 200);
    short one;
    MPI_Offset at[1] = {mine[0] + 1};
    CHECK_ERR(ncmpi_get_var1_short_all(ncid, vi, at, &one), NC_ERANGE);
    CHECK(one == NC_FILL_SHORT);
  }
  double gdv[N] = {1.5, 1e39, -1e39, 2};
  CHECK_OK(ncmpi_put_vara_double_all(ncid, dd, mine, cnt, gdv));
  {
    float f[N];
    CHECK_ERR(ncmpi_get_vara_float_all(ncid, dd, mine, cnt, f), NC_ERANGE);
    CHECK(f[0] == 1.5f && f[1] == NC_FILL_FLOAT && f[2] == NC_FILL_FLOAT && f[3] == 2.0f);
    int i4[N];
    CHECK_ERR(ncmpi_get_vara_int_all(ncid, dd, mine, cnt, i4), NC_ERANGE);
    CHECK(i4[0] == 1 && i4[1] == NC_FILL_INT && i4[2] == NC_FILL_INT && i4[3] == 2);
  }
  /* NC_BYTE -> unsigned char: raw bytes in CDF-1/2, checked in CDF-5. */
  signed char bneg[N] = {1, -1, -128, 2};
  CHECK_OK(ncmpi_put_vara_schar_all(ncid, b, mine, cnt, bneg));
  {
    unsigned char g[N];
    CHECK_ERR(ncmpi_get_vara_uchar_all(ncid, b, mine, cnt, g), cdf5 ? NC_ERANGE : NC_NOERR);
    CHECK(g[0] == 1 && g[1] == 255 && g[2] == (cdf5 ? NC_FILL_UBYTE : 128) && g[3] == 2);
  }
  if (cdf5) {
    signed char sv[N] = {1, -1, -100, 2};
    CHECK_ERR(ncmpi_put_vara_schar_all(ncid, ub, mine, cnt, sv), NC_ERANGE);
    const int ub_expect[N] = {1, NC_FILL_UBYTE, NC_FILL_UBYTE, 2};
    expect_ints(ub, ub_expect, "schar -> ubyte");
    unsigned char u2[N] = {1, 200, 255, 2};
    CHECK_OK(ncmpi_put_vara_uchar_all(ncid, ub, mine, cnt, u2));
    signed char g[N];
    CHECK_ERR(ncmpi_get_vara_schar_all(ncid, ub, mine, cnt, g), NC_ERANGE);
    CHECK(g[0] == 1 && g[1] == NC_FILL_BYTE && g[2] == NC_FILL_BYTE && g[3] == 2);
  }
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  np = mpi_test_nprocs;
  me = mpi_test_rank;
  if (np > 8) return mpi_test_finish();
  run(0);
  run(NC_64BIT_OFFSET);
  run(NC_64BIT_DATA);
  return mpi_test_finish();
}
