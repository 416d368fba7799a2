/* Recovery replays records of 64 KiB and more (issue 18). Native swaps a put's
 * values to big-endian in the caller's buffer and back when the put is at
 * least kInPlaceSwapMin (64 KiB) and needs no conversion; recovery passes it
 * the record's values where the log is mapped, and that mapping was read-only,
 * so `exacdf recover` -- and close=detach's helper -- died of SIGSEGV on the
 * first such record (VPIC-IO's 512 KiB puts), leaving the logs and the file
 * without the data. Here: close=detach with the helper disabled leaves every
 * rank's log with puts of 128 KiB (floats and ints, same type as the
 * variable: swapped in place) and of 4 KiB; exa_cache_recover on rank 0
 * replays them; every value is checked, and the log is gone. */
#include <stdlib.h>

#include "exacdf.h"
#include "mpi_test.h"

enum { N = 32768, SMALL = 1024, STEPS = 2 };

static float fvalue(int step, MPI_Offset i) { return (float)(i % 9973) * 0.5f + (float)step * 1000.0f; }
static int ivalue(int step, MPI_Offset i) { return (int)(i * 3 + step); }

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1);
  mpi_test_init(&argc, &argv);
  const int me = mpi_test_rank, np = mpi_test_nprocs;
  char dir[1200], path[1200], spec[2600];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("tier"));
  snprintf(path, sizeof path, "%s", mpi_test_path("large.nc"));
  setenv("EXACDF_RECOVER_COMMAND", "true", 1); /* the helper does nothing: the logs stay */
  snprintf(spec, sizeof spec, "cache{dir=%s;drain=close;close=detach}", dir);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid, dims[2], vf, vi, vs;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "step", STEPS, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "i", (MPI_Offset)N * np, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "f", NC_FLOAT, 2, dims, &vf));
  CHECK_OK(ncmpi_def_var(ncid, "n", NC_INT, 2, dims, &vi));
  CHECK_OK(ncmpi_def_var(ncid, "s", NC_INT, 2, dims, &vs));
  CHECK_OK(ncmpi_enddef(ncid));
  float *f = malloc(sizeof(float) * N);
  int *n = malloc(sizeof(int) * N);
  const MPI_Offset first = (MPI_Offset)me * N;
  for (int step = 0; step < STEPS; ++step) {
    for (MPI_Offset k = 0; k < N; ++k) {
      f[k] = fvalue(step, first + k);
      n[k] = ivalue(step, first + k);
    }
    MPI_Offset start[2] = {step, first}, count[2] = {1, N}, small[2] = {1, SMALL};
    CHECK_OK(ncmpi_put_vara_float_all(ncid, vf, start, count, f));
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vi, start, count, n));
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vs, start, small, n));
  }
  CHECK_OK(ncmpi_close(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    int pending = -1;
    CHECK_OK(exa_cache_pending(path, dir, &pending));
    CHECK(pending == np);
    char report[4096];
    CHECK_OK(exa_cache_recover(path, dir, report, sizeof report));
    CHECK_OK(exa_cache_pending(path, dir, &pending));
    CHECK(pending == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  long bad = 0;
  for (int step = 0; step < STEPS; ++step) {
    MPI_Offset start[2] = {step, first}, count[2] = {1, N};
    CHECK_OK(ncmpi_get_vara_float_all(ncid, vf, start, count, f));
    for (MPI_Offset k = 0; k < N; ++k) bad += f[k] != fvalue(step, first + k);
    CHECK_OK(ncmpi_get_vara_int_all(ncid, vi, start, count, n));
    for (MPI_Offset k = 0; k < N; ++k) bad += n[k] != ivalue(step, first + k);
    MPI_Offset small[2] = {1, SMALL};
    CHECK_OK(ncmpi_get_vara_int_all(ncid, vs, start, small, n));
    for (MPI_Offset k = 0; k < SMALL; ++k) bad += n[k] != ivalue(step, first + k);
  }
  if (bad) fprintf(stderr, "rank %d: %ld values differ\n", me, bad);
  CHECK(bad == 0);
  CHECK_OK(ncmpi_close(ncid));
  free(f);
  free(n);
  return mpi_test_finish();
}
