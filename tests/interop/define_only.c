/*
 * define_only OUT FORMAT [fill|nofill] -- a PnetCDF program that only
 * defines, annotates and inquires (it writes no variable data itself).
 *
 * FORMAT is cdf1, cdf2 or cdf5.  With "fill" the file-level fill mode is on
 * at the first enddef (so the library writes fill values into the fixed-size
 * variables, and must move them when the header grows); with "nofill"
 * (default) only per-variable fill settings are made and no data is written.
 *
 * Built twice from this one source (against exacdf and against the system
 * PnetCDF); the interop tests then compare the two files with ncdump,
 * ncmpidump and cmp.  The program keeps its own model of what it defined and
 * checks every inquiry against it, three times: in data mode after the first
 * enddef, after a redef that grows the header, and after reopening the file.
 * Every mismatch is printed; the exit status is non-zero if there was any.
 *
 * Calls used: create, open, close, enddef, redef, set_fill, def_dim,
 * def_var, def_var_fill, inq_var_fill, put_att_text, put_att_<type> for all
 * memory types (also converting between memory and external type), untyped
 * put_att/get_att, get_att_<type>, rename_dim/var/att, del_att, copy_att,
 * inq, inq_ndims/nvars/natts/unlimdim, inq_dim/dimid/dimname/dimlen,
 * inq_var/varid/varname/vartype/varndims/vardimid/varnatts, inq_att/attid/
 * attname/atttype/attlen, inq_format, inq_file_format, inq_num_rec_vars,
 * inq_num_fix_vars, inq_header_size/extent, inq_path, inq_libvers,
 * strerror; and a few calls that must fail with a given NC_* code.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
static int nerrs;

#define FAIL(...)                                             \
  do {                                                        \
    fprintf(stderr, "define_only: rank %d: line %d: ", rank, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                             \
    fputc('\n', stderr);                                      \
    nerrs++;                                                  \
  } while (0)

/* A call that must succeed; a failure is fatal (the rest would cascade). */
#define CHECK(call)                                                               \
  do {                                                                            \
    int err_ = (call);                                                            \
    if (err_ != NC_NOERR) {                                                       \
      fprintf(stderr, "define_only: rank %d: line %d: %s: %s\n", rank, __LINE__, \
              #call, ncmpi_strerror(err_));                                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                               \
    }                                                                             \
  } while (0)

/* A call that must fail with the given code. */
#define EXPECT_ERR(code, call)                                                  \
  do {                                                                          \
    int err_ = (call);                                                          \
    if (err_ != (code))                                                         \
      FAIL("%s returned %d (%s), expected %s", #call, err_, ncmpi_strerror(err_), \
           #code);                                                              \
  } while (0)

/* ------------------------------------------------------------------------ */
/* The model: what the file should contain.                                  */

#define MAX_ATTS 48
/* NC_MAX_VAR_DIMS is INT_MAX in PnetCDF 1.12: use our own bound for arrays. */
#define MAX_VAR_DIMS 32
#define MAX_DIMS 16
#define MAX_VARS 64
#define MAX_ATT_BYTES 2048

typedef struct {
  char name[NC_MAX_NAME + 1];
  nc_type type;
  MPI_Offset len;
  unsigned char val[MAX_ATT_BYTES]; /* native representation of the external type */
} Att;

typedef struct {
  int n;
  Att a[MAX_ATTS];
} AttList;

typedef struct {
  char name[NC_MAX_NAME + 1];
  MPI_Offset len; /* NC_UNLIMITED for the record dimension */
} Dim;

typedef struct {
  char name[NC_MAX_NAME + 1];
  nc_type type;
  int ndims;
  int dimids[MAX_VAR_DIMS];
  AttList atts;
  int no_fill;
} Var;

static struct {
  int format;
  int fill_mode; /* file-level mode; new variables inherit it */
  int ndims, nvars, unlimdim;
  Dim dims[MAX_DIMS];
  Var vars[MAX_VARS];
  AttList gatts;
} M;

static size_t type_size(nc_type t) {
  switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
  }
}

static AttList *att_list(int varid) { return varid == NC_GLOBAL ? &M.gatts : &M.vars[varid].atts; }

static int att_index(int varid, const char *name) {
  AttList *l = att_list(varid);
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->a[i].name, name) == 0) return i;
  return -1;
}

/* Put into the model: an existing attribute keeps its position. */
static void m_put_att(int varid, const char *name, nc_type t, MPI_Offset len, const void *val) {
  AttList *l = att_list(varid);
  int i = att_index(varid, name);
  if (i < 0) i = l->n++;
  Att *a = &l->a[i];
  snprintf(a->name, sizeof a->name, "%s", name);
  a->type = t;
  a->len = len;
  memcpy(a->val, val, (size_t)len * type_size(t));
}

static void m_del_att(int varid, const char *name) {
  AttList *l = att_list(varid);
  int i = att_index(varid, name);
  memmove(&l->a[i], &l->a[i + 1], sizeof(Att) * (size_t)(l->n - i - 1));
  l->n--;
}

