/* The matrix of blocking data calls, every value read back:
 *   access kind  var1, var, vara, vars, varm (transposed imap, with and without stride)
 *   memory       the 12 typed APIs (text ... ulonglong) and the flexible API with a
 *                predefined type and with a derived non-contiguous type
 *                (MPI_Type_vector / MPI_Type_create_subarray)
 *   external     CDF-1: byte char short int float double; CDF-5: + ubyte ushort uint
 *                int64 uint64; values 0..126 fit every type, so conversions are exact
 *   variable     fixed (y, x) and record (t, x)
 *   mode         collective (_all) and independent
 * Every rank writes its own part (some ranks nothing), every rank reads a neighbour's
 * part, and a shadow copy of every variable (the same on every rank) says what the file
 * must hold. Then NC_ERANGE, bad input with PnetCDF's codes and their precedence (checked
 * on every rank, also where only one rank errs in a collective call), and a read-only
 * reopen that compares everything again. Expected codes were taken from PnetCDF 1.12.3
 * (the oracle build of this file) and its RELEASE_NOTES. */
#include <math.h>

#include "mpi_test.h"

#define NY 4 /* rows of a fixed variable, records of a record variable */
#define NX 6
#define NEL (NY * NX)
#define SENTINEL 127.0 /* never a pattern value (those are 0..126); fits every type */
#define SHORT_FILL -99 /* _FillValue of the fixed NC_SHORT variable */

/* ---- The tables: memory types, access kinds, external types ---------------------- */

/* Memory types of the typed API: (api name, C type, MPI datatype of the flexible API). */
#define FOR_EACH_MEMTYPE(X)                     \
  X(text, char, MPI_CHAR)                       \
  X(schar, signed char, MPI_SIGNED_CHAR)        \
  X(uchar, unsigned char, MPI_UNSIGNED_CHAR)    \
  X(short, short, MPI_SHORT)                    \
  X(ushort, unsigned short, MPI_UNSIGNED_SHORT) \
  X(int, int, MPI_INT)                          \
  X(uint, unsigned int, MPI_UNSIGNED)           \
  X(long, long, MPI_LONG)                       \
  X(float, float, MPI_FLOAT)                    \
  X(double, double, MPI_DOUBLE)                 \
  X(longlong, long long, MPI_LONG_LONG)         \
  X(ulonglong, unsigned long long, MPI_UNSIGNED_LONG_LONG)

/* Memory variants: each typed API, then the flexible API with a predefined and with a
 * derived datatype (their element type rotates over the numeric memory types). */
enum {
#define MT_ENUM_(n, c, m) MT_##n,
  FOR_EACH_MEMTYPE(MT_ENUM_)
  MT_COUNT,
  MV_FLEX = MT_COUNT,
  MV_DERIVED,
  MV_COUNT
};
static const char *const mv_name[MV_COUNT] = {
#define MT_NAME_(n, c, m) #n,
    FOR_EACH_MEMTYPE(MT_NAME_) "flexible", "derived"};

static MPI_Datatype mem_mpi(int mt) {
  switch (mt) {
#define MT_MPI_(n, c, m) \
  case MT_##n: return m;
    FOR_EACH_MEMTYPE(MT_MPI_)
  }
  return MPI_DATATYPE_NULL;
}

static void mem_store(int mt, void *buf, MPI_Offset i, double v) {
  switch (mt) {
#define MT_STORE_(n, c, m) \
  case MT_##n: ((c *)buf)[i] = (c)v; return;
    FOR_EACH_MEMTYPE(MT_STORE_)
  }
}

static double mem_load(int mt, const void *buf, MPI_Offset i) {
  switch (mt) {
#define MT_LOAD_(n, c, m) \
  case MT_##n: return (double)((const c *)buf)[i];
    FOR_EACH_MEMTYPE(MT_LOAD_)
  }
  return -1e300;
}

/* Access kinds, with the arguments each takes between varid and the buffer. */
#define FOR_EACH_KIND(X, a, b) X(var1, a, b) X(var, a, b) X(vara, a, b) X(vars, a, b) X(varm, a, b)
#define ARGS_var1 g->start,
#define ARGS_var
#define ARGS_vara g->start, g->count,
#define ARGS_vars g->start, g->count, (g->use_stride ? g->stride : NULL),
#define ARGS_varm g->start, g->count, (g->use_stride ? g->stride : NULL), g->imap,
enum {
#define K_ENUM_(k, a, b) K_##k,
  FOR_EACH_KIND(K_ENUM_, _, _)
  K_COUNT
};
static const char *const kind_name[K_COUNT] = {
#define K_NAME_(k, a, b) #k,
    FOR_EACH_KIND(K_NAME_, _, _)};

/* A selection: start/count, stride (used when use_stride) and imap (varm only). */
typedef struct {
  MPI_Offset start[2], count[2], stride[2], imap[2];
  int use_stride;
} Region;

/* One function per memory type dispatching kind x get/put x independent/collective. */
#define TYPED_CASES_(k, n, c)                                                             \
  case K_##k * 4 + 0: return ncmpi_get_##k##_##n(ncid, varid, ARGS_##k (c *)buf);        \
  case K_##k * 4 + 1: return ncmpi_get_##k##_##n##_all(ncid, varid, ARGS_##k (c *)buf);  \
  case K_##k * 4 + 2: return ncmpi_put_##k##_##n(ncid, varid, ARGS_##k (const c *)buf);  \
  case K_##k * 4 + 3: return ncmpi_put_##k##_##n##_all(ncid, varid, ARGS_##k (const c *)buf);
