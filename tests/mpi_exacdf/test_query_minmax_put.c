/* Min/max kept by every put (issue 20): with the default EXACDF_QUERY_MINMAX
 * (unset: "put", docs/perf/query_minmax.md), variables that were never queried
 * nor indexed get per-chunk bounds
 * from the conversion pass of their blocking puts, so the first query after
 * the puts skips chunks (counted with exa_debug_query_values_tested). Every
 * numeric type but text, puts of the variable's own type (the swapping copy,
 * and for a large put the in-place swap; bytes as they are) and of another
 * memory type (the converted values), chunks written by several ranks. A
 * mapped (varm) iput takes the range of the values its post gathers; posted typed puts (iput,
 * bput) take their range at post and count as written once their wait
 * succeeds (a cancelled one does not); flexible puts (bufcount, buftype:
 * a strided MPI datatype, blocking and posted) take theirs from the values
 * gathered for the conversion; varn puts (blocking, iput, bput: several
 * chunks' shares in one call) a range per subarray; and a later session that puts
 * without a query extends the record at its close: the answers stay those of a scan of
 * the values read back. CDF-5 and the partitioned format. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

#include "mpi_test.h"

#define CHUNK 512 /* EXACDF_QUERY_MINMAX_CHUNK */
#define NCHUNKS 8
#define N (CHUNK * NCHUNKS)
#define BIG_CHUNKS 128 /* big: one put per rank of >= 64 KiB (the in-place swap) */
#define BIG (CHUNK * BIG_CHUNKS)

static double values[BIG];
static double buf[BIG];

/* Chunk c holds values in [scale c, scale (c + 0.511)] (integer types: truncated). */
static double value_at(MPI_Offset i, double scale) {
  return scale * (double)(i / CHUNK) + scale * (double)(i % CHUNK) / 1000.0;
}

static long long sum_ll(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* The values of var's rows [start, start + count) as type `type` from `buf`. */
static void put_typed(int ncid, int varid, nc_type type, MPI_Offset start, MPI_Offset count) {
  static signed char b[BIG];
  static unsigned char ub[BIG];
  static short s[BIG];
  static unsigned short us[BIG];
  static int in[BIG];
  static unsigned int ui[BIG];
  static float f[BIG];
  static long long ll[BIG];
  static unsigned long long ull[BIG];
  for (MPI_Offset i = 0; i < count; ++i) {
    b[i] = (signed char)buf[i], ub[i] = (unsigned char)buf[i], s[i] = (short)buf[i];
    us[i] = (unsigned short)buf[i], in[i] = (int)buf[i], ui[i] = (unsigned int)buf[i];
    f[i] = (float)buf[i], ll[i] = (long long)buf[i], ull[i] = (unsigned long long)buf[i];
  }
  switch (type) {
    case NC_BYTE: CHECK_OK(ncmpi_put_vara_schar_all(ncid, varid, &start, &count, b)); break;
    case NC_UBYTE: CHECK_OK(ncmpi_put_vara_uchar_all(ncid, varid, &start, &count, ub)); break;
    case NC_SHORT: CHECK_OK(ncmpi_put_vara_short_all(ncid, varid, &start, &count, s)); break;
    case NC_USHORT: CHECK_OK(ncmpi_put_vara_ushort_all(ncid, varid, &start, &count, us)); break;
    case NC_INT: CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, &start, &count, in)); break;
    case NC_UINT: CHECK_OK(ncmpi_put_vara_uint_all(ncid, varid, &start, &count, ui)); break;
    case NC_FLOAT: CHECK_OK(ncmpi_put_vara_float_all(ncid, varid, &start, &count, f)); break;
    case NC_DOUBLE: CHECK_OK(ncmpi_put_vara_double_all(ncid, varid, &start, &count, buf)); break;
    case NC_INT64: CHECK_OK(ncmpi_put_vara_longlong_all(ncid, varid, &start, &count, ll)); break;
    case NC_UINT64: CHECK_OK(ncmpi_put_vara_ulonglong_all(ncid, varid, &start, &count, ull)); break;
  }
}