/* Value i of a native buffer of external type t, as long double (exact for
 * every value of every type on x86-64). */
static long double get_ld(nc_type t, const void *p, MPI_Offset i) {
  switch (t) {
    case NC_BYTE: return ((const signed char *)p)[i];
    case NC_CHAR: return ((const char *)p)[i];
    case NC_UBYTE: return ((const unsigned char *)p)[i];
    case NC_SHORT: return ((const short *)p)[i];
    case NC_USHORT: return ((const unsigned short *)p)[i];
    case NC_INT: return ((const int *)p)[i];
    case NC_UINT: return ((const unsigned int *)p)[i];
    case NC_FLOAT: return ((const float *)p)[i];
    case NC_DOUBLE: return ((const double *)p)[i];
    case NC_INT64: return ((const long long *)p)[i];
    default: return ((const unsigned long long *)p)[i];
  }
}

static void set_ld(nc_type t, void *p, MPI_Offset i, long double v) {
  switch (t) {
    case NC_BYTE: ((signed char *)p)[i] = (signed char)v; break;
    case NC_CHAR: ((char *)p)[i] = (char)v; break;
    case NC_UBYTE: ((unsigned char *)p)[i] = (unsigned char)v; break;
    case NC_SHORT: ((short *)p)[i] = (short)v; break;
    case NC_USHORT: ((unsigned short *)p)[i] = (unsigned short)v; break;
    case NC_INT: ((int *)p)[i] = (int)v; break;
    case NC_UINT: ((unsigned int *)p)[i] = (unsigned int)v; break;
    case NC_FLOAT: ((float *)p)[i] = (float)v; break;
    case NC_DOUBLE: ((double *)p)[i] = (double)v; break;
    case NC_INT64: ((long long *)p)[i] = (long long)v; break;
    default: ((unsigned long long *)p)[i] = (unsigned long long)v; break;
  }
}

/* ------------------------------------------------------------------------ */
/* Calls that change the file and the model together.                        */

static int def_dim(int ncid, const char *name, MPI_Offset len) {
  int id;
  CHECK(ncmpi_def_dim(ncid, name, len, &id));
  if (id != M.ndims) FAIL("def_dim %s: id %d, expected %d", name, id, M.ndims);
  snprintf(M.dims[M.ndims].name, NC_MAX_NAME + 1, "%s", name);
  M.dims[M.ndims].len = len;
  if (len == NC_UNLIMITED) M.unlimdim = M.ndims;
  return M.ndims++;
}

static int def_var(int ncid, const char *name, nc_type t, int ndims, const int *dimids) {
  int id;
  CHECK(ncmpi_def_var(ncid, name, t, ndims, dimids, &id));
  if (id != M.nvars) FAIL("def_var %s: id %d, expected %d", name, id, M.nvars);
  Var *v = &M.vars[M.nvars];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "%s", name);
  v->type = t;
  v->ndims = ndims;
  memcpy(v->dimids, dimids, sizeof(int) * (size_t)ndims);
  v->no_fill = M.fill_mode == NC_NOFILL;
  return M.nvars++;
}

static void put_text(int ncid, int varid, const char *name, const char *text) {
  MPI_Offset len = (MPI_Offset)strlen(text);
  CHECK(ncmpi_put_att_text(ncid, varid, name, len, text));
  m_put_att(varid, name, NC_CHAR, len, text);
}

/* Typed put of n values of memory type CTYPE as external type t; the model
 * gets the values converted to t. */
