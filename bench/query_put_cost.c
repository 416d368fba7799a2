/* CPU time of typed puts (issue 20: what noting each put's value range costs): 256 MiB of
 * floats written by one rank in puts of argv[2] values (default 16 Mi) into one CDF-5
 * variable at argv[1]. Prints CPU seconds (getrusage), wall seconds and task-clock
 * seconds (perf_event_open; -1 when not allowed) of the put loop. argv[3]:
 * "float" (default: floats into a float variable), "int" (ints into an int variable) or
 * "double" (doubles into a float variable: a conversion, 512 MiB of memory values) or "d2d"
 * (doubles into a double variable, 512 MiB). argv[4]: rounds over the 256 MiB (default 1;
 * more make the timed loop longer than the scheduler's noise on a loaded machine).
 * Build against two libexacdf and run alternately (docs/perf/query_minmax.md). */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif
static long N = 16 * 1024 * 1024;
static double cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}
/* The perf task-clock of this process (all its threads) from here on, or -1 where the
 * kernel does not give it: the CPU time `perf stat -e task-clock` counts, in ns. */
static int task_clock_open(void) {
#ifdef __linux__
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.inherit = 1;
  a.exclude_hv = 1;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
#else
  return -1;
#endif
}
static double task_clock(int fd) {
  long long ns = 0;
  if (fd < 0 || read(fd, &ns, sizeof ns) != (ssize_t)sizeof ns) return -1;
  return 1e-9 * (double)ns;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 2) N = atol(argv[2]);
  int reps = (int)((256L << 20) / 4 / N);
  if (argc > 4 && atoi(argv[4]) > 1) reps *= atoi(argv[4]);
  double c0 = 0, w0 = 0, t0 = 0;
  const int tfd = task_clock_open();
  int ncid, dim, v;
  const char *kind = argc > 3 ? argv[3] : "float";
  const int is_int = kind[0] == 'i', is_double = kind[0] == 'd', d2d = strcmp(kind, "d2d") == 0;
  void *buf = malloc((is_double ? sizeof(double) : sizeof(float)) * N);
  for (long i = 0; i < N; ++i) {
    if (is_int) ((int *)buf)[i] = (int)(i % 1000);
    else if (is_double) ((double *)buf)[i] = (double)(i % 1000) * 0.5;
    else ((float *)buf)[i] = (float)(i % 1000) * 0.5f;
  }
  ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid);
  ncmpi_def_dim(ncid, "n", N, &dim);
  ncmpi_def_var(ncid, "e", is_int ? NC_INT : d2d ? NC_DOUBLE : NC_FLOAT, 1, &dim, &v);
  ncmpi_enddef(ncid);
  MPI_Offset start = 0, count = N;
  for (int k = 0; k <= reps; ++k) { /* the first: warm (file allocated) */
    if (k == 1) c0 = cpu(), w0 = MPI_Wtime(), t0 = task_clock(tfd);
    if (is_int) ncmpi_put_vara_int_all(ncid, v, &start, &count, buf);
    else if (is_double) ncmpi_put_vara_double_all(ncid, v, &start, &count, buf);
    else ncmpi_put_vara_float_all(ncid, v, &start, &count, buf);
  }
  double c1 = cpu(), w1 = MPI_Wtime(), t1 = task_clock(tfd);
  ncmpi_close(ncid);
  printf("%.4f %.4f %.4f\n", c1 - c0, w1 - w0, tfd < 0 ? -1.0 : t1 - t0);
  MPI_Finalize();
  return 0;
}
