/* Queries over values: every result equals a brute-force scan of a model
 * of the data kept on every rank. Random data of all 10 numeric types
 * (NaN, infinities, fill values), random combined queries (and/or/not, all
 * ops, constants of every type, on bin edges, out of range, NaN), with and
 * without an index, after overwrites and appended records, after the file
 * changed behind a sidecar, after a damaged sidecar; encoded/decoded
 * queries; exa_query_hits and exa_query_get against the model. CDF-5 and
 * the partitioned format. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

#include "mpi_test.h"

#define N 1500     /* elements of the fixed variables */
#define NVARS 10
#define RECW 3     /* record variable r[rec][RECW] */
#define NQUERIES 24

static const nc_type kTypes[NVARS] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT,
                                      NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE};
static long double model[NVARS][N];
static long double rmodel[64][RECW];
static int nrecs = 0;
static uint64_t rng_state = 12345;

static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static MPI_Datatype mpi_type(nc_type t) {
  switch (t) {
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_UBYTE: return MPI_UNSIGNED_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_INT: return MPI_INT;
    case NC_UINT: return MPI_UNSIGNED;
    case NC_INT64: return MPI_LONG_LONG;
    case NC_UINT64: return MPI_UNSIGNED_LONG_LONG;
    case NC_FLOAT: return MPI_FLOAT;
    default: return MPI_DOUBLE;
  }
}
static int tsize(nc_type t) {
  switch (t) {
    case NC_BYTE: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
  }
}
static int is_unsigned(nc_type t) {
  return t == NC_UBYTE || t == NC_USHORT || t == NC_UINT || t == NC_UINT64;
}

/* Stores v (exactly representable in t) at p. */
static void store(nc_type t, long double v, void *p) {
  switch (t) {
    case NC_BYTE: *(signed char *)p = (signed char)v; break;
    case NC_UBYTE: *(unsigned char *)p = (unsigned char)v; break;
    case NC_SHORT: *(short *)p = (short)v; break;
    case NC_USHORT: *(unsigned short *)p = (unsigned short)v; break;
    case NC_INT: *(int *)p = (int)v; break;
    case NC_UINT: *(unsigned *)p = (unsigned)v; break;
    case NC_INT64: *(long long *)p = (long long)v; break;
    case NC_UINT64: *(unsigned long long *)p = (unsigned long long)v; break;
    case NC_FLOAT: *(float *)p = (float)v; break;
    default: *(double *)p = (double)v; break;
  }
}
static long double load(nc_type t, const void *p) {
  switch (t) {
    case NC_BYTE: return *(const signed char *)p;
    case NC_UBYTE: return *(const unsigned char *)p;
    case NC_SHORT: return *(const short *)p;
    case NC_USHORT: return *(const unsigned short *)p;
    case NC_INT: return *(const int *)p;
    case NC_UINT: return *(const unsigned *)p;
    case NC_INT64: return *(const long long *)p;
    case NC_UINT64: return *(const unsigned long long *)p;
    case NC_FLOAT: return *(const float *)p;
    default: return *(const double *)p;
  }
}

/* The default fill value of t. */
static long double fill_of(nc_type t) {
  switch (t) {
    case NC_BYTE: return NC_FILL_BYTE;
    case NC_UBYTE: return NC_FILL_UBYTE;
    case NC_SHORT: return NC_FILL_SHORT;
    case NC_USHORT: return NC_FILL_USHORT;
    case NC_INT: return NC_FILL_INT;
    case NC_UINT: return NC_FILL_UINT;
    case NC_INT64: return NC_FILL_INT64;
    case NC_UINT64: return NC_FILL_UINT64;
    case NC_FLOAT: return NC_FILL_FLOAT;
    default: return NC_FILL_DOUBLE;
  }
}

/* A random value of type t: mostly small (many ties), some halves for
 * floats, some NaN/inf, some extremes. */