#define TYPED_CALL_(n, c, m)                                                              \
  static int typed_##n(int kind, int put, int coll, int ncid, int varid, const Region *g, \
                       void *buf) {                                                       \
    switch (kind * 4 + put * 2 + coll) { FOR_EACH_KIND(TYPED_CASES_, n, c) }              \
    return NC_EINVAL;                                                                     \
  }
FOR_EACH_MEMTYPE(TYPED_CALL_)

typedef int (*typed_fn)(int, int, int, int, int, const Region *, void *);
static const typed_fn typed_call[MT_COUNT] = {
#define TYPED_PTR_(n, c, m) typed_##n,
    FOR_EACH_MEMTYPE(TYPED_PTR_)};

/* The flexible API: (buf, bufcount, buftype). */
#define FLEX_CASES_(k, a, b)                                                                      \
  case K_##k * 4 + 0: return ncmpi_get_##k(ncid, varid, ARGS_##k buf, bufcount, buftype);       \
  case K_##k * 4 + 1: return ncmpi_get_##k##_all(ncid, varid, ARGS_##k buf, bufcount, buftype); \
  case K_##k * 4 + 2: return ncmpi_put_##k(ncid, varid, ARGS_##k buf, bufcount, buftype);       \
  case K_##k * 4 + 3: return ncmpi_put_##k##_all(ncid, varid, ARGS_##k buf, bufcount, buftype);
static int flex_call(int kind, int put, int coll, int ncid, int varid, const Region *g, void *buf,
                     MPI_Offset bufcount, MPI_Datatype buftype) {
  switch (kind * 4 + put * 2 + coll) { FOR_EACH_KIND(FLEX_CASES_, _, _) }
  return NC_EINVAL;
}

/* External types: (nc type, name). The first six are those of CDF-1. */
#define FOR_EACH_XTYPE(X) \
  X(NC_CHAR, char)        \
  X(NC_BYTE, byte)        \
  X(NC_SHORT, short)      \
  X(NC_INT, int)          \
  X(NC_FLOAT, float)      \
  X(NC_DOUBLE, double)    \
  X(NC_UBYTE, ubyte)      \
  X(NC_USHORT, ushort)    \
  X(NC_UINT, uint)        \
  X(NC_INT64, int64)      \
  X(NC_UINT64, uint64)
enum {
#define XT_ENUM_(t, n) XT_##n,
  FOR_EACH_XTYPE(XT_ENUM_)
  XT_COUNT
};
#define XT_CDF1_COUNT 6
static const nc_type xt_type[XT_COUNT] = {
#define XT_TYPE_(t, n) t,
    FOR_EACH_XTYPE(XT_TYPE_)};
static const char *const xt_name[XT_COUNT] = {
#define XT_NAME_(t, n) #n,
    FOR_EACH_XTYPE(XT_NAME_)};

/* ---- The file under test and its shadow ----------------------------------------- */

typedef struct {
  int ncid, nxt, dim_t;
  int var[XT_COUNT][2];              /* [external type][0 fixed, 1 record] */
  double shadow[XT_COUNT][2][NEL];   /* what the file must hold, the same on every rank */
} File;
static File F;

static int printed = 0;
#define FAIL(...)                                                                   \
  do {                                                                              \
    mpi_test_failures++;                                                            \
    if (printed++ < 40) {                                                           \
      fprintf(stderr, "[rank %d] %s:%d: ", mpi_test_rank, __FILE__, __LINE__);      \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fputc('\n', stderr);                                                          \
    }                                                                               \
  } while (0)

static double pattern(int seed, MPI_Offset idx) { return (double)((seed * 37 + idx * 5) % 127); }

static void check_numrecs(MPI_Offset expected, int line) {
  MPI_Offset n = -1;
  CHECK_OK(ncmpi_inq_dimlen(F.ncid, F.dim_t, &n));
  if (n != expected) FAIL("line %d: numrecs %lld, expected %lld", line, (long long)n, (long long)expected);
}

/* Rank q's selection for one matrix cell (seed); returns its number of elements. The
 * selections of different ranks never overlap, and some ranks get none. */
static MPI_Offset region(int kind, int q, int seed, Region *g) {
  int np = mpi_test_nprocs;
  int empty = seed % 3 == 0 && q == (seed / 3) % np;
  memset(g, 0, sizeof *g);
  g->stride[0] = g->stride[1] = 1;
  int shape = kind == K_varm ? (seed % 2 ? K_vars : K_vara) : kind;
  switch (shape) {
    case K_var1: {
      int e = (seed + q * (NEL / np)) % NEL;
      g->start[0] = e / NX; g->start[1] = e % NX; g->count[0] = g->count[1] = 1;
      break;
    }
    case K_var: g->count[0] = NY; g->count[1] = NX; break;
    case K_vara: { /* a block of rows, some columns */
      int y0 = q * NY / np, y1 = (q + 1) * NY / np, c0 = seed % 2;
      g->start[0] = y0; g->count[0] = empty ? 0 : y1 - y0;
      g->start[1] = c0; g->count[1] = NX - c0 - (seed / 2) % 2;
      break;
    }
    case K_vars: { /* rows q, q+np, ...; every 2nd or 3rd column */
      int st = 2 + seed % 2, c0 = (seed / 2) % 2;
      g->use_stride = 1;
      g->stride[0] = np; g->stride[1] = st;
      g->start[0] = q < NY ? q : 0; g->count[0] = q < NY && !empty ? (NY - q + np - 1) / np : 0;
      g->start[1] = c0; g->count[1] = (NX - c0 + st - 1) / st;
      break;
    }
  }
  if (kind == K_varm) { /* memory holds the transpose */
    g->imap[0] = 1;
    g->imap[1] = g->count[0];
  }
  return g->count[0] * g->count[1];
}

