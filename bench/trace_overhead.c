/*
 * trace_overhead.c MODE NPUTS ROUNDS DIR [ONLY] -- many small puts with and without
 * the trace connector, in one process (bench/run_trace_overhead.sh).
 *
 * MODE var1: independent ncmpi_put_var1_int, one int per put;
 *      vara: collective ncmpi_put_vara_int_all, 4 ints per rank per put.
 * NPUTS puts per rank for each configuration, split over ROUNDS files of each;
 * the rounds alternate untraced and traced files (order swapped every round)
 * so that a shared machine's changing load falls on both alike. A traced file
 * is created with the hint exa_connectors=trace{dir=DIR/traces}.
 * Each file is timed from create to close (the trace report written at close
 * included). Rank 0 prints, each the max over ranks of the sums:
 *   untraced_wall traced_wall untraced_cpu traced_cpu   (seconds; cpu: this process)
 * ONLY = untraced or traced runs just that configuration (for instruction
 * counts under valgrind, one process per configuration).
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                             \
  do {                                                                          \
    int err_ = (call);                                                          \
    if (err_ != NC_NOERR) {                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One file of n puts per rank; adds its wall and CPU seconds to t[0], t[1]. */
static void one_file(const char* path, MPI_Info info, int var1, MPI_Offset n, double t[2]) {
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const MPI_Offset width = var1 ? 1 : 4; /* ints per put per rank */
  MPI_Barrier(MPI_COMM_WORLD);
  const double w0 = MPI_Wtime(), c0 = cpu_seconds();
  int ncid, dim, var;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  CHECK(ncmpi_def_dim(ncid, "n", n * nprocs * width, &dim));
  CHECK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &var));
  CHECK(ncmpi_enddef(ncid));
  int values[4] = {1, 2, 3, 4};
  if (var1) {
    CHECK(ncmpi_begin_indep_data(ncid));
    for (MPI_Offset i = 0; i < n; ++i) {
      MPI_Offset at = rank * n + i;
      values[0] = (int)i;
      CHECK(ncmpi_put_var1_int(ncid, var, &at, values));
    }
    CHECK(ncmpi_end_indep_data(ncid));
  } else {
    for (MPI_Offset i = 0; i < n; ++i) {
      MPI_Offset start = (i * nprocs + rank) * width, count = width;
      values[0] = (int)i;
      CHECK(ncmpi_put_vara_int_all(ncid, var, &start, &count, values));
    }
  }
  CHECK(ncmpi_close(ncid));
  t[0] += MPI_Wtime() - w0;
  t[1] += cpu_seconds() - c0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* only = argc == 6 ? argv[5] : "both";
  if (argc < 5 || argc > 6 || (strcmp(only, "both") != 0 && strcmp(only, "untraced") != 0 && strcmp(only, "traced") != 0) ||
      (strcmp(argv[1], "var1") != 0 && strcmp(argv[1], "vara") != 0) || atoi(argv[3]) < 1) {
    if (rank == 0) fprintf(stderr, "usage: trace_overhead var1|vara NPUTS ROUNDS DIR [both|untraced|traced]\n");
    MPI_Finalize();
    return 2;
  }
  const int var1 = strcmp(argv[1], "var1") == 0;
  const int rounds = atoi(argv[3]);
  const MPI_Offset per_file = atoll(argv[2]) / rounds;
  char plain[4096], traced[4096], traces[4096], hint[4200];
  snprintf(plain, sizeof plain, "%s/untraced.nc", argv[4]);
  snprintf(traced, sizeof traced, "%s/traced.nc", argv[4]);
  snprintf(traces, sizeof traces, "%s/traces", argv[4]);
  snprintf(hint, sizeof hint, "trace{dir=%s}", traces);
  MPI_Info trace_info;
  MPI_Info_create(&trace_info);
  MPI_Info_set(trace_info, "exa_connectors", hint);
  double t[2][2] = {{0, 0}, {0, 0}}; /* [traced][wall, cpu] */
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      const int trace_it = (r + k) % 2;
      if ((trace_it && strcmp(only, "untraced") == 0) || (!trace_it && strcmp(only, "traced") == 0)) continue;
      one_file(trace_it ? traced : plain, trace_it ? trace_info : MPI_INFO_NULL, var1, per_file, t[trace_it]);
    }
  }
  double out[4] = {t[0][0], t[1][0], t[0][1], t[1][1]}, max[4];
  MPI_Reduce(out, max, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.6f %.6f %.6f %.6f\n", max[0], max[1], max[2], max[3]);
  MPI_Info_free(&trace_info);
  MPI_Finalize();
  return 0;
}