#define DEF_PUT_TYPED(NAME, CTYPE, MEMT)                                               \
  static void put_##NAME(int ncid, int varid, const char *name, nc_type t, MPI_Offset n, \
                         const CTYPE *vals) {                                          \
    unsigned char conv[MAX_ATT_BYTES];                                                 \
    CHECK(ncmpi_put_att_##NAME(ncid, varid, name, t, n, vals));                        \
    for (MPI_Offset i = 0; i < n; i++) set_ld(t, conv, i, get_ld(MEMT, vals, i));      \
    m_put_att(varid, name, t, n, conv);                                                \
  }
DEF_PUT_TYPED(schar, signed char, NC_BYTE)
DEF_PUT_TYPED(uchar, unsigned char, NC_UBYTE)
DEF_PUT_TYPED(short, short, NC_SHORT)
DEF_PUT_TYPED(ushort, unsigned short, NC_USHORT)
DEF_PUT_TYPED(int, int, NC_INT)
DEF_PUT_TYPED(uint, unsigned int, NC_UINT)
DEF_PUT_TYPED(float, float, NC_FLOAT)
DEF_PUT_TYPED(double, double, NC_DOUBLE)
DEF_PUT_TYPED(longlong, long long, NC_INT64)
DEF_PUT_TYPED(ulonglong, unsigned long long, NC_UINT64)

/* Untyped put: the buffer is in the native form of the external type. */
static void put_untyped(int ncid, int varid, const char *name, nc_type t, MPI_Offset n,
                        const void *vals) {
  CHECK(ncmpi_put_att(ncid, varid, name, t, n, vals));
  m_put_att(varid, name, t, n, vals);
}

static void del_att(int ncid, int varid, const char *name) {
  CHECK(ncmpi_del_att(ncid, varid, name));
  m_del_att(varid, name);
}

static void rename_att(int ncid, int varid, const char *name, const char *newname) {
  CHECK(ncmpi_rename_att(ncid, varid, name, newname));
  Att *a = &att_list(varid)->a[att_index(varid, name)];
  snprintf(a->name, sizeof a->name, "%s", newname);
}

static void copy_att(int ncid, int from, const char *name, int to) {
  CHECK(ncmpi_copy_att(ncid, from, name, ncid, to));
  Att tmp = att_list(from)->a[att_index(from, name)];
  m_put_att(to, name, tmp.type, tmp.len, tmp.val);
}

static void rename_dim(int ncid, int dimid, const char *name) {
  CHECK(ncmpi_rename_dim(ncid, dimid, name));
  snprintf(M.dims[dimid].name, NC_MAX_NAME + 1, "%s", name);
}

static void rename_var(int ncid, int varid, const char *name) {
  CHECK(ncmpi_rename_var(ncid, varid, name));
  snprintf(M.vars[varid].name, NC_MAX_NAME + 1, "%s", name);
}

static void var_fill(int ncid, int varid, int no_fill, const void *fill) {
  CHECK(ncmpi_def_var_fill(ncid, varid, no_fill, fill));
  M.vars[varid].no_fill = no_fill;
  /* PnetCDF puts _FillValue only when fill is turned on with a value. */
  if (!no_fill && fill) m_put_att(varid, "_FillValue", M.vars[varid].type, 1, fill);
}

static void set_fill(int ncid, int mode, int expect_old) {
  int old = -1;
  CHECK(ncmpi_set_fill(ncid, mode, &old));
  if (old != expect_old) FAIL("set_fill(%d): old mode %d, expected %d", mode, old, expect_old);
  /* ncmpi_set_fill applies the mode to every variable defined so far. */
  M.fill_mode = mode;
  for (int v = 0; v < M.nvars; v++) M.vars[v].no_fill = (mode == NC_NOFILL);
}

/* ------------------------------------------------------------------------ */
/* Verification of every inquiry against the model.                          */

static void default_fill(nc_type t, void *p) {
  switch (t) {
    case NC_BYTE: *(signed char *)p = NC_FILL_BYTE; break;
    case NC_CHAR: *(char *)p = NC_FILL_CHAR; break;
    case NC_UBYTE: *(unsigned char *)p = NC_FILL_UBYTE; break;
    case NC_SHORT: *(short *)p = NC_FILL_SHORT; break;
    case NC_USHORT: *(unsigned short *)p = NC_FILL_USHORT; break;
    case NC_INT: *(int *)p = NC_FILL_INT; break;
    case NC_UINT: *(unsigned int *)p = NC_FILL_UINT; break;
    case NC_FLOAT: *(float *)p = NC_FILL_FLOAT; break;
    case NC_DOUBLE: *(double *)p = NC_FILL_DOUBLE; break;
    case NC_INT64: *(long long *)p = NC_FILL_INT64; break;
    default: *(unsigned long long *)p = NC_FILL_UINT64; break;
  }
}

static void verify_att(int ncid, int varid, int attnum, const Att *m, const char *where) {
  char name[NC_MAX_NAME + 1];
  nc_type t;
  MPI_Offset len;
  int id;
  CHECK(ncmpi_inq_attname(ncid, varid, attnum, name));
  if (strcmp(name, m->name)) {
    FAIL("%s: attribute %d is named '%s', expected '%s'", where, attnum, name, m->name);
    return;
  }
  CHECK(ncmpi_inq_att(ncid, varid, name, &t, &len));
  if (t != m->type || len != m->len) {
    FAIL("%s: attribute %s: type %d len %lld, expected type %d len %lld", where, name, (int)t,
         (long long)len, (int)m->type, (long long)m->len);
    return;
  }
  CHECK(ncmpi_inq_attid(ncid, varid, name, &id));
  if (id != attnum) FAIL("%s: inq_attid(%s) = %d, expected %d", where, name, id, attnum);
  CHECK(ncmpi_inq_atttype(ncid, varid, name, &t));
  CHECK(ncmpi_inq_attlen(ncid, varid, name, &len));
  if (t != m->type || len != m->len) FAIL("%s: inq_atttype/attlen(%s) disagree", where, name);

  unsigned char buf[MAX_ATT_BYTES + 8];
  memset(buf, 0xA5, sizeof buf);
  CHECK(ncmpi_get_att(ncid, varid, name, buf));
  size_t nbytes = (size_t)len * type_size(t);
  if (memcmp(buf, m->val, nbytes)) FAIL("%s: get_att(%s): values differ", where, name);
  if (buf[nbytes] != 0xA5) FAIL("%s: get_att(%s) wrote past the value", where, name);

  if (t == NC_CHAR) {
    char text[MAX_ATT_BYTES];
    CHECK(ncmpi_get_att_text(ncid, varid, name, text));
    if (memcmp(text, m->val, (size_t)len)) FAIL("%s: get_att_text(%s) differs", where, name);
    int e = ncmpi_get_att_double(ncid, varid, name, (double *)buf);
    if (len > 0 && e != NC_ECHAR) FAIL("%s: get_att_double on text %s gave %d, expected NC_ECHAR", where, name, e);
  } else {
    /* Typed reads convert; double holds every value used here exactly except
     * 64-bit extremes, so compare with the same conversion. */
    double d[MAX_ATT_BYTES / 8 + 1];
    CHECK(ncmpi_get_att_double(ncid, varid, name, d));
    for (MPI_Offset i = 0; i < len; i++)
      if (d[i] != (double)get_ld(t, m->val, i) && !(d[i] != d[i]))
        FAIL("%s: get_att_double(%s)[%lld] = %g, expected %g", where, name, (long long)i, d[i],
             (double)get_ld(t, m->val, i));
    long long ll[MAX_ATT_BYTES / 8 + 1];
    int e = ncmpi_get_att_longlong(ncid, varid, name, ll);
    if (e == NC_NOERR && (t != NC_FLOAT && t != NC_DOUBLE && t != NC_UINT64))
      for (MPI_Offset i = 0; i < len; i++)
        if ((long double)ll[i] != get_ld(t, m->val, i))
          FAIL("%s: get_att_longlong(%s)[%lld] differs", where, name, (long long)i);
    if (e != NC_NOERR && e != NC_ERANGE)
      FAIL("%s: get_att_longlong(%s): %s", where, name, ncmpi_strerror(e));
  }
}

static void verify_atts(int ncid, int varid, const char *where) {
  AttList *l = att_list(varid);
  int natts;
  if (varid == NC_GLOBAL)
    CHECK(ncmpi_inq_natts(ncid, &natts));
  else
    CHECK(ncmpi_inq_varnatts(ncid, varid, &natts));
  if (natts != l->n) FAIL("%s: %d attributes, expected %d", where, natts, l->n);
  for (int i = 0; i < l->n && i < natts; i++) verify_att(ncid, varid, i, &l->a[i], where);
  char name[NC_MAX_NAME + 1];
  EXPECT_ERR(NC_ENOTATT, ncmpi_inq_attname(ncid, varid, l->n, name));
  EXPECT_ERR(NC_ENOTATT, ncmpi_inq_att(ncid, varid, "no_such_attribute", NULL, NULL));
}

/* check_nofill: whether this is the file as created (not reopened): the
 * per-variable fill mode is not stored in the file. */
static void verify(int ncid, const char *phase, int check_nofill) {
  int ndims, nvars, ngatts, unlimdim, format, n;
  CHECK(ncmpi_inq(ncid, &ndims, &nvars, &ngatts, &unlimdim));
  if (ndims != M.ndims || nvars != M.nvars || ngatts != M.gatts.n || unlimdim != M.unlimdim)
    FAIL("%s: inq gave %d dims %d vars %d atts unlim %d, expected %d %d %d %d", phase, ndims,
         nvars, ngatts, unlimdim, M.ndims, M.nvars, M.gatts.n, M.unlimdim);
  CHECK(ncmpi_inq_ndims(ncid, &n));
  if (n != M.ndims) FAIL("%s: inq_ndims %d", phase, n);
  CHECK(ncmpi_inq_nvars(ncid, &n));
  if (n != M.nvars) FAIL("%s: inq_nvars %d", phase, n);
  CHECK(ncmpi_inq_unlimdim(ncid, &n));
  if (n != M.unlimdim) FAIL("%s: inq_unlimdim %d", phase, n);
  CHECK(ncmpi_inq_format(ncid, &format));
  if (format != M.format) FAIL("%s: inq_format %d, expected %d", phase, format, M.format);

  for (int d = 0; d < M.ndims; d++) {
    char name[NC_MAX_NAME + 1];
    MPI_Offset len;
    int id;
    CHECK(ncmpi_inq_dim(ncid, d, name, &len));
    MPI_Offset want = M.dims[d].len == NC_UNLIMITED ? 0 : M.dims[d].len;
    if (strcmp(name, M.dims[d].name) || len != want)
      FAIL("%s: dim %d is %s=%lld, expected %s=%lld", phase, d, name, (long long)len,
           M.dims[d].name, (long long)want);
    CHECK(ncmpi_inq_dimid(ncid, M.dims[d].name, &id));
    if (id != d) FAIL("%s: inq_dimid(%s) = %d, expected %d", phase, M.dims[d].name, id, d);
    CHECK(ncmpi_inq_dimname(ncid, d, name));
    CHECK(ncmpi_inq_dimlen(ncid, d, &len));
    if (strcmp(name, M.dims[d].name) || len != want) FAIL("%s: inq_dimname/dimlen(%d)", phase, d);
  }
  EXPECT_ERR(NC_EBADDIM, ncmpi_inq_dimid(ncid, "no_such_dim", &n));
  EXPECT_ERR(NC_EBADDIM, ncmpi_inq_dimlen(ncid, M.ndims, NULL));

  verify_atts(ncid, NC_GLOBAL, phase);

  int nrec = 0, nfix = 0;
  for (int v = 0; v < M.nvars; v++) {
    Var *m = &M.vars[v];
    char name[NC_MAX_NAME + 1], where[2 * NC_MAX_NAME + 8];
    nc_type t;
    int vndims, natts, id, dimids[MAX_VAR_DIMS];
    snprintf(where, sizeof where, "%s: var %s", phase, m->name);
    CHECK(ncmpi_inq_var(ncid, v, name, &t, &vndims, dimids, &natts));
    if (strcmp(name, m->name) || t != m->type || vndims != m->ndims || natts != m->atts.n)
      FAIL("%s: inq_var gave %s type %d ndims %d natts %d", where, name, (int)t, vndims, natts);
    for (int i = 0; i < vndims && i < m->ndims; i++)
      if (dimids[i] != m->dimids[i]) FAIL("%s: dimid[%d] = %d", where, i, dimids[i]);
    CHECK(ncmpi_inq_varid(ncid, m->name, &id));
    if (id != v) FAIL("%s: inq_varid = %d", where, id);
    CHECK(ncmpi_inq_varname(ncid, v, name));
    CHECK(ncmpi_inq_vartype(ncid, v, &t));
    CHECK(ncmpi_inq_varndims(ncid, v, &vndims));
    CHECK(ncmpi_inq_vardimid(ncid, v, dimids));
    if (strcmp(name, m->name) || t != m->type || vndims != m->ndims)
      FAIL("%s: inq_varname/vartype/varndims disagree", where);
    verify_atts(ncid, v, where);
    if (m->ndims > 0 && m->dimids[0] == M.unlimdim) nrec++; else nfix++;

    int no_fill = -1;
    unsigned char fill[8], want[8];
    CHECK(ncmpi_inq_var_fill(ncid, v, &no_fill, fill));
    int fa = att_index(v, "_FillValue");
    if (fa >= 0)
      memcpy(want, m->atts.a[fa].val, type_size(m->type));
    else
      default_fill(m->type, want);
    if (memcmp(fill, want, type_size(m->type))) FAIL("%s: inq_var_fill value differs", where);
    if (check_nofill && m->no_fill >= 0 && no_fill != m->no_fill)
      FAIL("%s: inq_var_fill no_fill = %d, expected %d", where, no_fill, m->no_fill);
  }
  EXPECT_ERR(NC_ENOTVAR, ncmpi_inq_varid(ncid, "no_such_var", &n));
  EXPECT_ERR(NC_ENOTVAR, ncmpi_inq_varnatts(ncid, M.nvars, &n));
  /* PnetCDF 1.12.3 reports 0 record variables for a file it opened (it
   * counts them only in define mode), so these are checked before reopen. */
  if (check_nofill) {
    CHECK(ncmpi_inq_num_rec_vars(ncid, &n));
    if (n != nrec) FAIL("%s: inq_num_rec_vars %d, expected %d", phase, n, nrec);
    CHECK(ncmpi_inq_num_fix_vars(ncid, &n));
    if (n != nfix) FAIL("%s: inq_num_fix_vars %d, expected %d", phase, n, nfix);
  }

  MPI_Offset hsize, hextent;
  CHECK(ncmpi_inq_header_size(ncid, &hsize));
  CHECK(ncmpi_inq_header_extent(ncid, &hextent));
  if (hsize <= 0 || hextent < hsize)
    FAIL("%s: header size %lld, extent %lld", phase, (long long)hsize, (long long)hextent);
}

/* ------------------------------------------------------------------------ */

static const nc_type classic_types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE};
static const nc_type all_types[] = {NC_BYTE,   NC_CHAR,  NC_SHORT,  NC_INT,
                                    NC_FLOAT,  NC_DOUBLE, NC_UBYTE, NC_USHORT,
                                    NC_UINT,   NC_INT64, NC_UINT64};

