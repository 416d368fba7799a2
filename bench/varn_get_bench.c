/*
 * varn_get_bench.c -- the CPU cost of varn and iget + wait_all gets of data
 * in the page cache (the path of io::read_segments, which zeroed every byte
 * before reading until 2026-11-25).
 *
 *   varn_get_bench PATH [rows_per_rank=256] [cols=16384] [iters=20] [pieces=16] [read_cols=cols/4]
 *
 * A float variable of rows_per_rank x ranks rows and `cols` columns is written
 * whole (one collective put per rank, its own rows), then, timed, `iters`
 * rounds of: one ncmpi_get_varn_float_all of the rank's rows (their first
 * read_cols columns: runs with gaps, below the direct path's 32 KiB average
 * run at the default) in `pieces` regions, and `pieces` ncmpi_iget_vara_float
 * of the same regions completed by one ncmpi_wait_all. Every value is checked after the timed phase (once).
 * CPU time is getrusage(RUSAGE_SELF) user + system of the timed phase, summed
 * over ranks; wall is the max over ranks.
 *
 * Build (against one library build, so two builds can be paired with
 * bench/run_ab_pairs.sh):
 *   mpicc -O2 -Iinclude bench/varn_get_bench.c -L LIBDIR -Wl,-rpath,LIBDIR -lexacdf -o varn_get_bench_X
 *
 * Prints one line:
 *   RESULT bench=varn_get ranks=R bytes_per_get_rank=B iters=I cpu_s=.. wall_s=.. bad=0
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    int err_ = (call);                                                                   \
    if (err_ != NC_NOERR) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

static double cpu_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

static float value(long long row, long long col) { return (float)(row * 7 + col % 1000); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: %s PATH [rows_per_rank] [cols] [iters] [pieces]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *path = argv[1];
  long long rows = argc > 2 ? atoll(argv[2]) : 256, cols = argc > 3 ? atoll(argv[3]) : 16384;
  int iters = argc > 4 ? atoi(argv[4]) : 20, pieces = argc > 5 ? atoi(argv[5]) : 16;
  const long long rcols = argc > 6 ? atoll(argv[6]) : cols / 4;
  if (rows % pieces != 0) {
    if (rank == 0) fprintf(stderr, "rows_per_rank must be a multiple of pieces\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t n = (size_t)(rows * cols);
  float *buf = malloc(n * sizeof(float));
  float *got = malloc((size_t)(rows * rcols) * sizeof(float));
  int ncid, dim[2], v;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "row", rows * nprocs, &dim[0]));
  CHECK(ncmpi_def_dim(ncid, "col", cols, &dim[1]));
  CHECK(ncmpi_def_var(ncid, "v", NC_FLOAT, 2, dim, &v));
  CHECK(ncmpi_enddef(ncid));
  const long long first = rank * rows;
  for (size_t k = 0; k < n; ++k) buf[k] = value(first + (long long)k / cols, (long long)k % cols);
  MPI_Offset st[2] = {first, 0}, ct[2] = {rows, cols};
  CHECK(ncmpi_put_vara_float_all(ncid, v, st, ct, buf));
  CHECK(ncmpi_sync(ncid));
  /* the regions: `pieces` bands of the rank's rows */
  MPI_Offset *starts[1024], *counts[1024];
  MPI_Offset sv[1024][2], cv[1024][2];
  if (pieces > 1024) pieces = 1024;
  const long long band = rows / pieces;
  for (int p = 0; p < pieces; ++p) {
    sv[p][0] = first + p * band, sv[p][1] = 0, cv[p][0] = band, cv[p][1] = rcols;
    starts[p] = sv[p], counts[p] = cv[p];
  }
  int *reqs = malloc(sizeof(int) * (size_t)pieces), *sts = malloc(sizeof(int) * (size_t)pieces);
  /* one untimed round: the file's pages and the buffers warm */
  CHECK(ncmpi_get_varn_float_all(ncid, v, pieces, starts, counts, got));
  MPI_Barrier(MPI_COMM_WORLD);
  double c0 = cpu_now(), t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    CHECK(ncmpi_get_varn_float_all(ncid, v, pieces, starts, counts, got));
    for (int p = 0; p < pieces; ++p)
      CHECK(ncmpi_iget_vara_float(ncid, v, sv[p], cv[p], got + (size_t)(p * band * rcols), &reqs[p]));
    CHECK(ncmpi_wait_all(ncid, pieces, reqs, sts));
  }
  double cpu = cpu_now() - c0, wall = MPI_Wtime() - t0;
  long long bad = 0;
  for (size_t k = 0; k < (size_t)(rows * rcols); ++k) bad += got[k] != buf[(k / (size_t)rcols) * (size_t)cols + k % (size_t)rcols];
  double cpu_sum = 0, wall_max = 0;
  long long bad_sum = 0;
  MPI_Reduce(&cpu, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bad, &bad_sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  CHECK(ncmpi_close(ncid));
  if (rank == 0)
    printf("RESULT bench=varn_get ranks=%d bytes_per_get_rank=%lld iters=%d pieces=%d cpu_s=%.4f wall_s=%.4f bad=%lld\n",
           nprocs, (long long)(rows * rcols * (long long)sizeof(float)), iters, pieces, cpu_sum, wall_max, bad_sum);
  free(buf), free(got), free(reqs), free(sts);
  MPI_Finalize();
  return bad_sum != 0;
}