static long double random_value(nc_type t) {
  uint64_t r = rnd() % 100;
  long double v = (long double)((int)(rnd() % 41) - 20);
  if (is_unsigned(t)) v += 20;
  if (t == NC_FLOAT || t == NC_DOUBLE) {
    if (r < 3) return NAN;
    if (r == 3) return INFINITY;
    if (r == 4) return -INFINITY;
    if (r < 30) v += 0.5L;
  } else if (r < 3) {
    v = t == NC_BYTE ? -128 : t == NC_UBYTE ? 255 : t == NC_INT64 ? -9223372036854775807.0L - 1 : is_unsigned(t) ? 0 : -32768;
  }
  return v;
}

/* A random constant: type and bytes, its exact value in *exact. */
static void random_constant(nc_type var_type, nc_type *ct, unsigned char bytes[8], long double *exact) {
  const long double picks[] = {-10, -5, 0, 5, 10, 0.5L, -0.5L, 300, -300, 1e30L, 20.5L, 40,
                               65535, -2147483648.0L, 18446744073709551615.0L};
  uint64_t r = rnd() % 10;
  long double v;
  if (r < 4) v = (long double)((int)(rnd() % 41) - 20) + (is_unsigned(var_type) ? 20 : 0);
  else if (r < 8) v = picks[rnd() % (sizeof picks / sizeof picks[0])];
  else if (r == 8) v = fill_of(var_type);
  else v = NAN;
  /* A constant type that holds v, else NC_DOUBLE (NaN: a float type). */
  nc_type t = kTypes[rnd() % NVARS];
  unsigned char tmp[8];
  memset(tmp, 0, 8);
  store(t, isnan(v) ? 0 : v, tmp);
  if (isnan(v)) {
    if (t != NC_FLOAT) t = NC_DOUBLE;
    store(t, v, tmp);
  } else if (load(t, tmp) != v) {
    t = NC_DOUBLE;
    store(t, v, tmp);
    if ((long double)*(double *)tmp != v) { /* beyond double: keep the rounded double */
      v = *(double *)tmp;
    }
  }
  *ct = t;
  memset(bytes, 0, 8);
  memcpy(bytes, tmp, (size_t)tsize(t));
  *exact = load(t, bytes);
}

static int cmp(int op, long double v, long double c) {
  if (isnan(v) || isnan(c)) return op == EXA_QUERY_NE;
  switch (op) {
    case EXA_QUERY_EQ: return v == c;
    case EXA_QUERY_NE: return v != c;
    case EXA_QUERY_LT: return v < c;
    case EXA_QUERY_LE: return v <= c;
    case EXA_QUERY_GT: return v > c;
    default: return v >= c;
  }
}

/* A random query over the fixed variables and its expected result over all
 * N elements (expected[i]). */
static int random_query(int ncid, const int *varids, int depth, unsigned char *expected) {
  int qid = -1;
  uint64_t r = rnd() % 10;
  if (depth >= 3 || r < 4) {
    int k = (int)(rnd() % NVARS), op = 1 + (int)(rnd() % 6);
    nc_type ct;
    unsigned char bytes[8];
    long double c;
    random_constant(kTypes[k], &ct, bytes, &c);
    CHECK_OK(exa_query_create(ncid, varids[k], op, ct, bytes, &qid));
    for (int i = 0; i < N; ++i) expected[i] = (unsigned char)cmp(op, model[k][i], c);
    return qid;
  }
  unsigned char *a = malloc(N), *b = malloc(N);
  int q1 = random_query(ncid, varids, depth + 1, a);
  if (r < 6) {
    CHECK_OK(exa_query_not(q1, &qid));
    for (int i = 0; i < N; ++i) expected[i] = !a[i];
  } else {
    int q2 = random_query(ncid, varids, depth + 1, b);
    int how = r < 8 ? EXA_QUERY_AND : EXA_QUERY_OR;
    CHECK_OK(exa_query_combine(q1, how, q2, &qid));
    for (int i = 0; i < N; ++i) expected[i] = how == EXA_QUERY_AND ? (a[i] && b[i]) : (a[i] || b[i]);
    CHECK_OK(exa_query_free(q2));
  }
  CHECK_OK(exa_query_free(q1));
  free(a);
  free(b);
  return qid;
}

