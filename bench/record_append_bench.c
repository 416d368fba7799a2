/*
 * record_append_bench.c -- many small puts that each extend the file: records
 * appended one by one, every rank writing its slice of each record.
 *
 *   record_append_bench PATH nb|blocking [records=2000] [per_rank=64]
 *
 * Two record variables (float a[time][x], int b[time][x], x = per_rank x
 * ranks). For each record every rank puts its per_rank values of a and b:
 * "nb": two ncmpi_iput_vara and one ncmpi_wait_all per record; "blocking":
 * two ncmpi_put_vara_all. Each record lies past the end of the file, so every
 * put extends it (MpiFile::extend_before_write makes a 1-byte write first
 * where a sieving read could see past the end). The file is read back after
 * the timed phase and every value checked.
 * CPU time is getrusage(RUSAGE_SELF) user + system of the timed phase, summed
 * over ranks; wall is the max over ranks; writes_1byte is not measured here
 * (strace it).
 *
 * Build (against one library build, so two builds can be paired with
 * bench/run_ab_pairs.sh):
 *   mpicc -O2 -Iinclude bench/record_append_bench.c -L LIBDIR -Wl,-rpath,LIBDIR -lexacdf -o record_append_bench_X
 *
 * Prints one line:
 *   RESULT bench=record_append mode=M ranks=R records=N per_rank=P cpu_s=.. wall_s=.. bad=0
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    int err_ = (call);                                                                     \
    if (err_ != NC_NOERR) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                        \
    }                                                                                      \
  } while (0)

static double cpu_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3 || (strcmp(argv[2], "nb") && strcmp(argv[2], "blocking"))) {
    if (rank == 0) fprintf(stderr, "usage: %s PATH nb|blocking [records] [per_rank]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *path = argv[1];
  const int nb = strcmp(argv[2], "nb") == 0;
  const int records = argc > 3 ? atoi(argv[3]) : 2000, per = argc > 4 ? atoi(argv[4]) : 64;
  int ncid, dim[2], va, vb;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dim[0]));
  CHECK(ncmpi_def_dim(ncid, "x", (MPI_Offset)per * nprocs, &dim[1]));
  CHECK(ncmpi_def_var(ncid, "a", NC_FLOAT, 2, dim, &va));
  CHECK(ncmpi_def_var(ncid, "b", NC_INT, 2, dim, &vb));
  CHECK(ncmpi_enddef(ncid));
  float *fa = malloc(sizeof(float) * (size_t)per);
  int *ib = malloc(sizeof(int) * (size_t)per);
  MPI_Barrier(MPI_COMM_WORLD);
  double c0 = cpu_now(), t0 = MPI_Wtime();
  for (int r = 0; r < records; ++r) {
    for (int k = 0; k < per; ++k) fa[k] = (float)(r * 3 + k) + 0.5f, ib[k] = r * 100000 + rank * per + k;
    MPI_Offset st[2] = {r, (MPI_Offset)rank * per}, ct[2] = {1, per};
    if (nb) {
      int req[2], sts[2];
      CHECK(ncmpi_iput_vara_float(ncid, va, st, ct, fa, &req[0]));
      CHECK(ncmpi_iput_vara_int(ncid, vb, st, ct, ib, &req[1]));
      CHECK(ncmpi_wait_all(ncid, 2, req, sts));
      CHECK(sts[0]);
      CHECK(sts[1]);
    } else {
      CHECK(ncmpi_put_vara_float_all(ncid, va, st, ct, fa));
      CHECK(ncmpi_put_vara_int_all(ncid, vb, st, ct, ib));
    }
  }
  double cpu = cpu_now() - c0, wall = MPI_Wtime() - t0;
  CHECK(ncmpi_close(ncid));
  /* read back and check */
  long long bad = 0;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  for (int r = 0; r < records; ++r) {
    MPI_Offset st[2] = {r, (MPI_Offset)rank * per}, ct[2] = {1, per};
    CHECK(ncmpi_get_vara_float_all(ncid, va, st, ct, fa));
    CHECK(ncmpi_get_vara_int_all(ncid, vb, st, ct, ib));
    for (int k = 0; k < per; ++k)
      bad += fa[k] != (float)(r * 3 + k) + 0.5f || ib[k] != r * 100000 + rank * per + k;
  }
  CHECK(ncmpi_close(ncid));
  double cpu_sum = 0, wall_max = 0;
  long long bad_sum = 0;
  MPI_Reduce(&cpu, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bad, &bad_sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("RESULT bench=record_append mode=%s ranks=%d records=%d per_rank=%d cpu_s=%.4f wall_s=%.4f bad=%lld\n",
           nb ? "nb" : "blocking", nprocs, records, per, cpu_sum, wall_max, bad_sum);
  free(fa), free(ib);
  MPI_Finalize();
  return bad_sum != 0;
}
