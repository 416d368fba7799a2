/*
 * create_close_time.c -- the time of a small classic file's life, which is
 * all metadata and agreements: create, define (2 dims, 2 variables, an
 * attribute), enddef, put_vara_all of 1024 ints per rank, close; then open,
 * get_vara_all, close. The file is new each time (rank 0 removes the last one
 * before the timed part). Build against either library (-lexacdf or -lpnetcdf).
 *
 * Run:   mpiexec -n 4 ./create_close_time DIR [REPS]
 * Prints one line on rank 0: the median over REPS of the slowest rank's
 * wall time of create..close and of open..close (microseconds), and this
 * process's CPU time per repetition (user+sys, microseconds, rank 0), e.g.
 *   write_us 812.4 read_us 431.0 cpu_us 1210.7 reps 200
 * bench/run_create_close_time.sh alternates two libraries and reports paired ratios.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define PER 1024

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char path[1024];
  snprintf(path, sizeof path, "%s/create_close_time.nc", argc > 1 ? argv[1] : ".");
  const int reps = argc > 2 ? atoi(argv[2]) : 100;
  double *wt = malloc(sizeof(double) * (size_t)reps), *rt = malloc(sizeof(double) * (size_t)reps);
  static int buf[PER];
  for (int i = 0; i < PER; ++i) buf[i] = rank * PER + i;
  int errors = 0;
  double cpu0 = 0;
  for (int r = -3; r < reps; ++r) { /* 3 warm-up repetitions */
    if (r == 0) cpu0 = cpu_seconds();
    int ncid, dims[2], v, w;
    MPI_Offset start = (MPI_Offset)PER * rank, count = PER;
    if (rank == 0) remove(path); /* a new file each time (no truncate of the last one) */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    errors += ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) != NC_NOERR;
    errors += ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]) != NC_NOERR;
    errors += ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]) != NC_NOERR;
    errors += ncmpi_def_var(ncid, "v", NC_INT, 1, &dims[1], &v) != NC_NOERR;
    errors += ncmpi_def_var(ncid, "w", NC_DOUBLE, 1, &dims[1], &w) != NC_NOERR;
    errors += ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 5, "small") != NC_NOERR;
    errors += ncmpi_enddef(ncid) != NC_NOERR;
    errors += ncmpi_put_vara_int_all(ncid, v, &start, &count, buf) != NC_NOERR;
    errors += ncmpi_close(ncid) != NC_NOERR;
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    errors += ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid) != NC_NOERR;
    errors += ncmpi_inq_varid(ncid, "v", &v) != NC_NOERR;
    errors += ncmpi_get_vara_int_all(ncid, v, &start, &count, buf) != NC_NOERR;
    errors += ncmpi_close(ncid) != NC_NOERR;
    double t3 = MPI_Wtime();
    if (r < 0) continue;
    double mine[2] = {t1 - t0, t3 - t2}, most[2];
    MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    wt[r] = most[0];
    rt[r] = most[1];
  }
  double cpu = cpu_seconds() - cpu0;
  for (int i = 0; i < PER; ++i) errors += buf[i] != rank * PER + i;
  if (rank == 0) {
    qsort(wt, (size_t)reps, sizeof(double), cmp_double);
    qsort(rt, (size_t)reps, sizeof(double), cmp_double);
    printf("write_us %.1f read_us %.1f cpu_us %.1f reps %d\n", 1e6 * wt[reps / 2], 1e6 * rt[reps / 2],
           1e6 * cpu / reps, reps);
  }
  if (errors) fprintf(stderr, "rank %d: %d errors\n", rank, errors);
  free(wt);
  free(rt);
  MPI_Finalize();
  return errors != 0;
}