/* Element i (row-major over count) of a selection: its place in the variable and in
 * memory (in elements of the memory type, before any derived-type layout). */
static int file_index(const Region *g, MPI_Offset i) {
  MPI_Offset r = i / g->count[1], c = i % g->count[1];
  return (int)((g->start[0] + r * g->stride[0]) * NX + g->start[1] + c * g->stride[1]);
}
static MPI_Offset mem_index(int kind, const Region *g, MPI_Offset i) {
  if (kind != K_varm) return i;
  return (i / g->count[1]) * g->imap[0] + (i % g->count[1]) * g->imap[1];
}

/* Does rank q call at all? In independent mode put_var is made by one rank. */
static int takes_part(int kind, int put, int coll, int q, int seed) {
  return coll || !put || kind != K_var || q == seed % mpi_test_nprocs;
}

/* A memory buffer for one call: its element type, where element j lives (slot), how
 * many slots it has, and for the derived variant the MPI datatype describing it. */
typedef struct {
  int mv, base, derived; /* derived: 0 none, 1 vector (every 2nd), 2 subarray (offset 2) */
  MPI_Offset n, slots;
  MPI_Datatype type;
  long long storage[2 * NEL + 8];
} MemBuf;

static MPI_Offset slot_of(const MemBuf *m, MPI_Offset j) {
  return m->derived == 1 ? 2 * j : m->derived == 2 ? j + 2 : j;
}

static void membuf_init(MemBuf *m, int mv, int xt, int seed, MPI_Offset n) {
  m->mv = mv;
  m->n = n;
  m->base = mv < MT_COUNT ? mv : xt == XT_char ? MT_text : MT_schar + seed % (MT_COUNT - 1);
  m->derived = mv == MV_DERIVED ? 1 + seed % 2 : 0;
  m->type = MPI_DATATYPE_NULL;
  MPI_Offset k = n ? n : 1;
  m->slots = m->derived == 1 ? 2 * k : m->derived == 2 ? k + 3 : k;
  if (m->derived == 1) {
    MPI_Type_vector((int)k, 1, 2, mem_mpi(m->base), &m->type);
  } else if (m->derived == 2) {
    int size = (int)k + 3, sub = (int)k, off = 2;
    MPI_Type_create_subarray(1, &size, &sub, &off, MPI_ORDER_C, mem_mpi(m->base), &m->type);
  }
  if (m->type != MPI_DATATYPE_NULL) MPI_Type_commit(&m->type);
  for (MPI_Offset s = 0; s < m->slots; s++) mem_store(m->base, m->storage, s, SENTINEL);
}

static void membuf_free(MemBuf *m) {
  if (m->type != MPI_DATATYPE_NULL) MPI_Type_free(&m->type);
}

static int do_call(const MemBuf *m, int kind, int put, int coll, int varid, const Region *g) {
  void *buf = (void *)m->storage;
  if (m->mv < MT_COUNT) return typed_call[m->mv](kind, put, coll, F.ncid, varid, g, buf);
  if (m->mv == MV_FLEX) return flex_call(kind, put, coll, F.ncid, varid, g, buf, m->n, mem_mpi(m->base));
  return flex_call(kind, put, coll, F.ncid, varid, g, buf, m->n ? 1 : 0, m->type);
}

/* ---- One cell of the matrix --------------------------------------------------------- */