/* Every rank writes its share of each chunk: chunks are written by several ranks. */
static void put_chunks(int ncid, int varid, nc_type memtype, int nchunks, double scale) {
  for (int c = 0; c < nchunks; ++c) {
    MPI_Offset lo = CHUNK * mpi_test_rank / mpi_test_nprocs, hi = CHUNK * (mpi_test_rank + 1) / mpi_test_nprocs;
    MPI_Offset start = (MPI_Offset)c * CHUNK + lo;
    for (MPI_Offset i = 0; i < hi - lo; ++i) buf[i] = value_at(start + i, scale);
    put_typed(ncid, varid, memtype, start, hi - lo);
  }
}

/* `var > c` over the default split equals the scan of the values read
 * back; returns the values tested one by one, summed over the ranks. */
static long long check_gt(int ncid, int varid, MPI_Offset n, double c, const char *what) {
  MPI_Offset start = 0, count = n;
  CHECK_OK(ncmpi_get_vara_double_all(ncid, varid, &start, &count, values));
  MPI_Offset lo = n * mpi_test_rank / mpi_test_nprocs, hi = n * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset want = 0;
  for (MPI_Offset i = lo; i < hi; ++i) want += values[i] > c;
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1); /* the record whenever trusted */
  long long before = exa_debug_query_values_tested();
  int qid;
  MPI_Offset nhits = -1;
  CHECK_OK(exa_query_create(ncid, varid, EXA_QUERY_GT, NC_DOUBLE, &c, &qid));
  CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  long long tested = sum_ll(exa_debug_query_values_tested() - before);
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  if (nhits != want) fprintf(stderr, "[rank %d] %s: %lld hits, want %lld\n", mpi_test_rank, what, (long long)nhits, (long long)want);
  CHECK(nhits == want);
  MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * sizeof *coords);
  CHECK_OK(exa_query_hits(ncid, qid, nhits, coords));
  MPI_Offset k = 0;
  for (MPI_Offset i = lo; i < hi && k < nhits; ++i)
    if (values[i] > c) CHECK(coords[k++] == i);
  free(coords);
  CHECK_OK(exa_query_free(qid));
  return tested;
}

static void expect_record(int ncid, int varid, MPI_Offset nchunks, MPI_Offset nbounded, const char *what) {
  MPI_Offset n = -1, b = -1;
  CHECK_OK(exa_index_inq_minmax(ncid, varid, &n, &b));
  if (n != nchunks || b != nbounded)
    fprintf(stderr, "[rank %d] %s: %lld chunks, %lld bounded, want %lld, %lld\n", mpi_test_rank, what, (long long)n,
            (long long)b, (long long)nchunks, (long long)nbounded);
  CHECK(n == nchunks && b == nbounded);
}

static void expect_tested(long long tested, long long want, const char *what) {
  if (tested != want) fprintf(stderr, "[rank %d] %s: %lld values tested, want %lld\n", mpi_test_rank, what, tested, want);
  CHECK(tested == want);
}

#define NTYPES 10
static const nc_type kTypes[NTYPES] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT,
                                       NC_UINT, NC_FLOAT, NC_DOUBLE, NC_INT64, NC_UINT64};

