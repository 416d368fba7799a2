/* Regenerates the golden classic-format files under tests/unit/data with the
 * system PnetCDF (1.12.3 on Debian), so the unit tests can check that exacdf
 * encodes the same header bytes and computes the same variable offsets.
 *
 * Build and run with make_golden.sh. Every file holds only a header (PnetCDF's
 * default no-fill mode writes no data), so each is a few KB at most.
 * For each file it prints PnetCDF's header size, header extent and offsets.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    int err_ = (call);                                                           \
    if (err_ != NC_NOERR) {                                                      \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
              ncmpi_strerror(err_));                                             \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

static const char* g_dir = ".";

static void path_of(char* out, const char* name) {
  snprintf(out, 1024, "%s/%s.nc", g_dir, name);
}

static int create(const char* name, int cmode, MPI_Info info) {
  char path[1024];
  int ncid;
  path_of(path, name);
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, cmode | NC_CLOBBER, info, &ncid));
  return ncid;
}

static void report_and_close(const char* name, int ncid) {
  MPI_Offset size, extent, off;
  int nvars, i;
  CHECK(ncmpi_inq_header_size(ncid, &size));
  CHECK(ncmpi_inq_header_extent(ncid, &extent));
  CHECK(ncmpi_inq_nvars(ncid, &nvars));
  printf("%-22s header_size=%lld extent=%lld begins:", name, (long long)size,
         (long long)extent);
  for (i = 0; i < nvars; i++) {
    CHECK(ncmpi_inq_varoffset(ncid, i, &off));
    printf(" %lld", (long long)off);
  }
  printf("\n");
  CHECK(ncmpi_close(ncid));
}

/* Global attributes of every classic type (CDF-5 types when cdf5). */
static void put_gatts(int ncid, int cdf5) {
  signed char b[3] = {-1, 0, 127};
  short s[3] = {-32768, 1, 32767};
  int i1 = 42;
  float f[2] = {1.5f, -2.25f};
  double d = 3.141592653589793;
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 5, "hello"));
  CHECK(ncmpi_put_att_schar(ncid, NC_GLOBAL, "bytes", NC_BYTE, 3, b));
  CHECK(ncmpi_put_att_short(ncid, NC_GLOBAL, "shorts", NC_SHORT, 3, s));
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "int", NC_INT, 1, &i1));
  CHECK(ncmpi_put_att_float(ncid, NC_GLOBAL, "floats", NC_FLOAT, 2, f));
  CHECK(ncmpi_put_att_double(ncid, NC_GLOBAL, "double", NC_DOUBLE, 1, &d));
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "empty", 0, ""));
  if (cdf5) {
    unsigned char ub[1] = {255};
    unsigned short us[3] = {0, 1, 65535};
    unsigned int ui[1] = {4294967295u};
    long long ll[2] = {-9223372036854775807LL - 1, 7};
    unsigned long long ull[1] = {18446744073709551615ULL};
    CHECK(ncmpi_put_att_uchar(ncid, NC_GLOBAL, "ubyte", NC_UBYTE, 1, ub));
    CHECK(ncmpi_put_att_ushort(ncid, NC_GLOBAL, "ushorts", NC_USHORT, 3, us));
    CHECK(ncmpi_put_att_uint(ncid, NC_GLOBAL, "uint", NC_UINT, 1, ui));
    CHECK(ncmpi_put_att_longlong(ncid, NC_GLOBAL, "int64s", NC_INT64, 2, ll));
    CHECK(ncmpi_put_att_ulonglong(ncid, NC_GLOBAL, "uint64", NC_UINT64, 1, ull));
  }
}