/* Evaluates qid on the default split and checks count, hits and a get of
 * the double variable against expected. */
static void check_query(int ncid, int qid, const int *varids, const unsigned char *expected, const char *what) {
  MPI_Offset lo = (MPI_Offset)N * mpi_test_rank / mpi_test_nprocs;
  MPI_Offset hi = (MPI_Offset)N * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset want = 0, nhits = -1;
  for (MPI_Offset i = lo; i < hi; ++i) want += expected[i];
  CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  if (nhits != want) {
    fprintf(stderr, "[rank %d] %s: %lld hits, expected %lld\n", mpi_test_rank, what, (long long)nhits, (long long)want);
    mpi_test_failures++;
    double *dummy = malloc(sizeof(double) * (size_t)(nhits + 1));
    CHECK_OK(exa_query_get(ncid, qid, varids[9], dummy, NC_DOUBLE)); /* stay collective */
    free(dummy);
    return;
  }
  MPI_Offset *coords = malloc(sizeof(MPI_Offset) * (size_t)(nhits + 1));
  double *vals = malloc(sizeof(double) * (size_t)(nhits + 1));
  CHECK_OK(exa_query_hits(ncid, qid, nhits, coords));
  CHECK_OK(exa_query_get(ncid, qid, varids[9], vals, NC_DOUBLE));
  MPI_Offset k = 0;
  for (MPI_Offset i = lo; i < hi; ++i) {
    if (!expected[i]) continue;
    if (coords[k] != i) {
      fprintf(stderr, "[rank %d] %s: hit %lld at %lld, expected %lld\n", mpi_test_rank, what, (long long)k,
              (long long)coords[k], (long long)i);
      mpi_test_failures++;
      break;
    }
    long double m = model[9][i];
    if (!(isnan(m) ? isnan(vals[k]) : (long double)vals[k] == m)) {
      fprintf(stderr, "[rank %d] %s: get at %lld\n", mpi_test_rank, what, (long long)i);
      mpi_test_failures++;
      break;
    }
    ++k;
  }
  free(coords);
  free(vals);
}

/* Random queries, each also through encode/decode. */
static void run_queries(int ncid, const int *varids, const char *what) {
  unsigned char expected[N];
  for (int n = 0; n < NQUERIES; ++n) {
    int qid = random_query(ncid, varids, 0, expected);
    check_query(ncid, qid, varids, expected, what);
    if (n % 4 == 0) {
      MPI_Offset len = 0;
      CHECK_OK(exa_query_encode(qid, NULL, &len));
      unsigned char *buf = malloc((size_t)len);
      CHECK_OK(exa_query_encode(qid, buf, &len));
      int q2 = -1;
      CHECK_OK(exa_query_decode(ncid, buf, len, &q2));
      check_query(ncid, q2, varids, expected, what);
      CHECK_OK(exa_query_free(q2));
      free(buf);
    }
    CHECK_OK(exa_query_free(qid));
  }
}

/* Writes model rows [lo, hi) of var k. */
static void put_fixed(int ncid, int varid, int k, MPI_Offset lo, MPI_Offset hi) {
  unsigned char *buf = malloc((size_t)(hi - lo + 1) * 8);
  for (MPI_Offset i = lo; i < hi; ++i) store(kTypes[k], model[k][i], buf + (i - lo) * tsize(kTypes[k]));
  MPI_Offset start = lo, count = hi - lo;
  CHECK_OK(ncmpi_put_vara_all(ncid, varid, &start, &count, buf, count, mpi_type(kTypes[k])));
  free(buf);
}

static void put_records(int ncid, int rvar, int from, int to) {
  float buf[64 * RECW];
  int lo = from + (to - from) * mpi_test_rank / mpi_test_nprocs;
  int hi = from + (to - from) * (mpi_test_rank + 1) / mpi_test_nprocs;
  for (int r = lo; r < hi; ++r)
    for (int j = 0; j < RECW; ++j) buf[(r - lo) * RECW + j] = (float)rmodel[r][j];
  MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, RECW};
  CHECK_OK(ncmpi_put_vara_float_all(ncid, rvar, start, count, buf));
}

