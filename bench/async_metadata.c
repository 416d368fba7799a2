/*
 * async_metadata.c NDEFS NATTS [PATH] -- metadata-heavy: NDEFS variables (each
 * a def_var) and NATTS attribute puts in define mode, then enddef and close,
 * timed per operation; run under each stack by EXACDF_CONNECTORS (bench/
 * run_async_metadata.sh). Rank 0 prints (max over ranks, microseconds):
 *   RESULT def_us=.. att_us=.. enddef_close_s=..
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    int e_ = (call);                                                                 \
    if (e_ != NC_NOERR) {                                                            \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(e_));        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
    }                                                                                \
  } while (0)

static double maxd(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int ndefs = argc > 1 ? atoi(argv[1]) : 2000, natts = argc > 2 ? atoi(argv[2]) : 4000;
  const char* path = argc > 3 ? argv[3] : "async_metadata.nc";
  int ncid, dim, varid;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "x", 16, &dim));
  char name[64];
  double t0 = MPI_Wtime();
  for (int i = 0; i < ndefs; ++i) {
    snprintf(name, sizeof name, "v%d", i);
    CHECK(ncmpi_def_var(ncid, name, NC_FLOAT, 1, &dim, &varid));
  }
  double t1 = MPI_Wtime();
  for (int i = 0; i < natts; ++i) {
    snprintf(name, sizeof name, "a%d", i);
    int v = i;
    CHECK(ncmpi_put_att_int(ncid, i % ndefs, name, NC_INT, 1, &v));
  }
  double t2 = MPI_Wtime();
  CHECK(ncmpi_enddef(ncid));
  CHECK(ncmpi_close(ncid));
  double t3 = MPI_Wtime();
  double def_us = maxd((t1 - t0) / ndefs * 1e6), att_us = maxd((t2 - t1) / natts * 1e6);
  double rest = maxd(t3 - t2);
  if (rank == 0) printf("RESULT def_us=%.3f att_us=%.3f enddef_close_s=%.4f\n", def_us, att_us, rest);
  MPI_Finalize();
  return 0;
}
