/* A soak of the async connector: 1,000 iterations of small collective and
 * independent puts, gets, syncs and application collectives, to catch rare
 * hangs (ctest's TIMEOUT and an alarm here bound it); the values read back at
 * the end are checked. bench/ has the long version (ASYNC_SOAK_ITERS). */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_test.h"

enum { kSlots = 16 };

int main(int argc, char** argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the background thread calls MPI */
  mpi_test_init(&argc, &argv);
  alarm(240); /* a hang fails the test rather than the suite's time */
  const char* env = getenv("ASYNC_SOAK_ITERS");
  int iters = env ? atoi(env) : 1000;

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "async{mem=256}");
  int ncid, dim, v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("soak.nc"), NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)kSlots * mpi_test_nprocs, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  int expect[kSlots] = {0};
  for (int i = 0; i < iters; ++i) {
    MPI_Offset start = (MPI_Offset)mpi_test_rank * kSlots + i % kSlots, count = 1 + (i / kSlots) % 3;
    if (start % kSlots + count > kSlots) count = kSlots - start % kSlots;
    int buf[3] = {i, i + 1, i + 2};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &start, &count, buf));
    for (int k = 0; k < count; ++k) expect[start % kSlots + k] = buf[k];
    if (i % 7 == 3) {
      int got = -1;
      MPI_Offset one = 1;
      CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &start, &one, &got));
      CHECK(got == i);
    }
    if (i % 11 == 5) MPI_Barrier(MPI_COMM_WORLD);
    if (i % 97 == 0) CHECK_OK(ncmpi_sync(ncid));
    if (i % 53 == 0) {
      CHECK_OK(ncmpi_begin_indep_data(ncid));
      CHECK_OK(ncmpi_put_vara_int(ncid, v, &start, &count, buf));
      CHECK_OK(ncmpi_end_indep_data(ncid));
    }
  }
  int got[kSlots];
  MPI_Offset start = (MPI_Offset)mpi_test_rank * kSlots, count = kSlots;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &start, &count, got));
  for (int k = 0; k < kSlots; ++k) CHECK(got[k] == expect[k]);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
