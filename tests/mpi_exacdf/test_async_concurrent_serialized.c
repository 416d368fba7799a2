/* async{indep=defer} without MPI_THREAD_MULTIPLE (MPI_THREAD_SERIALIZED
 * here): nothing changes. Independent puts run at the call, as before (no
 * pool to run them; progress only inside library calls): none is pending
 * after its put (exa_async_wait's count without threads), no split write ran
 * (exa_debug_concurrent_writes == 0), and the next rank reads them after a
 * plain MPI_Barrier, as with native. */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_test.h"

enum { N = 1024 };

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_test_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_test_nprocs);
  if (argc > 1) {
    snprintf(mpi_test_dir, sizeof mpi_test_dir, "%s", argv[1]);
    if (mpi_test_rank == 0) mkdir(mpi_test_dir, 0755);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  alarm(120);
  (void)mpi_test_init; /* (MPI is initialised above, at MPI_THREAD_SERIALIZED) */
  CHECK(provided < MPI_THREAD_MULTIPLE);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "async{threads=3;indep=defer}");
  int ncid, dx, va, vb;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("conc_serialized.nc"), NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * mpi_test_nprocs, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dx, &va));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 1, &dx, &vb));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  exa_debug_concurrent_writes(1);
  static int ia[N], got[N];
  static signed char cb[N], gotc[N];
  for (int i = 0; i < N; ++i) {
    ia[i] = 1000 * mpi_test_rank + i;
    cb[i] = (signed char)(i % 100 + mpi_test_rank);
  }
  MPI_Offset start = (MPI_Offset)mpi_test_rank * N, count = N;
  int pending = -1;
  CHECK_OK(ncmpi_put_vara_int(ncid, va, &start, &count, ia));
  CHECK_OK(exa_async_wait(ncid, 0, &pending));
  CHECK(pending == 0);
  CHECK_OK(ncmpi_put_vara_schar(ncid, vb, &start, &count, cb));
  CHECK_OK(exa_async_wait(ncid, 0, &pending));
  CHECK(pending == 0);
  CHECK(exa_debug_concurrent_writes(0) == 0);
  MPI_Barrier(MPI_COMM_WORLD); /* the next rank reads what this one wrote */
  const int next = (mpi_test_rank + 1) % mpi_test_nprocs;
  MPI_Offset theirs = (MPI_Offset)next * N;
  CHECK_OK(ncmpi_get_vara_int(ncid, va, &theirs, &count, got));
  CHECK_OK(ncmpi_get_vara_schar(ncid, vb, &theirs, &count, gotc));
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += got[i] != 1000 * next + i || gotc[i] != (signed char)(i % 100 + next);
  CHECK(wrong == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