static const char *type_name(nc_type t) {
  switch (t) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "int64";
    default: return "uint64";
  }
}

/* A typed attribute on a variable, of the variable's own type: values
 * 1..3 scaled, through the typed call of the matching memory type. */
static void put_own_type_att(int ncid, int varid, nc_type t, const char *name) {
  switch (t) {
    case NC_BYTE: { signed char v[] = {-1, 2, -3}; put_schar(ncid, varid, name, t, 3, v); break; }
    case NC_CHAR: put_text(ncid, varid, name, "chars"); break;
    case NC_SHORT: { short v[] = {-300, 300}; put_short(ncid, varid, name, t, 2, v); break; }
    case NC_INT: { int v[] = {-70000, 0, 70000}; put_int(ncid, varid, name, t, 3, v); break; }
    case NC_FLOAT: { float v[] = {0.25f}; put_float(ncid, varid, name, t, 1, v); break; }
    case NC_DOUBLE: { double v[] = {1e-300, 1e300}; put_double(ncid, varid, name, t, 2, v); break; }
    case NC_UBYTE: { unsigned char v[] = {255, 0}; put_uchar(ncid, varid, name, t, 2, v); break; }
    case NC_USHORT: { unsigned short v[] = {65535}; put_ushort(ncid, varid, name, t, 1, v); break; }
    case NC_UINT: { unsigned int v[] = {4000000000u}; put_uint(ncid, varid, name, t, 1, v); break; }
    case NC_INT64: { long long v[] = {-5000000000LL, 5000000000LL}; put_longlong(ncid, varid, name, t, 2, v); break; }
    default: { unsigned long long v[] = {10000000000000000000ULL}; put_ulonglong(ncid, varid, name, t, 1, v); break; }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3 || argc > 4) {
    if (rank == 0) fprintf(stderr, "usage: define_only OUT cdf1|cdf2|cdf5 [fill|nofill]\n");
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  int cmode = NC_CLOBBER;
  if (!strcmp(argv[2], "cdf1")) {
    M.format = NC_FORMAT_CLASSIC;
  } else if (!strcmp(argv[2], "cdf2")) {
    M.format = NC_FORMAT_64BIT_OFFSET;
    cmode |= NC_64BIT_OFFSET;
  } else if (!strcmp(argv[2], "cdf5")) {
    M.format = NC_FORMAT_64BIT_DATA;
    cmode |= NC_64BIT_DATA;
  } else {
    if (rank == 0) fprintf(stderr, "define_only: unknown format %s\n", argv[2]);
    MPI_Finalize();
    return 2;
  }
  int fill = argc == 4 && !strcmp(argv[3], "fill");
  int cdf5 = M.format == NC_FORMAT_64BIT_DATA;
  const nc_type *types = cdf5 ? all_types : classic_types;
  int ntypes = cdf5 ? 11 : 6;
  M.unlimdim = -1;
  M.fill_mode = NC_NOFILL; /* PnetCDF's default */

  if (!ncmpi_inq_libvers() || !ncmpi_strerror(NC_EBADID)) FAIL("libvers/strerror gave NULL");

  int ncid;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, cmode, MPI_INFO_NULL, &ncid));
  {
    int len = -1;
    char buf[4096];
    CHECK(ncmpi_inq_path(ncid, &len, buf));
    if (len != (int)strlen(path) || strcmp(buf, path)) FAIL("inq_path gave '%s' (%d)", buf, len);
  }
  if (fill) set_fill(ncid, NC_FILL, NC_NOFILL);

  /* --- first define phase ------------------------------------------------ */
  int time = def_dim(ncid, "time", NC_UNLIMITED);
  int x = def_dim(ncid, "x", 4);
  int y = def_dim(ncid, "y", 3);
  int strlen_d = def_dim(ncid, "strlen", 8);
  int tmp = def_dim(ncid, "tmp", 2);
  int n;
  EXPECT_ERR(NC_EUNLIMIT, ncmpi_def_dim(ncid, "time2", NC_UNLIMITED, &n));
  EXPECT_ERR(NC_ENAMEINUSE, ncmpi_def_dim(ncid, "x", 5, &n));
  EXPECT_ERR(NC_EBADDIM, ncmpi_def_var(ncid, "bad", NC_INT, 1, (int[]){99}, &n));
  if (!cdf5) {
    EXPECT_ERR(NC_ESTRICTCDF2, ncmpi_def_var(ncid, "u", NC_UBYTE, 1, &x, &n));
    unsigned int u = 1;
    EXPECT_ERR(NC_ESTRICTCDF2, ncmpi_put_att_uint(ncid, NC_GLOBAL, "u", NC_UINT, 1, &u));
  }

  /* Global attributes: text, every typed call, conversions, untyped. */
  put_text(ncid, NC_GLOBAL, "title", "define_only: a define/annotate/inquire program");
  put_text(ncid, NC_GLOBAL, "empty", "");
  {
    signed char sc[] = {-128, 0, 127};
    short s[] = {-32768, 32767};
    int i[] = {-2147483647 - 1, 2147483647};
    float f[] = {1.5f, -0.0f, 3.0e38f};
    double d[] = {3.141592653589793, -1e-300};
    put_schar(ncid, NC_GLOBAL, "g_byte", NC_BYTE, 3, sc);
    put_short(ncid, NC_GLOBAL, "g_short", NC_SHORT, 2, s);
    put_int(ncid, NC_GLOBAL, "g_int", NC_INT, 2, i);
    put_float(ncid, NC_GLOBAL, "g_float", NC_FLOAT, 3, f);
    put_double(ncid, NC_GLOBAL, "g_double", NC_DOUBLE, 2, d);
    /* memory type differs from external type (values in range) */
    int small[] = {-100, 0, 100};
    double halves[] = {0.5, 1.5, -2.5, 1e10};
    short sh[] = {1, 2, 3, 4, 5};
    put_int(ncid, NC_GLOBAL, "g_short_from_int", NC_SHORT, 3, small);
    put_int(ncid, NC_GLOBAL, "g_byte_from_int", NC_BYTE, 3, small);
    put_double(ncid, NC_GLOBAL, "g_float_from_double", NC_FLOAT, 4, halves);
    put_short(ncid, NC_GLOBAL, "g_double_from_short", NC_DOUBLE, 5, sh);
    put_double(ncid, NC_GLOBAL, "g_int_from_double", NC_INT, 2, (double[]){-7, 7});
    if (cdf5) {
      unsigned char uc[] = {0, 255};
      unsigned short us[] = {0, 65535};
      unsigned int ui[] = {0, 4294967295u};
      long long ll[] = {-9223372036854775807LL - 1, 9223372036854775807LL};
      unsigned long long ull[] = {0, 18446744073709551615ULL};
      put_uchar(ncid, NC_GLOBAL, "g_ubyte", NC_UBYTE, 2, uc);
      put_ushort(ncid, NC_GLOBAL, "g_ushort", NC_USHORT, 2, us);
      put_uint(ncid, NC_GLOBAL, "g_uint", NC_UINT, 2, ui);
      put_longlong(ncid, NC_GLOBAL, "g_int64", NC_INT64, 2, ll);
      put_ulonglong(ncid, NC_GLOBAL, "g_uint64", NC_UINT64, 2, ull);
      put_int(ncid, NC_GLOBAL, "g_int64_from_int", NC_INT64, 3, small);
      put_uchar(ncid, NC_GLOBAL, "g_uint_from_uchar", NC_UINT, 2, uc);
      put_ushort(ncid, NC_GLOBAL, "g_float_from_ushort", NC_FLOAT, 2, us);
      put_longlong(ncid, NC_GLOBAL, "g_double_from_int64", NC_DOUBLE, 1, (long long[]){1LL << 40});
      /* ncmpi_put_att_long: memory type long */
      long lv[] = {-5, 5};
      CHECK(ncmpi_put_att_long(ncid, NC_GLOBAL, "g_int_from_long", NC_INT, 2, lv));
      int li[] = {-5, 5};
      m_put_att(NC_GLOBAL, "g_int_from_long", NC_INT, 2, li);
    }
    unsigned char raw[] = {1, 2, 3, 4, 5, 6, 7};
    put_untyped(ncid, NC_GLOBAL, "g_untyped_byte", NC_BYTE, 7, raw);
    double draw[] = {2.0, 4.0};
    put_untyped(ncid, NC_GLOBAL, "g_untyped_double", NC_DOUBLE, 2, draw);
    put_untyped(ncid, NC_GLOBAL, "g_untyped_text", NC_CHAR, 5, "hello");
  }
  EXPECT_ERR(NC_EBADTYPE, ncmpi_put_att_int(ncid, NC_GLOBAL, "bad", (nc_type)99, 1, (int[]){1}));

  /* Variables of every type: fixed 2-D, record, scalar. */
  int vfix[11], vrec[11], vscal[11];
  for (int k = 0; k < ntypes; k++) {
    nc_type t = types[k];
    char name[64];
    int dims2[2] = {x, y};
    int rdims[2] = {time, t == NC_CHAR ? strlen_d : x};
    snprintf(name, sizeof name, "fix_%s", type_name(t));
    vfix[k] = def_var(ncid, name, t, t == NC_CHAR ? 1 : 2, t == NC_CHAR ? &strlen_d : dims2);
    snprintf(name, sizeof name, "rec_%s", type_name(t));
    vrec[k] = def_var(ncid, name, t, 2, rdims);
    snprintf(name, sizeof name, "scalar_%s", type_name(t));
    vscal[k] = def_var(ncid, name, t, 0, NULL);
    put_text(ncid, vfix[k], "units", "m s-1");
    put_own_type_att(ncid, vfix[k], t, "valid");
    put_own_type_att(ncid, vrec[k], t, "valid_rec");
    /* untyped put of the variable's own type */
    unsigned char raw[8];
    default_fill(t, raw);
    put_untyped(ncid, vscal[k], "missing_value", t, 1, raw);
  }
  EXPECT_ERR(NC_ENAMEINUSE, ncmpi_def_var(ncid, "fix_int", NC_INT, 0, NULL, &n));
  int vtmp = def_var(ncid, "uses_tmp", NC_SHORT, 2, (int[]){tmp, x});
  put_text(ncid, vtmp, "to_delete", "this attribute goes away");
  put_text(ncid, vtmp, "kept", "this one stays");

  /* Fill settings per variable. */
  {
    int ifill = -99;
    double dfill = 1e30;
    char cfill = '*';
    var_fill(ncid, vfix[3], 0, &ifill);  /* fix_int: fill on, custom value */
    var_fill(ncid, vfix[5], 0, &dfill);  /* fix_double */
    var_fill(ncid, vfix[1], 0, &cfill);  /* fix_char */
    var_fill(ncid, vfix[2], 1, NULL);    /* fix_short: fill off */
    var_fill(ncid, vrec[3], 0, &ifill);  /* rec_int */
    if (cdf5) {
      unsigned long long ufill = 12345;
      var_fill(ncid, vfix[10], 0, &ufill);
    }
  }
  EXPECT_ERR(NC_EINDEFINE, ncmpi_redef(ncid));

  CHECK(ncmpi_enddef(ncid));
  verify(ncid, "after first enddef", 1);
  EXPECT_ERR(NC_ENOTINDEFINE, ncmpi_def_dim(ncid, "late", 3, &n));
  EXPECT_ERR(NC_ENOTINDEFINE, ncmpi_def_var(ncid, "late", NC_INT, 0, NULL, &n));
  MPI_Offset extent1, size1;
  CHECK(ncmpi_inq_header_extent(ncid, &extent1));
  CHECK(ncmpi_inq_header_size(ncid, &size1));

  /* --- second define phase: the header grows past its first extent ------- */
  CHECK(ncmpi_redef(ncid));
  if (fill) set_fill(ncid, NC_NOFILL, NC_FILL);
  else set_fill(ncid, NC_NOFILL, NC_NOFILL);
  int z = def_dim(ncid, "z_added_after_enddef", 5);
  int vadd = def_var(ncid, "added_fixed", NC_DOUBLE, 2, (int[]){z, y});
  int vaddr = def_var(ncid, "added_record", NC_FLOAT, 2, (int[]){time, z});
  put_text(ncid, vadd, "long_name", "a variable added in the second define phase");
  {
    /* A long attribute: header grows well past its first extent. */
    char big[1501];
    for (int i = 0; i < 1500; i++) big[i] = (char)('a' + i % 26);
    big[1500] = 0;
    put_text(ncid, NC_GLOBAL, "history", big);
    int ints[100];
    for (int i = 0; i < 100; i++) ints[i] = i * i;
    put_int(ncid, vaddr, "squares", NC_INT, 100, ints);
  }
  rename_dim(ncid, tmp, "tmp_renamed_to_a_longer_name");
  rename_var(ncid, vtmp, "uses_tmp_renamed");
  rename_att(ncid, NC_GLOBAL, "title", "title_renamed");
  rename_att(ncid, vtmp, "kept", "kept_renamed");
  EXPECT_ERR(NC_ENAMEINUSE, ncmpi_rename_dim(ncid, x, "y"));
  EXPECT_ERR(NC_ENAMEINUSE, ncmpi_rename_var(ncid, vadd, "fix_int"));
  del_att(ncid, vtmp, "to_delete");
  del_att(ncid, NC_GLOBAL, "g_short"); /* attributes after it shift down */
  EXPECT_ERR(NC_ENOTATT, ncmpi_del_att(ncid, NC_GLOBAL, "g_short"));
  copy_att(ncid, vfix[0], "units", NC_GLOBAL);      /* variable -> global */
  copy_att(ncid, NC_GLOBAL, "g_double", vadd);      /* global -> variable */
  copy_att(ncid, NC_GLOBAL, "g_int", vfix[4]);      /* onto fix_float */
  copy_att(ncid, vfix[3], "valid", vfix[4]);        /* replaces fix_float:valid in place */
  {
    /* fill of a variable defined before the last enddef cannot change */
    short sfill = 77;
    EXPECT_ERR(NC_ELATEFILL, ncmpi_def_var_fill(ncid, vtmp, 0, &sfill));
    /* PnetCDF 1.12.3 turns the variable's fill on even though the call
     * fails; do not hold either library to a fill mode for it. */
    M.vars[vtmp].no_fill = -1;
    float ffill = -1.0f;
    var_fill(ncid, vadd, 1, NULL);
    var_fill(ncid, vaddr, 0, &ffill);
  }
  /* replace an existing attribute with a different type and length: it keeps its place */
  put_double(ncid, NC_GLOBAL, "g_byte", NC_DOUBLE, 4, (double[]){1, 2, 3, 4});
  CHECK(ncmpi_enddef(ncid));
  verify(ncid, "after second enddef", 1);
  MPI_Offset size2;
  CHECK(ncmpi_inq_header_size(ncid, &size2));
  if (size2 <= extent1)
    FAIL("header did not grow: size %lld, first extent %lld", (long long)size2, (long long)extent1);

  /* --- data mode: renames that do not grow the header -------------------- */
  rename_var(ncid, vadd, "added_f");        /* shorter name, allowed in data mode */
  rename_att(ncid, vadd, "long_name", "ln");
  rename_dim(ncid, z, "z_short");
  EXPECT_ERR(NC_ENOTINDEFINE, ncmpi_rename_var(ncid, vadd, "a_much_longer_name_than_before_xx"));
  verify(ncid, "after data-mode renames", 1);
  CHECK(ncmpi_close(ncid));

  /* --- reopen and check everything again --------------------------------- */
  int fmt;
  CHECK(ncmpi_inq_file_format(path, &fmt));
  if (fmt != M.format) FAIL("inq_file_format %d, expected %d", fmt, M.format);
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  verify(ncid, "after reopen", 0);
  EXPECT_ERR(NC_EPERM, ncmpi_redef(ncid));
  CHECK(ncmpi_close(ncid));

  int total;
  MPI_Allreduce(&nerrs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total) fprintf(stderr, "define_only: %d mismatches\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
