/* The async connector's pool of threads (async{threads=N}) runs work of one
 * file, and of different files, at the same time, and the result is still
 * the program's:
 *   1. two files, one collective put each into a byte variable (no byte
 *      swap: only calls below): the two files' calls below ran at once
 *      (exa_async_concurrency: process_max >= 2, each file's max 1 -- a
 *      file's calls below never run at once);
 *   2. one file: a put into a byte variable, then collective puts of ints to
 *      disjoint and overlapping regions: their conversion to the file's byte
 *      order ran beside the first put's call below (file_max >= 2), and every
 *      value read back is the last one written;
 *   3. bad settings: threads=0, threads=65, threads=x are NC_EINVAL.
 * EXACDF_ASYNC_HOLD=1 (a testing hook) holds a file's first task until
 * another task of the process runs beside it (at most 10 s), and the program
 * makes the next put once that task runs (file_now), so the overlap the
 * scheduler allows is seen whatever the machine's load; a pool running one
 * task at a time gives a maximum of 1 and fails. */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_test.h"

enum { N = 4096 };

/* Returns once one of the file's tasks runs (held by EXACDF_ASYNC_HOLD). */
static void until_running(int ncid) {
  int now = 0;
  do CHECK_OK(exa_async_concurrency(ncid, &now, NULL, NULL));
  while (now < 1 && mpi_test_failures == 0);
}

static int make_file(const char *name, const char *spec, nc_type type, int *varid) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid, dx;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(name), NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * mpi_test_nprocs, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "v", type, 1, &dx, varid));
  CHECK_OK(ncmpi_enddef(ncid));
  return ncid;
}

static void two_files(void) {
  int va, vb, file_max = -1, process_max = -1;
  int a = make_file("pool_a.nc", "async{threads=2}", NC_BYTE, &va);
  int b = make_file("pool_b.nc", "async{threads=2}", NC_BYTE, &vb);
  static signed char x[N];
  for (int i = 0; i < N; ++i) x[i] = (signed char)(i % 100 + mpi_test_rank);
  MPI_Offset start = (MPI_Offset)mpi_test_rank * N, count = N;
  CHECK_OK(ncmpi_put_vara_schar_all(a, va, &start, &count, x));
  until_running(a);
  CHECK_OK(ncmpi_put_vara_schar_all(b, vb, &start, &count, x));
  CHECK_OK(exa_async_wait(a, -1, NULL));
  CHECK_OK(exa_async_wait(b, -1, NULL));
  CHECK_OK(exa_async_concurrency(a, NULL, &file_max, &process_max));
  CHECK(file_max == 1);
  CHECK(process_max >= 2);
  CHECK_OK(exa_async_concurrency(b, NULL, &file_max, NULL));
  CHECK(file_max == 1);
  static signed char got[N];
  CHECK_OK(ncmpi_get_vara_schar_all(a, va, &start, &count, got));
  CHECK(memcmp(got, x, N) == 0);
  CHECK_OK(ncmpi_get_vara_schar_all(b, vb, &start, &count, got));
  CHECK(memcmp(got, x, N) == 0);
  CHECK_OK(ncmpi_close(a));
  CHECK_OK(ncmpi_close(b));
}

static void one_file(void) {
  int v, vb, dx, file_max = -1;
  int ncid = make_file("pool_one.nc", "async{threads=3}", NC_INT, &v);
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_inq_dimid(ncid, "x", &dx));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 1, &dx, &vb));
  CHECK_OK(ncmpi_enddef(ncid));
  static int vals[N], expect[N], got[N];
  static signed char bytes[N];
  const MPI_Offset base = (MPI_Offset)mpi_test_rank * N;
  MPI_Offset whole = N;
  CHECK_OK(ncmpi_put_vara_schar_all(ncid, vb, &base, &whole, bytes));
  until_running(ncid);
  /* Halves alternate (disjoint), every third put covers both (overlapping). */
  for (int k = 0; k < 12; ++k) {
    MPI_Offset start = base + (k % 2) * (N / 2), count = N / 2;
    if (k % 3 == 2) start = base + N / 4;
    for (int i = 0; i < count; ++i) {
      vals[i] = 1000 * k + i + 7 * mpi_test_rank;
      expect[start - base + i] = vals[i];
    }
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &start, &count, vals));
  }
  CHECK_OK(exa_async_wait(ncid, -1, NULL));
  CHECK_OK(exa_async_concurrency(ncid, NULL, &file_max, NULL));
  CHECK(file_max >= 2);
  MPI_Offset count = N;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &base, &count, got));
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += got[i] != expect[i];
  CHECK(wrong == 0);
  CHECK_OK(ncmpi_close(ncid));
}

static void bad_settings(void) {
  const char *bad[] = {"async{threads=0}", "async{threads=65}", "async{threads=x}"};
  for (int k = 0; k < 3; ++k) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_connectors", bad[k]);
    int ncid = -1;
    CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("pool_bad.nc"), NC_CLOBBER, info, &ncid), NC_EINVAL);
    MPI_Info_free(&info);
  }
}

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the pool calls MPI */
  setenv("EXACDF_ASYNC_HOLD", "1", 1);
  mpi_test_init(&argc, &argv);
  alarm(120); /* a hang fails the test rather than the suite's time */
  two_files();
  one_file();
  bad_settings();
  return mpi_test_finish();
}