/* A mix of fixed, scalar and record variables with attributes. */
static void def_mixed(int ncid, int cdf5) {
  int t, x, y, v, dims[3];
  float fv = -999.f;
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  CHECK(ncmpi_def_dim(ncid, "x", 3, &x));
  CHECK(ncmpi_def_dim(ncid, "y", 5, &y));
  put_gatts(ncid, cdf5);
  CHECK(ncmpi_def_var(ncid, "xi", NC_INT, 1, &x, &v));
  CHECK(ncmpi_put_att_text(ncid, v, "units", 1, "m"));
  dims[0] = y; dims[1] = x;
  CHECK(ncmpi_def_var(ncid, "yx_float", NC_FLOAT, 2, dims, &v));
  CHECK(ncmpi_put_att_float(ncid, v, "_FillValue", NC_FLOAT, 1, &fv));
  CHECK(ncmpi_def_var(ncid, "scalar_d", NC_DOUBLE, 0, NULL, &v));
  CHECK(ncmpi_def_var(ncid, "scalar_s", NC_SHORT, 0, NULL, &v));
  CHECK(ncmpi_def_var(ncid, "chars", NC_CHAR, 1, &y, &v));
  CHECK(ncmpi_def_var(ncid, "t_double", NC_DOUBLE, 1, &t, &v));
  dims[0] = t; dims[1] = y; dims[2] = x;
  CHECK(ncmpi_def_var(ncid, "tyx_short", NC_SHORT, 3, dims, &v));
  dims[1] = x;
  CHECK(ncmpi_def_var(ncid, "tx_byte", NC_BYTE, 2, dims, &v));
  if (cdf5) {
    CHECK(ncmpi_def_var(ncid, "x_ubyte", NC_UBYTE, 1, &x, &v));
    CHECK(ncmpi_def_var(ncid, "x_ushort", NC_USHORT, 1, &x, &v));
    CHECK(ncmpi_def_var(ncid, "x_uint", NC_UINT, 1, &x, &v));
    CHECK(ncmpi_def_var(ncid, "x_int64", NC_INT64, 1, &x, &v));
    CHECK(ncmpi_def_var(ncid, "tx_uint64", NC_UINT64, 2, dims, &v));
  }
}

static void mixed(const char* name, int cmode, int cdf5) {
  int ncid = create(name, cmode, MPI_INFO_NULL);
  def_mixed(ncid, cdf5);
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void empty(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL);
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void no_vars(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), d;
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d));
  CHECK(ncmpi_def_dim(ncid, "n", 7, &d));
  put_gatts(ncid, 0);
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

/* Exactly one record variable whose record is not a multiple of 4 bytes. */
static void one_rec(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), dims[2], v;
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "x", 3, &dims[1]));
  CHECK(ncmpi_def_var(ncid, "fixed", NC_SHORT, 1, &dims[1], &v));
  CHECK(ncmpi_def_var(ncid, "rec", NC_BYTE, 2, dims, &v));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void recs_only(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), dims[2], v;
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "x", 5, &dims[1]));
  CHECK(ncmpi_def_var(ncid, "a", NC_BYTE, 2, dims, &v));
  CHECK(ncmpi_def_var(ncid, "b", NC_SHORT, 1, dims, &v));
  CHECK(ncmpi_def_var(ncid, "c", NC_DOUBLE, 2, dims, &v));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

/* Enough variables that the header is larger than the 512-byte alignment. */
static void many_vars(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), dims[2], v, i;
  char vname[32];
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "n", 10, &dims[1]));
  for (i = 0; i < 60; i++) {
    nc_type types[6] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE};
    snprintf(vname, sizeof vname, "var_%03d", i);
    if (i % 3 == 0)
      CHECK(ncmpi_def_var(ncid, vname, types[i % 6], 2, dims, &v));
    else
      CHECK(ncmpi_def_var(ncid, vname, types[i % 6], 1, &dims[1], &v));
  }
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void with_info(const char* name, int cmode, const char* h, const char* va,
                      const char* r) {
  MPI_Info info;
  int ncid;
  MPI_Info_create(&info);
  if (h) MPI_Info_set(info, "nc_header_align_size", h);
  if (va) MPI_Info_set(info, "nc_var_align_size", va);
  if (r) MPI_Info_set(info, "nc_record_align_size", r);
  ncid = create(name, cmode, info);
  MPI_Info_free(&info);
  def_mixed(ncid, 0);
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void enddef_args(const char* name, int cmode, MPI_Offset hmin, MPI_Offset va,
                        MPI_Offset vmin, MPI_Offset ra) {
  int ncid = create(name, cmode, MPI_INFO_NULL);
  def_mixed(ncid, 0);
  CHECK(ncmpi__enddef(ncid, hmin, va, vmin, ra));
  report_and_close(name, ncid);
}

static void copy_file(const char* from, const char* to) {
  char buf[65536];
  size_t n;
  FILE* in = fopen(from, "rb");
  FILE* out = fopen(to, "wb");
  if (!in || !out) { perror("copy_file"); exit(1); }
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
}

/* Makes <name>_before.nc with mixed(), copies it to <name>.nc, reopens that
 * and adds attributes (and variables if add_vars) in redef, so the header
 * grows past its extent (big) or stays within it. */
static void redef(const char* name, int cmode, int big, int add_vars) {
  char before[256], path[1024], before_path[1024];
  int ncid, x, t, v, dims[2];
  snprintf(before, sizeof before, "%s_before", name);
  mixed(before, cmode, 0);
  path_of(before_path, before);
  path_of(path, name);
  copy_file(before_path, path);
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_redef(ncid));
  if (big) {
    char text[700];
    memset(text, 'a', sizeof text);
    CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "history", sizeof text, text));
  } else {
    CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "note", 3, "abc"));
  }
  if (add_vars) {
    CHECK(ncmpi_inq_dimid(ncid, "x", &x));
    CHECK(ncmpi_inq_dimid(ncid, "time", &t));
    CHECK(ncmpi_def_var(ncid, "new_fixed", NC_INT, 1, &x, &v));
    dims[0] = t; dims[1] = x;
    CHECK(ncmpi_def_var(ncid, "new_rec", NC_FLOAT, 2, dims, &v));
  }
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

