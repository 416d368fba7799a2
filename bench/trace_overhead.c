/*
 * trace_overhead.c MODE NPUTS PATH -- many small puts, for the trace
 * connector's overhead (bench/run_trace_overhead.sh runs it with and without
 * the trace connector). MODE var1: NPUTS independent ncmpi_put_var1_int per
 * rank; vara: NPUTS collective ncmpi_put_vara_int_all of 4 ints per rank.
 * Prints the seconds from create to close (the trace report included) on rank 0.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                             \
  do {                                                                          \
    int err_ = (call);                                                          \
    if (err_ != NC_NOERR) {                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 4 || (strcmp(argv[1], "var1") != 0 && strcmp(argv[1], "vara") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: trace_overhead var1|vara NPUTS PATH\n");
    MPI_Finalize();
    return 2;
  }
  const int var1 = strcmp(argv[1], "var1") == 0;
  const MPI_Offset nputs = atoll(argv[2]);
  const MPI_Offset width = var1 ? 1 : 4;  /* ints per put per rank */
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  int ncid, dim, var;
  CHECK(ncmpi_create(MPI_COMM_WORLD, argv[3], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "n", nputs * nprocs * width, &dim));
  CHECK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &var));
  CHECK(ncmpi_enddef(ncid));
  int values[4] = {1, 2, 3, 4};
  if (var1) {
    CHECK(ncmpi_begin_indep_data(ncid));
    for (MPI_Offset i = 0; i < nputs; ++i) {
      MPI_Offset at = rank * nputs + i;
      values[0] = (int)i;
      CHECK(ncmpi_put_var1_int(ncid, var, &at, values));
    }
    CHECK(ncmpi_end_indep_data(ncid));
  } else {
    for (MPI_Offset i = 0; i < nputs; ++i) {
      MPI_Offset start = (i * nprocs + rank) * width, count = width;
      values[0] = (int)i;
      CHECK(ncmpi_put_vara_int_all(ncid, var, &start, &count, values));
    }
  }
  CHECK(ncmpi_close(ncid));
  const double t = MPI_Wtime() - t0;
  double slowest = 0;
  MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.6f\n", slowest);
  MPI_Finalize();
  return 0;
}
