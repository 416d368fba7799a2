/* Independent puts of one file run at once under async{indep=defer} (the default)
 * (concurrent=on, the default): each split put's writes go through a handle
 * of its own while other puts' writes are in flight (layer/native_split.cpp).
 *   1. two independent puts to disjoint variables, each write held 300 ms
 *      (exa_debug_late_writes): both writes were in flight at once
 *      (exa_debug_concurrent_writes >= 2); also with the defaults
 *      (async{threads=3}); with concurrent=off fewer than 2, with indep=now 0;
 *      the values read back are the ones written (bytes, and ints, whose copy
 *      is swapped to the file's byte order on the pool first);
 *   2. random sequences of independent puts (overlapping and disjoint, two
 *      variables, gets in between) in each rank's own rows: the file is byte
 *      for byte the one native writes, with concurrent=on and =off;
 *   3. a failing write (exa_debug_fail_write) in one of two puts in flight at
 *      once: exactly that put is reported (exa_async_error: NC_EWRITE, its
 *      variable), the other one's values are on disk, and the next completing
 *      call returns the error;
 *   4. bad concurrent= and indep= settings are NC_EINVAL.
 * Needs MPI_THREAD_MULTIPLE (set below). */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_test.h"

enum { N = 4096, kRows = 8, kCols = 64, kOps = 40 };

static int create_with(const char *path, const char *spec) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (spec) MPI_Info_set(info, "exa_connectors", spec);
  int ncid = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  return ncid;
}

/* Two variables of N values per rank, puts of both in flight at once. Returns
 * the most writes in flight at once. */
static int two_puts(const char *spec, nc_type type) {
  int ncid = create_with(mpi_test_path("conc_two.nc"), spec), dx, va, vb;
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * mpi_test_nprocs, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "a", type, 1, &dx, &va));
  CHECK_OK(ncmpi_def_var(ncid, "b", type, 1, &dx, &vb));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  static int ia[N], ib[N], got[N];
  static signed char ca[N], cb[N], gotc[N];
  for (int i = 0; i < N; ++i) {
    ia[i] = 100000 * mpi_test_rank + i + 1;
    ib[i] = -ia[i];
    ca[i] = (signed char)(i % 120 + 1);
    cb[i] = (signed char)-(i % 120 + 1);
  }
  MPI_Offset start = (MPI_Offset)mpi_test_rank * N, count = N;
  exa_debug_concurrent_writes(1);
  exa_debug_late_writes(300);
  if (type == NC_INT) {
    CHECK_OK(ncmpi_put_vara_int(ncid, va, &start, &count, ia));
    CHECK_OK(ncmpi_put_vara_int(ncid, vb, &start, &count, ib));
  } else {
    CHECK_OK(ncmpi_put_vara_schar(ncid, va, &start, &count, ca));
    CHECK_OK(ncmpi_put_vara_schar(ncid, vb, &start, &count, cb));
  }
  CHECK_OK(exa_async_wait(ncid, -1, NULL));
  exa_debug_late_writes(0);
  int peak = exa_debug_concurrent_writes(0);
  if (type == NC_INT) {
    CHECK_OK(ncmpi_get_vara_int(ncid, va, &start, &count, got));
    CHECK(memcmp(got, ia, sizeof ia) == 0);
    CHECK_OK(ncmpi_get_vara_int(ncid, vb, &start, &count, got));
    CHECK(memcmp(got, ib, sizeof ib) == 0);
  } else {
    CHECK_OK(ncmpi_get_vara_schar(ncid, va, &start, &count, gotc));
    CHECK(memcmp(gotc, ca, sizeof ca) == 0);
    CHECK_OK(ncmpi_get_vara_schar(ncid, vb, &start, &count, gotc));
    CHECK(memcmp(gotc, cb, sizeof cb) == 0);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
  return peak;
}

static unsigned next_rand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