/* CDF-2 allows the last fixed variable to exceed 4 GiB; vsize cannot hold it. */
static void big_last(const char* name, int cmode, int rec) {
  int ncid = create(name, cmode, MPI_INFO_NULL), dims[3], v;
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "big", 1500000000, &dims[1]));
  CHECK(ncmpi_def_dim(ncid, "x", 3, &dims[2]));
  CHECK(ncmpi_def_var(ncid, "small", NC_INT, 1, &dims[2], &v));
  if (rec)
    CHECK(ncmpi_def_var(ncid, "huge_rec", NC_INT, 2, dims, &v));
  else
    CHECK(ncmpi_def_var(ncid, "huge", NC_INT, 1, &dims[1], &v));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void odd_names(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), d, v;
  CHECK(ncmpi_def_dim(ncid, "temp\xc3\xa9rature", 2, &d));
  CHECK(ncmpi_def_var(ncid, "a-b.c+d@e", NC_INT, 1, &d, &v));
  CHECK(ncmpi_def_var(ncid, "_underscore", NC_INT, 1, &d, &v));
  CHECK(ncmpi_def_var(ncid, "\xe6\xb8\xa9\xe5\xba\xa6", NC_FLOAT, 0, NULL, &v));
  CHECK(ncmpi_put_att_text(ncid, v, "a b", 3, "x y"));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

static void cdf5_large_dim(const char* name) {
  int ncid = create(name, NC_64BIT_DATA, MPI_INFO_NULL), d[2], v;
  CHECK(ncmpi_def_dim(ncid, "huge", 5000000000LL, &d[0]));
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[1]));
  CHECK(ncmpi_def_var(ncid, "a", NC_BYTE, 1, &d[0], &v));
  CHECK(ncmpi_def_var(ncid, "b", NC_INT64, 1, &d[0], &v));
  CHECK(ncmpi_def_var(ncid, "r", NC_UBYTE, 1, &d[1], &v));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

/* Only record variables, with the given record alignment hint (NULL: none). */
static void recs_only_info(const char* name, int cmode, const char* r, MPI_Offset vmin) {
  MPI_Info info;
  int ncid, dims[2], v;
  MPI_Info_create(&info);
  if (r) MPI_Info_set(info, "nc_record_align_size", r);
  ncid = create(name, cmode, info);
  MPI_Info_free(&info);
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "x", 5, &dims[1]));
  CHECK(ncmpi_def_var(ncid, "a", NC_BYTE, 2, dims, &v));
  CHECK(ncmpi_def_var(ncid, "c", NC_DOUBLE, 2, dims, &v));
  CHECK(ncmpi__enddef(ncid, 0, 0, vmin, 0));
  report_and_close(name, ncid);
}

/* Header alignment hint together with ncmpi__enddef's v_align. */
static void info_and_args(const char* name, int cmode) {
  MPI_Info info;
  int ncid;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_header_align_size", "4096");
  ncid = create(name, cmode, info);
  MPI_Info_free(&info);
  def_mixed(ncid, 0);
  CHECK(ncmpi__enddef(ncid, 0, 1024, 0, 0));
  report_and_close(name, ncid);
}

