/* CPU time of typed puts (issue 20: what noting each put's value range costs): 256 MiB of
 * floats written by one rank in puts of argv[2] values (default 16 Mi) into one CDF-5
 * variable at argv[1]. Prints CPU seconds and wall seconds of the put loop. argv[3]:
 * "float" (default: floats into a float variable), "int" (ints into an int variable) or
 * "double" (doubles into a float variable: a conversion, 512 MiB of memory values) or "d2d"
 * (doubles into a double variable, 512 MiB).
 * Build against two libexacdf and run alternately (docs/perf/query_minmax.md). */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
static long N = 16 * 1024 * 1024;
static double cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 2) N = atol(argv[2]);
  int reps = (int)((256L << 20) / 4 / N);
  double c0 = 0, w0 = 0;
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
    if (k == 1) c0 = cpu(), w0 = MPI_Wtime();
    if (is_int) ncmpi_put_vara_int_all(ncid, v, &start, &count, buf);
    else if (is_double) ncmpi_put_vara_double_all(ncid, v, &start, &count, buf);
    else ncmpi_put_vara_float_all(ncid, v, &start, &count, buf);
  }
  double c1 = cpu(), w1 = MPI_Wtime();
  ncmpi_close(ncid);
  printf("%.4f %.4f\n", c1 - c0, w1 - w0);
  MPI_Finalize();
  return 0;
}