static void run_cell(int xt, int fr, int kind, int mv, int coll, int seed) {
  int me = mpi_test_rank, np = mpi_test_nprocs, varid = F.var[xt][fr];
  double *shadow = F.shadow[xt][fr];
  char what[160];
  Region g;
  MemBuf m;

  /* Put my part. */
  MPI_Offset n = region(kind, me, seed, &g);
  membuf_init(&m, mv, xt, seed, n);
  snprintf(what, sizeof what, "%s %s %s %s %s seed %d (base %s)", xt_name[xt], fr ? "record" : "fixed",
           kind_name[kind], mv_name[mv], coll ? "collective" : "independent", seed, mv_name[m.base]);
  for (MPI_Offset i = 0; i < n; i++)
    mem_store(m.base, m.storage, slot_of(&m, mem_index(kind, &g, i)), pattern(seed, file_index(&g, i)));
  if (takes_part(kind, 1, coll, me, seed)) {
    int err = do_call(&m, kind, 1, coll, varid, &g);
    if (err != NC_NOERR) FAIL("put %s: %s", what, ncmpi_strerrno(err));
  }
  membuf_free(&m);
  for (int q = 0; q < np; q++) {
    if (!takes_part(kind, 1, coll, q, seed)) continue;
    Region gq;
    MPI_Offset nq = region(kind, q, seed, &gq);
    for (MPI_Offset i = 0; i < nq; i++) shadow[file_index(&gq, i)] = pattern(seed, file_index(&gq, i));
  }
  if (fr && coll) check_numrecs(NY, __LINE__);
  /* Independent writes are visible to another rank's read only after MPI-IO's
   * "sync-barrier-sync" (MPI 3.1 section 13.6.1: the file is not in atomic mode,
   * and the writer's and the reader's handles are different). ncmpi_sync is that
   * sync (PnetCDF 1.12.3: MPI_File_sync on every handle, then MPI_Barrier;
   * collective, also in independent data mode): the writer's, a barrier, the
   * reader's. A bare MPI_Barrier is not enough: async{indep=defer} (the default
   * of the async stack) may still hold the writes when the barrier returns. */
  if (!coll) {
    CHECK_OK(ncmpi_sync(F.ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(ncmpi_sync(F.ncid));
  }

  /* Get the next rank's part: each value where it belongs, every other slot untouched. */
  n = region(kind, (me + 1) % np, seed, &g);
  membuf_init(&m, mv, xt, seed, n);
  int err = do_call(&m, kind, 0, coll, varid, &g);
  if (err != NC_NOERR) FAIL("get %s: %s", what, ncmpi_strerrno(err));
  int bad = 0;
  for (MPI_Offset i = 0; i < n; i++) {
    double got = mem_load(m.base, m.storage, slot_of(&m, mem_index(kind, &g, i)));
    if (got != shadow[file_index(&g, i)] && bad++ < 3)
      FAIL("get %s: element %lld (file index %d) is %g, expected %g", what, (long long)i,
           file_index(&g, i), got, shadow[file_index(&g, i)]);
  }
  int touched = 0;
  for (MPI_Offset s = 0; s < m.slots; s++) touched += mem_load(m.base, m.storage, s) != SENTINEL;
  /* Slots that hold values: as many as elements, unless a value is the sentinel itself. */
  if (touched > n) FAIL("get %s: %d slots written for %lld elements", what, touched, (long long)n);
  membuf_free(&m);
  if (!coll) MPI_Barrier(MPI_COMM_WORLD); /* all reads done before the next writes */
}

/* Reads every variable whole (collectively) and compares it with the shadow. */
static void verify_all(const char *when) {
  for (int xt = 0; xt < F.nxt; xt++)
    for (int fr = 0; fr < 2; fr++) {
      double d[NEL];
      char t[NEL];
      int err;
      if (xt == XT_char) {
        err = ncmpi_get_var_text_all(F.ncid, F.var[xt][fr], t);
        for (int i = 0; i < NEL; i++) d[i] = t[i];
      } else {
        err = ncmpi_get_var_double_all(F.ncid, F.var[xt][fr], d);
      }
      if (err != NC_NOERR) FAIL("%s: get_var %s %d: %s", when, xt_name[xt], fr, ncmpi_strerrno(err));
      int bad = 0;
      for (int i = 0; i < NEL; i++) /* NaN in the shadow: any value (see erange()) */
        if (d[i] != F.shadow[xt][fr][i] && !isnan(F.shadow[xt][fr][i]) && bad++ < 3)
          FAIL("%s: %s %s element %d is %g, expected %g", when, xt_name[xt], fr ? "record" : "fixed", i,
               d[i], F.shadow[xt][fr][i]);
    }
  check_numrecs(NY, __LINE__);
}

/* Writes rows [y0, y1) of variable (xt, fr) with pattern(seed) as doubles or text. */
static int put_rows(int xt, int fr, int y0, int y1, int seed, int coll) {
  MPI_Offset start[2] = {y0, 0}, count[2] = {y1 - y0, NX};
  double d[NEL];
  char t[NEL];
  for (int i = 0; i < (y1 - y0) * NX; i++) {
    d[i] = pattern(seed, y0 * NX + i);
    t[i] = (char)d[i];
  }
  int v = F.var[xt][fr];
  if (xt == XT_char)
    return coll ? ncmpi_put_vara_text_all(F.ncid, v, start, count, t) : ncmpi_put_vara_text(F.ncid, v, start, count, t);
  return coll ? ncmpi_put_vara_double_all(F.ncid, v, start, count, d) : ncmpi_put_vara_double(F.ncid, v, start, count, d);
}
static void shadow_rows(int xt, int fr, int y0, int y1, int seed) {
  for (int i = y0 * NX; i < y1 * NX; i++) F.shadow[xt][fr][i] = pattern(seed, i);
}

/* Records k in [k0, k0 + 2) go to rank (k - k0) % np: one contiguous run per rank. */
static void my_records(int k0, int q, int *y0, int *y1) {
  int np = mpi_test_nprocs;
  *y0 = *y1 = k0;
  for (int k = k0; k < k0 + 2; k++)
    if ((k - k0) % np == q) {
      if (*y1 == *y0) *y0 = k;
      *y1 = k + 1;
    }
}

/* Every variable gets a first content; records 0-1 collectively and 2-3 independently,
 * each by different ranks, numrecs checked on every rank after each step. */
static void initialize(void) {
  int me = mpi_test_rank, np = mpi_test_nprocs, y0, y1;
  for (int xt = 0; xt < F.nxt; xt++) {
    int r0 = me * NY / np, r1 = (me + 1) * NY / np;
    CHECK_OK(put_rows(xt, 0, r0, r1, 1, 1));
    shadow_rows(xt, 0, 0, NY, 1);
  }
  check_numrecs(0, __LINE__);
  for (int xt = 0; xt < F.nxt; xt++) {
    my_records(0, me, &y0, &y1);
    CHECK_OK(put_rows(xt, 1, y0, y1, 2, 1));
    shadow_rows(xt, 1, 0, 2, 2);
  }
  check_numrecs(2, __LINE__);
  CHECK_OK(ncmpi_begin_indep_data(F.ncid));
  for (int xt = 0; xt < F.nxt; xt++) {
    my_records(2, me, &y0, &y1);
    if (y1 > y0) CHECK_OK(put_rows(xt, 1, y0, y1, 3, 0));
    shadow_rows(xt, 1, 2, 4, 3);
  }
  CHECK_OK(ncmpi_end_indep_data(F.ncid));
  check_numrecs(NY, __LINE__);
  MPI_Barrier(MPI_COMM_WORLD);
  verify_all("after initialization");
}

static int seed_counter = 10;

static void matrix(int coll) {
  if (!coll) CHECK_OK(ncmpi_begin_indep_data(F.ncid));
  for (int xt = 0; xt < F.nxt; xt++)
    for (int fr = 0; fr < 2; fr++)
      for (int kind = 0; kind < K_COUNT; kind++)
        for (int mv = 0; mv < MV_COUNT; mv++) {
          /* text only with NC_CHAR, numbers only with the others */
          if ((xt == XT_char) != (mv == MT_text) && mv < MT_COUNT) continue;
          run_cell(xt, fr, kind, mv, coll, seed_counter++);
        }
  if (!coll) {
    CHECK_OK(ncmpi_end_indep_data(F.ncid));
    check_numrecs(NY, __LINE__);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  verify_all(coll ? "after the collective matrix" : "after the independent matrix");
}

/* ---- NC_ERANGE: the call says so, the values that fit are still moved ------------- */

/* Writes my rows of variable (xt, 0) from ints; on the last rank two of them do not fit. */
static void erange_put(int xt, int out1, int out2, double stored1, double stored2) {
  int me = mpi_test_rank, np = mpi_test_nprocs, last = np - 1, seed = seed_counter++;
  int r0 = me * NY / np, r1 = (me + 1) * NY / np, vals[NEL];
  MPI_Offset start[2] = {r0, 0}, count[2] = {r1 - r0, NX};
  for (int i = 0; i < (r1 - r0) * NX; i++) vals[i] = (int)pattern(seed, r0 * NX + i);
  if (me == last) { vals[1] = out1; vals[3] = out2; }
  CHECK_ERR(ncmpi_put_vara_int_all(F.ncid, F.var[xt][0], start, count, vals), me == last ? NC_ERANGE : NC_NOERR);
  shadow_rows(xt, 0, 0, NY, seed);
  int l0 = last * NY / np;
  F.shadow[xt][0][l0 * NX + 1] = stored1;
  F.shadow[xt][0][l0 * NX + 3] = stored2;
}

/* What an out-of-range element becomes. With PNETCDF_ERANGE_FILL (PnetCDF's default,
 * Debian's build) a put writes the variable's _FillValue (else the type's default fill
 * value) and a get stores the memory type's default fill value. Without it (exacdf says
 * PNETCDF_ERANGE_FILL 0) PnetCDF's release notes leave those elements to the user, so
 * they are not checked (NaN in the shadow). */
#if PNETCDF_ERANGE_FILL
#define ERANGE_FILL(v) ((double)(v))
#else
#define ERANGE_FILL(v) NAN
#endif

static void erange(int cdf5) {
  int me = mpi_test_rank, np = mpi_test_nprocs, last = np - 1;
  /* Out of range on put: NC_ERANGE on the rank that has such values, the rest written. */
  erange_put(XT_byte, 300, -200, ERANGE_FILL(NC_FILL_BYTE), ERANGE_FILL(NC_FILL_BYTE));
  erange_put(XT_short, 40000, -40000, ERANGE_FILL(SHORT_FILL), ERANGE_FILL(SHORT_FILL));
  if (cdf5) {
    erange_put(XT_ubyte, -1, 256, ERANGE_FILL(NC_FILL_UBYTE), ERANGE_FILL(NC_FILL_UBYTE));
    erange_put(XT_uint, -5, 77, ERANGE_FILL(NC_FILL_UINT), 77);
    erange_put(XT_uint64, 7, -9, 7, ERANGE_FILL(NC_FILL_UINT64));
#if PNETCDF_ERANGE_FILL /* exactly, not through a double */
    MPI_Offset at[2] = {last * NY / np, 3};
    unsigned long long u = 0;
    CHECK_OK(ncmpi_get_var1_ulonglong_all(F.ncid, F.var[XT_uint64][0], at, &u));
    CHECK(u == NC_FILL_UINT64);
#endif
  }
  /* uchar -> NC_BYTE is not range checked in CDF-1/2 (200 is stored as -56), in CDF-5 it is. */
  {
    MPI_Offset start[2] = {0, 0}, count[2] = {1, me == last ? 2 : 0};
    unsigned char uc[2] = {200, 5};
    CHECK_ERR(ncmpi_put_vara_uchar_all(F.ncid, F.var[XT_byte][0], start, count, uc),
              me == last && cdf5 ? NC_ERANGE : NC_NOERR);
    F.shadow[XT_byte][0][0] = cdf5 ? ERANGE_FILL(NC_FILL_BYTE) : -56;
    F.shadow[XT_byte][0][1] = 5;
  }
  verify_all("after NC_ERANGE puts");
  /* Out of range on get: every rank reads row 0 of the short variable (which holds 40000
   * -> fill on the last rank's row, so put values of our own first). */
  {
    int seed = seed_counter++;
    short vals[NX];
    MPI_Offset start[2] = {0, 0}, count[2] = {me == 0 ? 1 : 0, NX};
    for (int i = 0; i < NX; i++) vals[i] = (short)pattern(seed, i);
    vals[2] = 300;
    vals[4] = -3;
    CHECK_OK(ncmpi_put_vara_short_all(F.ncid, F.var[XT_short][0], start, count, vals));
    for (int i = 0; i < NX; i++) F.shadow[XT_short][0][i] = vals[i];
    count[0] = 1;
    signed char sc[NX];
    CHECK_ERR(ncmpi_get_vara_schar_all(F.ncid, F.var[XT_short][0], start, count, sc), NC_ERANGE);
    for (int i = 0; i < NX; i++)
      if (i != 2) CHECK(sc[i] == vals[i]);
#if PNETCDF_ERANGE_FILL
    CHECK(sc[2] == NC_FILL_BYTE); /* the memory type's fill value */
#endif
    unsigned char uc[NX];
    CHECK_ERR(ncmpi_get_vara_uchar_all(F.ncid, F.var[XT_short][0], start, count, uc), NC_ERANGE);
    for (int i = 0; i < NX; i++)
      if (i != 2 && i != 4) CHECK(uc[i] == vals[i]);
#if PNETCDF_ERANGE_FILL
    CHECK(uc[2] == NC_FILL_UBYTE && uc[4] == NC_FILL_UBYTE);
#endif
    /* Only the ranks whose part does not fit see NC_ERANGE. */
    MPI_Offset s1[2] = {0, me == last ? 2 : 0}, c1[2] = {1, 1};
    CHECK_ERR(ncmpi_get_vara_schar_all(F.ncid, F.var[XT_short][0], s1, c1, sc), me == last ? NC_ERANGE : NC_NOERR);
    if (me != last) CHECK(sc[0] == vals[0]);
  }
  verify_all("after NC_ERANGE gets");
}

/* ---- Bad input: PnetCDF's code on every rank, nothing written ------------------------ */

enum { V_FIXED, V_RECORD, V_CHAR, V_NOSUCH, V_GLOBAL };
typedef struct {
  const char *what;
  int kind, put, var, mt, null_buf, expected;
  MPI_Offset start[2], count[2], stride[2];
  /* PnetCDF 1.12.3 has no check for a null buffer with a non-zero count (it crashes
   * with SIGSEGV in ncmpio_pack_xbuf): exacdf's NC_ENULLBUF is checked for exacdf only. */
  int exacdf_only;
} BadCase;

static const BadCase bad_cases[] = {
    {"var1 start = dim length", K_var1, 0, V_FIXED, MT_int, 0, NC_EINVALCOORDS, {NY, 0}, {1, 1}, {1, 1}, 0},
    {"start beyond dim", K_vara, 1, V_FIXED, MT_int, 0, NC_EINVALCOORDS, {0, NX + 1}, {1, 1}, {1, 1}, 0},
    {"negative start", K_vara, 1, V_FIXED, MT_int, 0, NC_EINVALCOORDS, {-1, 0}, {1, 1}, {1, 1}, 0},
    {"read at numrecs", K_vara, 0, V_RECORD, MT_int, 0, NC_EINVALCOORDS, {NY, 0}, {1, NX}, {1, 1}, 0},
    {"start = dim length, count 0", K_vara, 0, V_FIXED, MT_int, 0, NC_NOERR, {NY, 0}, {0, NX}, {1, 1}, 0},
    {"start > dim length, count 0", K_vara, 0, V_FIXED, MT_int, 0, NC_EINVALCOORDS, {NY + 1, 0}, {0, NX}, {1, 1}, 0},
    {"start + count > dim", K_vara, 1, V_FIXED, MT_int, 0, NC_EEDGE, {NY - 1, 0}, {2, NX}, {1, 1}, 0},
    {"read past numrecs", K_vara, 0, V_RECORD, MT_int, 0, NC_EEDGE, {NY - 1, 0}, {2, NX}, {1, 1}, 0},
    {"strided past dim", K_vars, 0, V_FIXED, MT_int, 0, NC_EEDGE, {0, 0}, {3, 1}, {2, 1}, 0},
    {"negative count", K_vara, 0, V_FIXED, MT_int, 0, NC_ENEGATIVECNT, {0, 0}, {-1, 1}, {1, 1}, 0},
    {"zero stride", K_vars, 1, V_FIXED, MT_int, 0, NC_ESTRIDE, {0, 0}, {1, 1}, {0, 1}, 0},
    {"negative stride", K_vars, 0, V_FIXED, MT_int, 0, NC_ESTRIDE, {0, 2}, {1, 2}, {1, -1}, 0},
    {"text into a number", K_vara, 1, V_FIXED, MT_text, 0, NC_ECHAR, {0, 0}, {1, 2}, {1, 1}, 0},
    {"number from text", K_vara, 0, V_CHAR, MT_int, 0, NC_ECHAR, {0, 0}, {1, 2}, {1, 1}, 0},
    {"double into text", K_var1, 1, V_CHAR, MT_double, 0, NC_ECHAR, {0, 0}, {1, 1}, {1, 1}, 0},
    {"null buffer, put", K_vara, 1, V_FIXED, MT_int, 1, NC_ENULLBUF, {0, 0}, {1, NX}, {1, 1}, 1},
    {"null buffer, get", K_vara, 0, V_FIXED, MT_int, 1, NC_ENULLBUF, {0, 0}, {1, NX}, {1, 1}, 1},
    {"null buffer, count 0", K_vara, 1, V_FIXED, MT_int, 1, NC_NOERR, {0, 0}, {0, NX}, {1, 1}, 0},
    /* Which error wins (PnetCDF's sanity_check, then check_start_count_stride). */
    {"NC_ECHAR before NC_EINVALCOORDS", K_vara, 1, V_FIXED, MT_text, 0, NC_ECHAR, {NY + 1, 0}, {1, 1}, {1, 1}, 0},
    {"NC_EINVALCOORDS before NC_EEDGE", K_vara, 0, V_FIXED, MT_int, 0, NC_EINVALCOORDS, {NY - 1, NX + 1}, {2, 1}, {1, 1}, 0},
    {"NC_EEDGE before NC_ESTRIDE", K_vars, 0, V_FIXED, MT_int, 0, NC_EEDGE, {0, 0}, {NY + 1, 1}, {0, 1}, 0},
    {"NC_ENOTVAR before NC_ECHAR", K_vara, 0, V_NOSUCH, MT_text, 0, NC_ENOTVAR, {NY + 1, 0}, {1, 1}, {1, 1}, 0},
    {"no such variable", K_vara, 1, V_NOSUCH, MT_int, 0, NC_ENOTVAR, {0, 0}, {1, 1}, {1, 1}, 0},
    {"NC_GLOBAL as variable", K_var1, 0, V_GLOBAL, MT_int, 0, NC_EGLOBAL, {0, 0}, {1, 1}, {1, 1}, 0},
};
#define N_BAD_CASES ((int)(sizeof bad_cases / sizeof bad_cases[0]))

static int bad_varid(int sel) {
  switch (sel) {
    case V_FIXED: return F.var[XT_int][0];
    case V_RECORD: return F.var[XT_int][1];
    case V_CHAR: return F.var[XT_char][0];
    case V_NOSUCH: return 1000;
  }
  return NC_GLOBAL;
}

/* Cases PnetCDF cannot run are skipped when testing it (MPI_TEST_IS_EXACDF is 0). */
static int skipped(const BadCase *b) { return b->exacdf_only && !MPI_TEST_IS_EXACDF; }

static int run_bad(const BadCase *b, int coll) {
  Region g;
  memset(&g, 0, sizeof g);
  memcpy(g.start, b->start, sizeof g.start);
  memcpy(g.count, b->count, sizeof g.count);
  memcpy(g.stride, b->stride, sizeof g.stride);
  g.use_stride = 1;
  long long buf[NEL];
  memset(buf, 0, sizeof buf);
  return typed_call[b->mt](b->kind, b->put, coll, F.ncid, bad_varid(b->var), &g, b->null_buf ? NULL : buf);
}

static void check_bad(const BadCase *b, int coll, int got, int expected) {
  if (got != expected)
    FAIL("%s (%s %s, %s): returned %d (%s), expected %d (%s)", b->what, b->put ? "put" : "get",
         kind_name[b->kind], coll ? "collective" : "independent", got, ncmpi_strerrno(got), expected,
         ncmpi_strerrno(expected));
}

/* The last rank makes the bad call, the others a good one in the same collective call:
 * they write their rows (put) or read the whole variable (get), and return NC_NOERR. */
static void one_rank_bad(const BadCase *b) {
  int me = mpi_test_rank, np = mpi_test_nprocs, last = np - 1, seed = seed_counter++;
  int vf = F.var[XT_int][0];
  if (me == last) {
    check_bad(b, 1, run_bad(b, 1), b->expected);
  } else if (b->put) {
    int r0 = me * NY / np, r1 = (me + 1) * NY / np;
    MPI_Offset start[2] = {r0, 0}, count[2] = {r1 - r0, NX}, stride[2] = {1, 1};
    int vals[NEL];
    for (int i = 0; i < (r1 - r0) * NX; i++) vals[i] = (int)pattern(seed, r0 * NX + i);
    CHECK_OK(ncmpi_put_vars_int_all(F.ncid, vf, start, count, stride, vals));
  } else {
    MPI_Offset start[2] = {0, 0}, count[2] = {NY, NX};
    int vals[NEL];
    CHECK_OK(ncmpi_get_vara_int_all(F.ncid, vf, start, count, vals));
    for (int i = 0; i < NEL; i++)
      if (vals[i] != F.shadow[XT_int][0][i]) FAIL("one rank bad (%s): element %d is %d", b->what, i, vals[i]);
  }
  if (b->put)
    for (int q = 0; q < last; q++) shadow_rows(XT_int, 0, q * NY / np, (q + 1) * NY / np, seed);
}

static void bad_input(void) {
  int ncid = F.ncid, vf = F.var[XT_int][0], ibuf[NEL];
  MPI_Offset start[2] = {0, 0}, count[2] = {1, NX};
  for (int i = 0; i < NEL; i++) ibuf[i] = 99;
  /* Every case in both modes, on every rank. */
  for (int i = 0; i < N_BAD_CASES; i++)
    if (!skipped(&bad_cases[i])) check_bad(&bad_cases[i], 1, run_bad(&bad_cases[i], 1), bad_cases[i].expected);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int i = 0; i < N_BAD_CASES; i++)
    if (!skipped(&bad_cases[i])) check_bad(&bad_cases[i], 0, run_bad(&bad_cases[i], 0), bad_cases[i].expected);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  verify_all("after bad input");
  /* Only one rank errs in a collective call: the others complete and get their data. */
  for (int i = 0; i < N_BAD_CASES; i++)
    if (bad_cases[i].expected != NC_NOERR && !skipped(&bad_cases[i])) one_rank_bad(&bad_cases[i]);
  verify_all("after one-rank errors");
  /* The wrong mode: independent calls in collective mode and the reverse. */
  CHECK_ERR(ncmpi_put_vara_int(ncid, vf, start, count, ibuf), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_get_vara_int(ncid, vf, start, count, ibuf), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_put_vara(ncid, vf, start, count, ibuf, NX, MPI_INT), NC_ENOTINDEP);
  CHECK_ERR(ncmpi_get_vara_int(ncid, 1000, start, count, ibuf), NC_ENOTINDEP); /* before the varid */
  /* Since PnetCDF 1.2.0 entering the mode one is already in is no error. */
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vf, start, count, ibuf), NC_EINDEP);
  CHECK_ERR(ncmpi_get_var_int_all(ncid, vf, ibuf), NC_EINDEP);
  CHECK_ERR(ncmpi_get_var1_all(ncid, vf, start, ibuf, 1, MPI_INT), NC_EINDEP);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  /* Data calls in define mode. */
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vf, start, count, ibuf), NC_EINDEFINE);
  CHECK_ERR(ncmpi_put_vara_int(ncid, vf, start, count, ibuf), NC_EINDEFINE);
  CHECK_ERR(ncmpi_get_var1_int_all(ncid, vf, start, ibuf), NC_EINDEFINE);
  CHECK_ERR(ncmpi_get_vara_all(ncid, vf, start, count, ibuf, NX, MPI_INT), NC_EINDEFINE);
  CHECK_ERR(ncmpi_begin_indep_data(ncid), NC_EINDEFINE);
  CHECK_ERR(ncmpi_put_vara_text_all(ncid, 1000, start, count, "abcdef"), NC_EINDEFINE); /* before the varid */
  CHECK_OK(ncmpi_enddef(ncid));
  verify_all("after mode errors");
}