/* Redef within the same session after a ncmpi__enddef with alignment args. */
static void redef_same_session(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), x, v;
  char text[600];
  def_mixed(ncid, 0);
  CHECK(ncmpi__enddef(ncid, 0, 2048, 0, 0));
  CHECK(ncmpi_redef(ncid));
  memset(text, 'b', sizeof text);
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "history", sizeof text, text));
  CHECK(ncmpi_inq_dimid(ncid, "x", &x));
  CHECK(ncmpi_def_var(ncid, "later", NC_DOUBLE, 1, &x, &v));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

/* The MPI-IO hint striping_unit picks the header alignment once the fixed-size
 * variables are larger than 4 striping units. */
static void striping(const char* name, int cmode, MPI_Offset n) {
  MPI_Info info;
  int ncid, d, v;
  MPI_Info_create(&info);
  MPI_Info_set(info, "striping_unit", "65536");
  ncid = create(name, cmode, info);
  MPI_Info_free(&info);
  CHECK(ncmpi_def_dim(ncid, "x", n, &d));
  CHECK(ncmpi_def_var(ncid, "a", NC_DOUBLE, 1, &d, &v));
  CHECK(ncmpi_def_var(ncid, "b", NC_DOUBLE, 1, &d, &v));
  CHECK(ncmpi_enddef(ncid));
  report_and_close(name, ncid);
}

/* No variables, but free space requested: the extent follows v_minfree. */
static void novars_minfree(const char* name, int cmode) {
  int ncid = create(name, cmode, MPI_INFO_NULL), d;
  CHECK(ncmpi_def_dim(ncid, "n", 7, &d));
  CHECK(ncmpi__enddef(ncid, 50, 0, 100, 0));
  report_and_close(name, ncid);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1) g_dir = argv[1];
  mixed("cdf1_mixed", 0, 0);
  mixed("cdf2_mixed", NC_64BIT_OFFSET, 0);
  mixed("cdf5_mixed", NC_64BIT_DATA, 1);
  empty("cdf1_empty", 0);
  empty("cdf5_empty", NC_64BIT_DATA);
  no_vars("cdf2_no_vars", NC_64BIT_OFFSET);
  one_rec("cdf1_one_rec", 0);
  one_rec("cdf5_one_rec", NC_64BIT_DATA);
  recs_only("cdf2_recs_only", NC_64BIT_OFFSET);
  many_vars("cdf1_many_vars", 0);
  many_vars("cdf5_many_vars", NC_64BIT_DATA);
  with_info("cdf1_info_all", 0, "1024", "256", "1000");
  with_info("cdf2_info_header", NC_64BIT_OFFSET, "2048", NULL, NULL);
  with_info("cdf2_info_var", NC_64BIT_OFFSET, NULL, "64", NULL);
  with_info("cdf1_info_rec", 0, NULL, NULL, "4096");
  enddef_args("cdf1_enddef_args", 0, 100, 2048, 300, 1024);
  enddef_args("cdf2_enddef_minfree", NC_64BIT_OFFSET, 1000, 0, 64, 0);
  enddef_args("cdf5_enddef_valign", NC_64BIT_DATA, 0, 1000, 0, 0);
  redef("cdf1_redef_grow", 0, 1, 1);
  redef("cdf2_redef_small", NC_64BIT_OFFSET, 0, 0);
  redef("cdf1_redef_vars", 0, 0, 1);
  big_last("cdf2_big_last", NC_64BIT_OFFSET, 0);
  big_last("cdf2_big_rec", NC_64BIT_OFFSET, 1);
  odd_names("cdf1_names", 0);
  cdf5_large_dim("cdf5_large_dim");
  enddef_args("cdf1_enddef_ralign", 0, 0, 0, 0, 4096);
  recs_only_info("cdf1_recs_ralign", 0, "4096", 0);
  recs_only_info("cdf2_recs_vminfree", NC_64BIT_OFFSET, NULL, 100);
  info_and_args("cdf2_info_and_args", NC_64BIT_OFFSET);
  redef_same_session("cdf1_redef_session", 0);
  striping("cdf2_striping_big", NC_64BIT_OFFSET, 1000000);
  striping("cdf2_striping_small", NC_64BIT_OFFSET, 16384);
  novars_minfree("cdf1_novars_minfree", 0);
  MPI_Finalize();
  return 0;
}
