/* The async connector's errors: argument errors answered at call time with
 * PnetCDF's codes; a write failing in the background (the failing-write hook,
 * on rank 0, collective puts: the others still write) reported by exa_async_error with its call, arguments and
 * sequence number and returned by the next completing call (ncmpi_sync); a
 * later put overlapping it cancelled with EXA_ECANCELED; a disjoint one
 * still written; the copy buffer never above its mem= bound. */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

enum { kLen = 8 };

static void argument_errors(int ncid, int v) {
  MPI_Offset start = (MPI_Offset)kLen * mpi_test_nprocs + 1, count = 1;
  int x = 0;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &count, &x), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, 99, &start, &count, &x), NC_ENOTVAR);
  CHECK_ERR(ncmpi_put_vara_int(ncid, v, &start, &count, &x), NC_ENOTINDEP);
  start = 0;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &count, NULL), NC_ENULLBUF);
}

static void put_run(int ncid, int varid, MPI_Offset first, MPI_Offset n, int value, int expect) {
  int buf[kLen];
  MPI_Offset start = (MPI_Offset)mpi_test_rank * kLen + first, count = n;
  for (int k = 0; k < n; ++k) buf[k] = value + k;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, varid, &start, &count, buf), expect);
}

int main(int argc, char** argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the background thread calls MPI */
  mpi_test_init(&argc, &argv);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "async{mem=64}");
  int ncid, dim, v, w;
  const char* path = mpi_test_path("async_errors.nc");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)kLen * mpi_test_nprocs, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_INT, 1, &dim, &w));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  {
    MPI_Offset start = 0, count = 1;
    int x = 0;
    CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &count, &x), NC_EINDEFINE);
  }
  CHECK_OK(ncmpi_enddef(ncid));
  argument_errors(ncid, v);

  put_run(ncid, v, 0, 4, 100, NC_NOERR); /* op 1 */
  int pending = -1;
  CHECK_OK(exa_async_wait(ncid, -1, &pending));
  CHECK(pending == 0);
  if (mpi_test_rank == 0) exa_debug_fail_write(1); /* the next write of rank 0 fails */
  put_run(ncid, v, 0, 4, 200, NC_NOERR); /* op 2: fails in the background on rank 0 */
  put_run(ncid, v, 2, 4, 300, NC_NOERR); /* op 3: overlaps op 2: cancelled there */
  put_run(ncid, w, 0, 4, 400, NC_NOERR); /* op 4: disjoint: written */
  CHECK_OK(ncmpi_redef(ncid)); /* a barrier, not a completing call: the error waits */
  CHECK_OK(ncmpi_enddef(ncid));
  exa_debug_fail_write(0);
  CHECK_ERR(ncmpi_sync(ncid), mpi_test_rank == 0 ? NC_EWRITE : NC_NOERR);
  CHECK_OK(exa_async_wait(ncid, 5.0, &pending)); /* reported once */

  exa_async_error_info e;
  memset(&e, 0, sizeof e);
  if (mpi_test_rank == 0) {
    CHECK_OK(exa_async_error(ncid, 0, &e));
    CHECK(e.code == NC_EWRITE);
    CHECK(e.sequence == 2);
    CHECK(strcmp(e.call, "ncmpi_put_vara_int_all") == 0);
    CHECK(strstr(e.args, "varid=0") != NULL && strstr(e.args, "count=[4]") != NULL);
    CHECK(e.time > 0);
    CHECK_OK(exa_async_error(ncid, 1, &e));
    CHECK(e.code == EXA_ECANCELED);
    CHECK(e.sequence == 3);
    CHECK_ERR(exa_async_error(ncid, 2, &e), NC_EINVAL);
    CHECK(strlen(ncmpi_strerror(EXA_ECANCELED)) > 0 && strcmp(ncmpi_strerror(EXA_ECANCELED), "Unknown Error") != 0);
  } else {
    CHECK_ERR(exa_async_error(ncid, 0, &e), NC_EINVAL);
  }

  long long peak = -1;
  CHECK_OK(exa_async_peak_bytes(ncid, &peak));
  CHECK(peak > 0 && peak <= 64);

  /* What the file holds: op 1 (rank 0: op 2 wrote nothing, op 3 cancelled);
   * ops 2 and 3 elsewhere; op 4 everywhere. */
  int got[kLen];
  MPI_Offset start = (MPI_Offset)mpi_test_rank * kLen, count = 6;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &start, &count, got));
  for (int k = 0; k < 6; ++k) {
    int want = mpi_test_rank == 0 ? (k < 4 ? 100 + k : NC_FILL_INT) : (k < 2 ? 200 + k : 300 + k - 2);
    CHECK(got[k] == want);
  }
  count = 4;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, w, &start, &count, got));
  for (int k = 0; k < 4; ++k) CHECK(got[k] == 400 + k);
  CHECK_OK(ncmpi_close(ncid));

  /* A stack without async: nothing pending, no errors. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_async_wait(ncid, 0, &pending));
  CHECK(pending == 0);
  CHECK_ERR(exa_async_error(ncid, 0, &e), NC_EINVAL);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
