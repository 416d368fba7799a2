/* The cache connector's first put on a rank other than 0 right after a
 * multi-rank enddef (issue 18). Rank 0 writes the header, and enddef makes no
 * agreement after that write, so another rank may log before the header is in
 * the file. The log's manifest held the digest of the header as read from the
 * file: the read came back short, the log was left without a manifest, the
 * rank wrote every put through (synchronously: 24 s instead of 0.6 s for
 * VPIC-IO at 2 ranks on the throttled tier), and with close=detach recovery
 * refused every rank's log ("not an exacdf cache log"), so none was replayed.
 * Here rank 0's header write is made late (exa_debug_late_writes: 1 s), the
 * other ranks put at once, close=detach leaves the logs (the helper disabled),
 * exa_cache_recover on rank 0 replays them, and every value is checked. */
#include <stdlib.h>

#include "exacdf.h"
#include "exacdf_cache.h"
#include "mpi_test.h"

enum { N = 4096 };

static int value(int step, MPI_Offset i) { return (int)(i * 7 + step); }

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int me = mpi_test_rank, np = mpi_test_nprocs;
  char dir[1200], path[1200], spec[2600];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("tier"));
  snprintf(path, sizeof path, "%s", mpi_test_path("header.nc"));
  setenv("EXACDF_RECOVER_COMMAND", "true", 1); /* the helper does nothing: the logs stay */
  snprintf(spec, sizeof spec, "cache{dir=%s;drain=close;close=detach}", dir);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid, dims[2], v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "step", 2, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "i", (MPI_Offset)N * np, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 2, dims, &v));
  if (me == 0) exa_debug_late_writes(1000);
  CHECK_OK(ncmpi_enddef(ncid));
  if (me == 0) exa_debug_late_writes(0);
  int *vals = malloc(sizeof(int) * N);
  const MPI_Offset first = (MPI_Offset)me * N;
  for (int step = 0; step < 2; ++step) {
    for (MPI_Offset k = 0; k < N; ++k) vals[k] = value(step, first + k);
    MPI_Offset start[2] = {step, first}, count[2] = {1, N};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, start, count, vals));
  }
  CHECK_OK(ncmpi_close(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    int pending = -1;
    CHECK_OK(exa_cache_pending(path, dir, &pending));
    CHECK(pending == np);
    char report[4096];
    CHECK_OK(exa_cache_recover(path, dir, report, sizeof report));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  long bad = 0;
  for (int step = 0; step < 2; ++step) {
    MPI_Offset start[2] = {step, first}, count[2] = {1, N};
    CHECK_OK(ncmpi_get_vara_int_all(ncid, v, start, count, vals));
    for (MPI_Offset k = 0; k < N; ++k) bad += vals[k] != value(step, first + k);
  }
  if (bad) fprintf(stderr, "rank %d: %ld values differ\n", me, bad);
  CHECK(bad == 0);
  CHECK_OK(ncmpi_close(ncid));
  free(vals);
  return mpi_test_finish();
}