/* r > c on the record variable, default split and a box of one column. */
static void check_records(int ncid, int rvar, float c, const char *what) {
  int qid;
  CHECK_OK(exa_query_create(ncid, rvar, EXA_QUERY_GT, NC_FLOAT, &c, &qid));
  MPI_Offset lo = (MPI_Offset)nrecs * mpi_test_rank / mpi_test_nprocs;
  MPI_Offset hi = (MPI_Offset)nrecs * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset want = 0, nhits = -1;
  for (MPI_Offset r = lo; r < hi; ++r)
    for (int j = 0; j < RECW; ++j) want += cmp(EXA_QUERY_GT, rmodel[r][j], c);
  CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  if (nhits != want) {
    fprintf(stderr, "[rank %d] %s: records %lld hits, expected %lld\n", mpi_test_rank, what, (long long)nhits, (long long)want);
    mpi_test_failures++;
  }
  /* Column 1 of every record, each rank the same box. */
  MPI_Offset start[2] = {0, 1}, count[2] = {nrecs, 1};
  want = 0;
  for (int r = 0; r < nrecs; ++r) want += cmp(EXA_QUERY_GT, rmodel[r][1], c);
  CHECK_OK(exa_query_eval(ncid, qid, start, count, &nhits));
  CHECK(nhits == want);
  MPI_Offset coords[64 * 2];
  if (nhits == want && nhits <= 64) {
    CHECK_OK(exa_query_hits(ncid, qid, nhits, coords));
    int k = 0;
    for (int r = 0; r < nrecs; ++r)
      if (cmp(EXA_QUERY_GT, rmodel[r][1], c)) {
        CHECK(coords[2 * k] == r && coords[2 * k + 1] == 1);
        ++k;
      }
  }
  CHECK_OK(exa_query_free(qid));
}

static void fill_model(void) {
  for (int k = 0; k < NVARS; ++k)
    for (int i = 0; i < N; ++i) model[k][i] = i >= N - 100 ? fill_of(kTypes[k]) : random_value(kTypes[k]);
}