static void run_format(int cmode, const char *name) {
  const char *path = mpi_test_path(name);
  /* Sidecars of an earlier run's file (NC_CLOBBER leaves them): a put into a
   * variable with a sidecar sees its values even when nonblocking. */
  if (mpi_test_rank == 0)
    for (int v = 0; v < 2 * NTYPES + 5; ++v) {
      char sidecar[4096];
      snprintf(sidecar, sizeof sidecar, "%s.exaidx.%d", path, v);
      unlink(sidecar);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  int ncid, dim, bigdim, own[NTYPES], other[NTYPES], big, e, ie, fx, vn;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &dim));
  CHECK_OK(ncmpi_def_dim(ncid, "nbig", BIG, &bigdim));
  for (int t = 0; t < NTYPES; ++t) {
    char vname[32];
    snprintf(vname, sizeof vname, "own%d", (int)kTypes[t]);
    CHECK_OK(ncmpi_def_var(ncid, vname, kTypes[t], 1, &dim, &own[t]));
    snprintf(vname, sizeof vname, "other%d", (int)kTypes[t]);
    CHECK_OK(ncmpi_def_var(ncid, vname, kTypes[t], 1, &dim, &other[t]));
  }
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_FLOAT, 1, &bigdim, &big));
  CHECK_OK(ncmpi_def_var(ncid, "e", NC_DOUBLE, 1, &dim, &e));
  CHECK_OK(ncmpi_def_var(ncid, "ie", NC_FLOAT, 1, &dim, &ie));
  CHECK_OK(ncmpi_def_var(ncid, "fx", NC_DOUBLE, 1, &dim, &fx));
  CHECK_OK(ncmpi_def_var(ncid, "vn", NC_FLOAT, 1, &dim, &vn));
  CHECK_OK(ncmpi_enddef(ncid));

  /* Every variable written whole before any query; bytes at scale 10 (0..75), the others 100. */
  for (int t = 0; t < NTYPES; ++t) {
    const double scale = kTypes[t] == NC_BYTE || kTypes[t] == NC_UBYTE ? 10.0 : 100.0;
    put_chunks(ncid, own[t], kTypes[t], NCHUNKS, scale);
    /* Another memory type: doubles, or ints into a double variable. */
    put_chunks(ncid, other[t], kTypes[t] == NC_DOUBLE ? NC_INT : NC_DOUBLE, NCHUNKS, scale);
  }
  {
    MPI_Offset lo = BIG * mpi_test_rank / mpi_test_nprocs, hi = BIG * (mpi_test_rank + 1) / mpi_test_nprocs;
    for (MPI_Offset i = lo; i < hi; ++i) buf[i - lo] = value_at(i, 100.0);
    put_typed(ncid, big, NC_FLOAT, lo, hi - lo);
  }
  put_chunks(ncid, e, NC_DOUBLE, NCHUNKS, 100.0);
  {
    /* Rank 0 posts a put of 1e6 into e's chunk 0 by a mapped call (varm):
     * its conversion at post takes the gathered values' range, so chunk 0's
     * bounds reach 1e6. */
    MPI_Offset start = 5, count = mpi_test_rank == 0 ? 1 : 0, imap = 1;
    double v = 1e6;
    int req;
    CHECK_OK(ncmpi_iput_varm_double(ncid, e, &start, &count, NULL, &imap, &v, &req));
    int st = NC_NOERR;
    CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &st));
    CHECK_OK(st);
  }

  {
    /* ie (float): written only by posted puts -- iput of floats into even
     * chunks and chunk 7, bput of doubles into the other odd ones, each rank
     * its share of each chunk -- and never queried: their conversion at post
     * took the values' ranges and their successful wait counts their rows as
     * written whole, so the first query skips chunks as after blocking puts.
     * Chunk 7's iput is cancelled: nothing written, no bounds. */
    static float fv[NCHUNKS][CHUNK];
    static double dv[NCHUNKS][CHUNK];
    int reqs[NCHUNKS], sts[NCHUNKS];
    const MPI_Offset lo = CHUNK * mpi_test_rank / mpi_test_nprocs, hi = CHUNK * (mpi_test_rank + 1) / mpi_test_nprocs;
    CHECK_OK(ncmpi_buffer_attach(ncid, (MPI_Offset)sizeof dv));
    for (int c = 0; c < NCHUNKS; ++c) {
      MPI_Offset start = (MPI_Offset)c * CHUNK + lo, count = hi - lo;
      for (MPI_Offset i = 0; i < count; ++i) {
        fv[c][i] = (float)value_at(start + i, 100.0);
        dv[c][i] = value_at(start + i, 100.0);
      }
      if (c % 2 == 0 || c == 7) CHECK_OK(ncmpi_iput_vara_float(ncid, ie, &start, &count, fv[c], &reqs[c]));
      else CHECK_OK(ncmpi_bput_vara_double(ncid, ie, &start, &count, dv[c], &reqs[c]));
    }
    CHECK_OK(ncmpi_cancel(ncid, 1, &reqs[7], &sts[7]));
    CHECK_OK(ncmpi_wait_all(ncid, NCHUNKS - 1, reqs, sts));
    for (int c = 0; c < NCHUNKS - 1; ++c) CHECK_OK(sts[c]);
    CHECK_OK(ncmpi_buffer_detach(ncid));
  }

  {
    /* fx (double): written only by flexible puts of every other value of a
     * buffer (MPI_Type_vector, not contiguous) -- blocking into even chunks,
     * posted into odd ones -- and never queried: the values gathered for
     * their conversion give their ranges, so the first query skips chunks. */
    static double strided[2 * CHUNK];
    int reqs[NCHUNKS], sts[NCHUNKS], n = 0;
    const MPI_Offset lo = CHUNK * mpi_test_rank / mpi_test_nprocs, hi = CHUNK * (mpi_test_rank + 1) / mpi_test_nprocs;
    MPI_Datatype every_other;
    CHECK(MPI_Type_vector((int)(hi - lo), 1, 2, MPI_DOUBLE, &every_other) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS);
    for (int c = 0; c < NCHUNKS; ++c) {
      MPI_Offset start = (MPI_Offset)c * CHUNK + lo, count = hi - lo;
      static double posted[NCHUNKS][2 * CHUNK];
      double *at = c % 2 == 0 ? strided : posted[c];
      for (MPI_Offset i = 0; i < count; ++i) {
        at[2 * i] = value_at(start + i, 100.0);
        at[2 * i + 1] = -1e9; /* skipped by the datatype: never written, never in a range */
      }
      if (c % 2 == 0) CHECK_OK(ncmpi_put_vara_all(ncid, fx, &start, &count, at, 1, every_other));
      else CHECK_OK(ncmpi_iput_vara(ncid, fx, &start, &count, at, 1, every_other, &reqs[n++]));
    }
    CHECK_OK(ncmpi_wait_all(ncid, n, reqs, sts));
    for (int k = 0; k < n; ++k) CHECK_OK(sts[k]);
    CHECK(MPI_Type_free(&every_other) == MPI_SUCCESS);
  }

  {
    /* vn (float): written only by varn calls, each rank its share of four
     * chunks per call -- chunks 0, 2, 4, 6 by a blocking put_varn of doubles,
     * 1 and 3 by an iput_varn of floats, 5 and 7 by a bput_varn -- and never
     * queried: each subarray's range is taken in the conversion. */
    static double dv[4 * CHUNK];
    static float fv[2][2 * CHUNK];
    MPI_Offset starts_v[4][1], counts_v[4][1];
    MPI_Offset *sp[4], *cp[4];
    const MPI_Offset lo = CHUNK * mpi_test_rank / mpi_test_nprocs, hi = CHUNK * (mpi_test_rank + 1) / mpi_test_nprocs;
    for (int k = 0; k < 4; ++k) sp[k] = starts_v[k], cp[k] = counts_v[k];
    int reqs[2], sts[2];
    CHECK_OK(ncmpi_buffer_attach(ncid, (MPI_Offset)sizeof fv[1]));
    for (int call = 0; call < 3; ++call) {
      const int first = call == 0 ? 0 : call == 1 ? 1 : 5, step = call == 0 ? 2 : 2, n = call == 0 ? 4 : 2;
      MPI_Offset at = 0;
      for (int k = 0; k < n; ++k) {
        const int c = first + step * k;
        starts_v[k][0] = (MPI_Offset)c * CHUNK + lo;
        counts_v[k][0] = hi - lo;
        for (MPI_Offset i = 0; i < hi - lo; ++i, ++at) {
          if (call == 0) dv[at] = value_at(starts_v[k][0] + i, 100.0);
          else fv[call - 1][at] = (float)value_at(starts_v[k][0] + i, 100.0);
        }
      }
      if (call == 0) CHECK_OK(ncmpi_put_varn_double_all(ncid, vn, n, sp, cp, dv));
      else if (call == 1) CHECK_OK(ncmpi_iput_varn_float(ncid, vn, n, sp, cp, fv[0], &reqs[0]));
      else CHECK_OK(ncmpi_bput_varn_float(ncid, vn, n, sp, cp, fv[1], &reqs[1]));
    }
    CHECK_OK(ncmpi_wait_all(ncid, 2, reqs, sts));
    CHECK_OK(sts[0]);
    CHECK_OK(sts[1]);
    CHECK_OK(ncmpi_buffer_detach(ncid));
  }

  /* The first query of each: only the chunk that straddles is tested. */
  for (int t = 0; t < NTYPES; ++t) {
    const double scale = kTypes[t] == NC_BYTE || kTypes[t] == NC_UBYTE ? 10.0 : 100.0;
    char what[64];
    snprintf(what, sizeof what, "own type %d", (int)kTypes[t]);
    expect_tested(check_gt(ncid, own[t], N, 3.25 * scale, what), CHUNK, what);
    expect_record(ncid, own[t], NCHUNKS, NCHUNKS, what);
    snprintf(what, sizeof what, "other memory type, type %d", (int)kTypes[t]);
    expect_tested(check_gt(ncid, other[t], N, 3.25 * scale, what), CHUNK, what);
  }
  expect_tested(check_gt(ncid, big, BIG, 100.0 * 64 + 25.0, "big"), CHUNK, "big");
  expect_record(ncid, big, BIG_CHUNKS, BIG_CHUNKS, "big");
  /* e: chunk 0 (with the varm iput's 1e6) straddles 1000 and is scanned; the answer is exact. */
  expect_tested(check_gt(ncid, e, N, 1000.0, "e > 1000"), CHUNK, "e > 1000");
  expect_record(ncid, e, NCHUNKS, NCHUNKS, "e");
  /* ie: chunk 3 straddles, chunk 7 (cancelled: fill values) has no bounds. */
  expect_tested(check_gt(ncid, ie, N, 325.0, "posted puts"), 2 * CHUNK, "posted puts");
  expect_record(ncid, ie, NCHUNKS, NCHUNKS - 1, "posted puts");
  /* fx: chunk 3 straddles; every chunk has bounds (the -1e9 between the values are in none). */
  expect_tested(check_gt(ncid, fx, N, 325.0, "flexible puts"), CHUNK, "flexible puts");
  expect_record(ncid, fx, NCHUNKS, NCHUNKS, "flexible puts");
  expect_tested(check_gt(ncid, fx, N, -1.0, "flexible puts, all above"), 0, "flexible puts, all above");
  /* vn: chunk 3 straddles; every chunk has the bounds of its own subarrays. */
  expect_tested(check_gt(ncid, vn, N, 325.0, "varn puts"), CHUNK, "varn puts");
  expect_record(ncid, vn, NCHUNKS, NCHUNKS, "varn puts");
  CHECK_OK(ncmpi_close(ncid));

  /* A later process trusts the records (the close gave them the file's fingerprint). */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_tested(check_gt(ncid, own[6], N, 325.0, "float reopened"), CHUNK, "float reopened");
  expect_tested(check_gt(ncid, big, BIG, 100.0 * 64 + 25.0, "big reopened"), CHUNK, "big reopened");
  CHECK_OK(ncmpi_close(ncid));

  /* A later session puts without a query (-50 into chunk 3): its close
   * extends the record, current when it opened the file (chunk 3 widened,
   * stale), so every chunk is known to lie above -1000 and none is tested. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  {
    MPI_Offset start = 3 * CHUNK + 1, count = mpi_test_rank == 0 ? 1 : 0;
    double v = -50.0;
    CHECK_OK(ncmpi_put_vara_double_all(ncid, own[7], &start, &count, &v));
  }
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_tested(check_gt(ncid, own[7], N, -1000.0, "extended"), 0, "extended (all above)");
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  unsetenv("EXACDF_QUERY_MINMAX"); /* the default, "put": every put, in its conversion pass */
  mpi_test_init(&argc, &argv);
  setenv("EXACDF_QUERY_MINMAX_CHUNK", "512", 1);
  run_format(NC_64BIT_DATA, "query_minmax_put_cdf5.nc");
  run_format(EXA_FORMAT_PARTITIONED, "query_minmax_put_part.nc");
  return mpi_test_finish();
}