static int run_file(int cmode, const char *name) {
  int dims[2], dy, dx;
  memset(&F, 0, sizeof F);
  F.nxt = cmode & NC_64BIT_DATA ? XT_COUNT : XT_CDF1_COUNT;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(name), cmode, MPI_INFO_NULL, &F.ncid));
  CHECK_OK(ncmpi_def_dim(F.ncid, "t", NC_UNLIMITED, &F.dim_t));
  CHECK_OK(ncmpi_def_dim(F.ncid, "y", NY, &dy));
  CHECK_OK(ncmpi_def_dim(F.ncid, "x", NX, &dx));
  for (int xt = 0; xt < F.nxt; xt++)
    for (int fr = 0; fr < 2; fr++) {
      char vname[32];
      snprintf(vname, sizeof vname, "%s_%s", fr ? "r" : "f", xt_name[xt]);
      dims[0] = fr ? F.dim_t : dy;
      dims[1] = dx;
      CHECK_OK(ncmpi_def_var(F.ncid, vname, xt_type[xt], 2, dims, &F.var[xt][fr]));
    }
  /* Used only when a put is out of range (no fill mode is the default). */
  short fill = SHORT_FILL;
  CHECK_OK(ncmpi_put_att_short(F.ncid, F.var[XT_short][0], "_FillValue", NC_SHORT, 1, &fill));
  CHECK_OK(ncmpi_enddef(F.ncid));
  initialize();
  matrix(1);
  matrix(0);
  erange(cmode & NC_64BIT_DATA);
  bad_input();
  CHECK_OK(ncmpi_close(F.ncid));
  /* Reopened read-only: everything is there, and nothing can be written. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path(name), NC_NOWRITE, MPI_INFO_NULL, &F.ncid));
  verify_all("after reopening");
  int ibuf[NX] = {0};
  MPI_Offset start[2] = {0, 0}, count[2] = {1, NX};
  CHECK_ERR(ncmpi_put_vara_int_all(F.ncid, F.var[XT_int][0], start, count, ibuf), NC_EPERM);
  CHECK_ERR(ncmpi_put_var1_text_all(F.ncid, F.var[XT_char][1], start, "z"), NC_EPERM);
  MPI_Offset beyond[2] = {NY + 1, NX + 1};
  CHECK_ERR(ncmpi_put_vara_int(F.ncid, 1000, beyond, count, ibuf), NC_EPERM); /* before the mode, varid, coords */
  CHECK_OK(ncmpi_begin_indep_data(F.ncid));
  CHECK_ERR(ncmpi_put_vara_int(F.ncid, F.var[XT_int][1], start, count, ibuf), NC_EPERM);
  CHECK_ERR(ncmpi_put_vara(F.ncid, F.var[XT_int][0], start, count, ibuf, NX, MPI_INT), NC_EPERM);
  CHECK_OK(ncmpi_end_indep_data(F.ncid));
  verify_all("after NC_EPERM");
  CHECK_OK(ncmpi_close(F.ncid));
  return 0;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  double t0 = MPI_Wtime();
  run_file(NC_CLOBBER, "matrix_cdf1.nc");
  run_file(NC_CLOBBER | NC_64BIT_DATA, "matrix_cdf5.nc");
  if (mpi_test_rank == 0) printf("seeds %d, %.2f s\n", seed_counter, MPI_Wtime() - t0);
  return mpi_test_finish();
}