static void run_format(int format, const char *name) {
  int ncid, dim, rdim, wdim, varids[NVARS], rvar;
  const char *path = mpi_test_path(name);
  rng_state = 777;
  fill_model();
  nrecs = 20;
  for (int r = 0; r < 64; ++r)
    for (int j = 0; j < RECW; ++j) rmodel[r][j] = (long double)(float)((int)(rnd() % 200) / 10.0);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | format, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &dim));
  CHECK_OK(ncmpi_def_dim(ncid, "rec", NC_UNLIMITED, &rdim));
  CHECK_OK(ncmpi_def_dim(ncid, "w", RECW, &wdim));
  for (int k = 0; k < NVARS; ++k) {
    char vname[16];
    snprintf(vname, sizeof vname, "v%d", k);
    CHECK_OK(ncmpi_def_var(ncid, vname, kTypes[k], 1, &dim, &varids[k]));
  }
  int rdims[2] = {rdim, wdim};
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 2, rdims, &rvar));
  CHECK_OK(ncmpi_enddef(ncid));
  /* The last 100 elements stay unwritten: fill values. */
  MPI_Offset lo = (MPI_Offset)(N - 100) * mpi_test_rank / mpi_test_nprocs;
  MPI_Offset hi = (MPI_Offset)(N - 100) * (mpi_test_rank + 1) / mpi_test_nprocs;
  for (int k = 0; k < NVARS; ++k) put_fixed(ncid, varids[k], k, lo, hi);
  put_records(ncid, rvar, 0, nrecs);

  run_queries(ncid, varids, "no index");
  check_records(ncid, rvar, 9.5f, "records, no index");

  /* Indexes: equal-weight bins and given edges (constants fall on them), small chunks. */
  for (int k = 0; k < NVARS; ++k)
    CHECK_OK(exa_index_create(ncid, varids[k], k % 2 ? "bins=8;chunk=128" : "edges=-10,-5,0,5,10,20.5;chunk=200"));
  CHECK_OK(exa_index_create(ncid, rvar, "bins=4;chunk=3"));
  int present = -1, current = -1, nbins = -1;
  MPI_Offset bytes = -1;
  CHECK_OK(exa_index_inq(ncid, varids[0], &present, &current, &nbins, &bytes));
  CHECK(present == 1 && current == 1 && nbins == 7 && bytes > 0);
  run_queries(ncid, varids, "index");
  /* Candidates always from the bitmaps (never the whole chunk's values). */
  setenv("EXACDF_QUERY_DENSE_CANDIDATES", "0", 1);
  run_queries(ncid, varids, "index, bitmaps only");
  check_records(ncid, rvar, 9.5f, "records, index, bitmaps only");
  unsetenv("EXACDF_QUERY_DENSE_CANDIDATES");
  check_records(ncid, rvar, 9.5f, "records, index");

  /* Overwrites through this ncid: the chunks written (rows 0-1399) go stale,
   * the others (v3: chunk 11 of 12, rows 1408-1499) are still used. */
  for (int i = 0; i < N - 100; i += 7) model[3][i] = random_value(kTypes[3]);
  for (int i = 0; i < N - 100; i += 5) model[8][i] = random_value(kTypes[8]);
  put_fixed(ncid, varids[3], 3, lo, hi);
  put_fixed(ncid, varids[8], 8, lo, hi);
  CHECK_OK(exa_index_inq(ncid, varids[3], &present, &current, NULL, NULL));
  CHECK(present == 1 && current == 1);
  MPI_Offset nchunks = -1, nstale = -1;
  CHECK_OK(exa_index_inq_chunks(ncid, varids[3], &nchunks, &nstale, NULL, NULL));
  CHECK(nchunks == 12 && nstale == 11);
  run_queries(ncid, varids, "after overwrite");
  /* Appended records. */
  put_records(ncid, rvar, nrecs, nrecs + 10);
  nrecs += 10;
  check_records(ncid, rvar, 9.5f, "records appended");
  CHECK_OK(ncmpi_close(ncid));

  /* The close gave the sidecars this process trusted the file's last
   * fingerprint (every change since was its own): a later process trusts v0's. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_index_inq(ncid, varids[0], &present, &current, NULL, NULL));
  CHECK(present == 1 && current == 1);
  CHECK_OK(ncmpi_close(ncid));
  /* A writer that never looks at the indexes (puts, no query) rewrites v0's values. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  put_fixed(ncid, varids[0], 0, lo, hi);
  CHECK_OK(ncmpi_close(ncid));

  /* Reopened read-only: the file changed after the index of v0 was built. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_index_inq(ncid, varids[0], &present, &current, NULL, NULL));
  CHECK(present == 1 && current == 0);
  run_queries(ncid, varids, "stale sidecars");
  for (int k = 0; k < NVARS; ++k) CHECK_OK(exa_index_create(ncid, varids[k], k % 3 ? "bins=16" : "bins=3;chunk=100"));
  CHECK_OK(exa_index_create(ncid, rvar, "bins=5;chunk=4"));
  CHECK_OK(exa_index_inq(ncid, varids[0], &present, &current, NULL, NULL));
  CHECK(present == 1 && current == 1);
  run_queries(ncid, varids, "rebuilt index");
  setenv("EXACDF_QUERY_DENSE_CANDIDATES", "0", 1);
  run_queries(ncid, varids, "rebuilt index, bitmaps only");
  unsetenv("EXACDF_QUERY_DENSE_CANDIDATES");
  check_records(ncid, rvar, 9.5f, "records, rebuilt");
  check_records(ncid, rvar, 0.0f, "records, rebuilt, all");
  CHECK_OK(ncmpi_close(ncid));

  /* A damaged sidecar (a chunk block, then the header): not used, results still right. */
  if (mpi_test_rank == 0) {
    char side[1400];
    snprintf(side, sizeof side, "%s.exaidx.%d", path, varids[1]);
    FILE *f = fopen(side, "r+b");
    CHECK(f != NULL);
    if (f) {
      fseek(f, -20, SEEK_END);
      fputc(0x5a, f);
      fclose(f);
    }
    snprintf(side, sizeof side, "%s.exaidx.%d", path, varids[2]);
    f = fopen(side, "r+b");
    CHECK(f != NULL);
    if (f) {
      fseek(f, 30, SEEK_SET);
      fputc(0x5a, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_index_inq(ncid, varids[2], &present, &current, NULL, NULL));
  CHECK(present == 0 && current == 0);
  run_queries(ncid, varids, "damaged sidecars");
  CHECK_OK(exa_index_drop(ncid, varids[2]));
  CHECK_OK(exa_index_drop(ncid, varids[2]));
  CHECK_OK(ncmpi_close(ncid));

  /* Changed by a writer that knows nothing of the index: refused by its fingerprint. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  for (int i = 1; i < N - 100; i += 3) model[5][i] = random_value(kTypes[5]);
  put_fixed(ncid, varids[5], 5, lo, hi);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_index_inq(ncid, varids[5], &present, &current, NULL, NULL));
  CHECK(present == 1 && current == 0);
  run_queries(ncid, varids, "changed behind the index");
  CHECK_OK(ncmpi_close(ncid));
}

static void check_errors(void) {
  int ncid, dim, v, c, qid, q2;
  const char *path = mpi_test_path("query_errors.nc");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 10, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &v));
  CHECK_OK(ncmpi_def_var(ncid, "c", NC_CHAR, 1, &dim, &c));
  CHECK_OK(ncmpi_enddef(ncid));
  int one = 1;
  CHECK_ERR(exa_query_create(ncid, c, EXA_QUERY_EQ, NC_INT, &one, &qid), NC_ECHAR);
  CHECK_ERR(exa_query_create(ncid, 99, EXA_QUERY_EQ, NC_INT, &one, &qid), NC_ENOTVAR);
  CHECK_ERR(exa_query_create(ncid, v, 0, NC_INT, &one, &qid), NC_EINVAL);
  CHECK_ERR(exa_query_create(ncid, v, EXA_QUERY_EQ, NC_CHAR, &one, &qid), NC_EINVAL);
  CHECK_ERR(exa_query_create(ncid + 1000, v, EXA_QUERY_EQ, NC_INT, &one, &qid), NC_EBADID);
  CHECK_OK(exa_query_create(ncid, v, EXA_QUERY_EQ, NC_INT, &one, &qid));
  CHECK_ERR(exa_query_combine(qid, 7, qid, &q2), NC_EINVAL);
  CHECK_ERR(exa_query_hits(ncid, qid, 0, NULL), NC_EINVAL); /* not evaluated */
  MPI_Offset start = 5, count = 6, nhits;
  CHECK_ERR(exa_query_eval(ncid, qid, &start, &count, &nhits), NC_EEDGE);
  start = 11;
  count = 0;
  CHECK_ERR(exa_query_eval(ncid, qid, &start, &count, &nhits), NC_EINVALCOORDS);
  CHECK_ERR(exa_query_decode(ncid, "garbage", 7, &q2), NC_EINVAL);
  CHECK_ERR(exa_index_create(ncid, v, "bins=0"), NC_EINVAL);
  CHECK_ERR(exa_index_create(ncid, c, NULL), NC_ECHAR);
  CHECK_OK(exa_query_free(qid));
  CHECK_ERR(exa_query_free(qid), NC_EINVAL);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run_format(NC_64BIT_DATA, "query_cdf5.nc");
  /* Sidecars on a partitioned file too (what this test is about; index
   * blocks inside partitioned files: test_query_infile*.c). */
  setenv("EXACDF_QUERY_SIDECAR", "1", 1);
  run_format(EXA_FORMAT_PARTITIONED, "query_part.nc");
  unsetenv("EXACDF_QUERY_SIDECAR");
  check_errors();
  return mpi_test_finish();
}