/* A random sequence of independent puts (and a few gets) in this rank's rows. */
static void run_sequence(const char *path, const char *spec, unsigned seed) {
  int ncid = create_with(path, spec), dims[2], vi, vb;
  CHECK_OK(ncmpi_def_dim(ncid, "r", (MPI_Offset)kRows * mpi_test_nprocs, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "c", kCols, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "i", NC_INT, 2, dims, &vi));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 2, dims, &vb));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  static int vals[kRows * kCols], got[kRows * kCols];
  static signed char bytes[kRows * kCols];
  unsigned s = seed * 7919u + (unsigned)mpi_test_rank;
  for (int op = 0; op < kOps; ++op) {
    MPI_Offset start[2], count[2];
    start[0] = (MPI_Offset)mpi_test_rank * kRows + next_rand(&s) % kRows;
    count[0] = 1 + next_rand(&s) % (kRows - (start[0] - (MPI_Offset)mpi_test_rank * kRows));
    start[1] = next_rand(&s) % kCols;
    count[1] = 1 + next_rand(&s) % (kCols - start[1]);
    const int n = (int)(count[0] * count[1]);
    unsigned what = next_rand(&s) % 10;
    if (what < 5) {
      for (int k = 0; k < n; ++k) vals[k] = (int)(op * 1000 + k + 1);
      CHECK_OK(ncmpi_put_vara_int(ncid, vi, start, count, vals));
      for (int k = 0; k < n; ++k) vals[k] = -1; /* the copy was taken */
    } else if (what < 9) {
      for (int k = 0; k < n; ++k) bytes[k] = (signed char)((op + k) % 100 + 1);
      CHECK_OK(ncmpi_put_vara_schar(ncid, vb, start, count, bytes));
    } else {
      CHECK_OK(ncmpi_get_vara_int(ncid, vi, start, count, got));
    }
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

static long file_bytes(const char *path, unsigned char **out) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *out = malloc((size_t)n + 1);
  if (fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
  fclose(f);
  return n;
}

static void random_sequences(void) {
  const char *specs[] = {"async{threads=3;indep=defer}", "async{threads=3;indep=defer;concurrent=off}"};
  for (unsigned seed = 1; seed <= 6; ++seed) {
    char native_path[1200];
    snprintf(native_path, sizeof native_path, "%s", mpi_test_path("conc_native.nc"));
    run_sequence(native_path, NULL, seed);
    for (int k = 0; k < 2; ++k) {
      run_sequence(mpi_test_path("conc_async.nc"), specs[k], seed);
      MPI_Barrier(MPI_COMM_WORLD);
      if (mpi_test_rank == 0) {
        unsigned char *a = NULL, *b = NULL;
        long la = file_bytes(native_path, &a), lb = file_bytes(mpi_test_path("conc_async.nc"), &b);
        CHECK(la > 0 && la == lb);
        int same = la == lb && la > 0 && memcmp(a, b, (size_t)la) == 0;
        if (!same) fprintf(stderr, "seed %u, %s: the file differs from native's\n", seed, specs[k]);
        CHECK(same);
        free(a);
        free(b);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
}

static void failing_write(void) {
  int ncid = create_with(mpi_test_path("conc_fail.nc"), "async{threads=3;indep=defer}"), dx, va, vb;
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * mpi_test_nprocs, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_BYTE, 1, &dx, &va));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 1, &dx, &vb));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  static signed char ca[N], cb[N], got[N];
  for (int i = 0; i < N; ++i) {
    ca[i] = (signed char)(i % 120 + 1);
    cb[i] = (signed char)(i % 100 + 3);
  }
  MPI_Offset start = (MPI_Offset)mpi_test_rank * N, count = N;
  exa_debug_concurrent_writes(1);
  exa_debug_late_writes(300);
  /* The second write from now on fails: the first one's is held 300 ms, and
   * the other put's fails meanwhile (a failed write is not held). */
  exa_debug_fail_write(2);
  CHECK_OK(ncmpi_put_vara_schar(ncid, va, &start, &count, ca));
  CHECK_OK(ncmpi_put_vara_schar(ncid, vb, &start, &count, cb));
  CHECK_ERR(exa_async_wait(ncid, -1, NULL), NC_EWRITE);
  exa_debug_late_writes(0);
  exa_debug_fail_write(0);
  CHECK(exa_debug_concurrent_writes(0) >= 2);
  exa_async_error_info info;
  memset(&info, 0, sizeof info);
  CHECK_OK(exa_async_error(ncid, 0, &info));
  CHECK(info.code == NC_EWRITE);
  CHECK_ERR(exa_async_error(ncid, 1, &info), NC_EINVAL); /* only that one */
  const int failed_a = strstr(info.args, "varid=0") != NULL, failed_b = strstr(info.args, "varid=1") != NULL;
  CHECK(failed_a + failed_b == 1);
  CHECK(info.sequence == (failed_a ? 1 : 2));
  CHECK_OK(ncmpi_get_vara_schar(ncid, failed_a ? vb : va, &start, &count, got));
  CHECK(memcmp(got, failed_a ? cb : ca, N) == 0); /* the other one completed */
  CHECK_OK(ncmpi_get_vara_schar(ncid, failed_a ? va : vb, &start, &count, got));
  int filled = 0;
  for (int i = 0; i < N; ++i) filled += got[i] == NC_FILL_BYTE;
  CHECK(filled == N); /* the failed one wrote nothing */
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

static void bad_setting(void) {
  const char *bad[] = {"async{concurrent=maybe}", "async{indep=later}"};
  for (int k = 0; k < 2; ++k) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_connectors", bad[k]);
    int ncid = -1;
    CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("conc_bad.nc"), NC_CLOBBER, info, &ncid), NC_EINVAL);
    MPI_Info_free(&info);
  }
}

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the pool calls MPI */
  mpi_test_init(&argc, &argv);
  alarm(240); /* a hang fails the test rather than the suite's time */
  const char *on = getenv("TEST_CONCURRENT_SPEC") ? getenv("TEST_CONCURRENT_SPEC") : "async{threads=3;indep=defer}";
  int peak = two_puts(on, NC_BYTE);
  if (peak < 2) fprintf(stderr, "[rank %d] bytes: at most %d write(s) at once\n", mpi_test_rank, peak);
  CHECK(peak >= 2);
  peak = two_puts(on, NC_INT);
  if (peak < 2) fprintf(stderr, "[rank %d] ints: at most %d write(s) at once\n", mpi_test_rank, peak);
  CHECK(peak >= 2);
  CHECK(two_puts("async{threads=3;indep=defer;concurrent=off}", NC_BYTE) < 2); /* (not split: 0) */
  CHECK(two_puts(NULL, NC_BYTE) == 0); /* native alone splits nothing */
  CHECK(two_puts("async{threads=3;indep=now}", NC_BYTE) == 0); /* indep=now: none queued */
  CHECK(two_puts("async{threads=3}", NC_BYTE) >= 2); /* indep=defer, concurrent=on: the defaults */
  random_sequences();
  if (!getenv("TEST_CONCURRENT_SPEC")) failing_write();
  bad_setting();
  return mpi_test_finish();
}
