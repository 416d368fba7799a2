/*
 * The cost of a redef of an SWMR writer's file that already holds NREC
 * records (issue 19: "a new record variable added by redef must not copy the
 * whole record section"). The writer (every rank of the job) creates a
 * partitioned file with EXA_SWMR_WRITE and the hint exa_redef_records=MODE
 * (split: record sections, docs/format.md; copy: the records laid out again),
 * appends NREC records of a (WIDTH ints each) and syncs; then it measures
 *   1. a redef adding a record variable b of 4 ints with fill values
 *      (def_var_fill), and
 *   2. a redef adding one global attribute,
 * each from ncmpi_redef to the return of ncmpi_enddef: bytes written by the
 * job (ncmpi_inq_put_size, summed over the ranks), wall time (max over the
 * ranks) and CPU time of the process (max over the ranks). Then it checks
 * the last record of a and the fill values of b's old records. Rank 0
 * prints one JSON line.
 * Usage: mpiexec -n P swmr_redef_cost FILE NREC WIDTH split|copy
 */
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, nprocs;
#define ERR(call)                                                                   \
  do {                                                                              \
    int e_ = (call);                                                                \
    if (e_ != NC_NOERR) {                                                           \
      fprintf(stderr, "rank %d line %d: %s\n", rank, __LINE__, ncmpi_strerror(e_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                 \
    }                                                                               \
  } while (0)

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long long put_bytes(int ncid) {
  MPI_Offset mine = 0;
  long long m, all = 0;
  ERR(ncmpi_inq_put_size(ncid, &mine));
  m = (long long)mine;
  MPI_Allreduce(&m, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

struct cost {
  long long bytes;
  double wall, cpu;
};

static struct cost measure_begin(int ncid, double *wall0, double *cpu0) {
  struct cost c = {put_bytes(ncid), 0, 0};
  MPI_Barrier(MPI_COMM_WORLD);
  *wall0 = MPI_Wtime();
  *cpu0 = cpu_now();
  return c;
}

static void measure_end(int ncid, struct cost *c, double wall0, double cpu0) {
  double t[2] = {MPI_Wtime() - wall0, cpu_now() - cpu0}, most[2];
  MPI_Allreduce(t, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  c->bytes = put_bytes(ncid) - c->bytes;
  c->wall = most[0];
  c->cpu = most[1];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 5) {
    if (rank == 0) fputs("usage: swmr_redef_cost FILE NREC WIDTH split|copy\n", stderr);
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1], *mode = argv[4];
  const int nrec = atoi(argv[2]), width = atoi(argv[3]);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_redef_records", mode);
  int ncid, d[3], a, b;
  ERR(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &ncid));
  MPI_Info_free(&info);
  ERR(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  ERR(ncmpi_def_dim(ncid, "w", width, &d[1]));
  ERR(ncmpi_def_dim(ncid, "n", 4, &d[2]));
  ERR(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &a));
  ERR(ncmpi_enddef(ncid));
  /* the records: each rank its share of every batch of 256 records */
  const int batch = 256;
  int *vals = malloc(sizeof(int) * (size_t)batch * (size_t)width);
  for (int first = 0; first < nrec; first += batch) {
    const int n = first + batch <= nrec ? batch : nrec - first;
    const int per = (n + nprocs - 1) / nprocs, mine0 = first + rank * per;
    const int mine = mine0 >= first + n ? 0 : (mine0 + per <= first + n ? per : first + n - mine0);
    for (int r = 0; r < mine; r++)
      for (int i = 0; i < width; i++) vals[(size_t)r * width + i] = (mine0 + r) * 7 + i;
    MPI_Offset start[2] = {mine > 0 ? mine0 : 0, 0}, count[2] = {mine, width};
    ERR(ncmpi_put_vara_int_all(ncid, a, start, count, vals));
  }
  ERR(ncmpi_sync(ncid));
  double wall0, cpu0;
  /* 1: a record variable */
  struct cost var = measure_begin(ncid, &wall0, &cpu0);
  ERR(ncmpi_redef(ncid));
  d[1] = d[2];
  ERR(ncmpi_def_var(ncid, "b", NC_INT, 2, d, &b));
  ERR(ncmpi_def_var_fill(ncid, b, 0, NULL));
  ERR(ncmpi_enddef(ncid));
  measure_end(ncid, &var, wall0, cpu0);
  /* 2: an attribute */
  int one = 1;
  struct cost att = measure_begin(ncid, &wall0, &cpu0);
  ERR(ncmpi_redef(ncid));
  ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "stage", NC_INT, 1, &one));
  ERR(ncmpi_enddef(ncid));
  measure_end(ncid, &att, wall0, cpu0);
  /* the values are still right */
  int got[4];
  MPI_Offset start[2] = {nrec - 1, width - 4}, count[2] = {1, 4};
  ERR(ncmpi_get_vara_int_all(ncid, a, start, count, got));
  for (int i = 0; i < 4; i++)
    if (got[i] != (nrec - 1) * 7 + width - 4 + i) {
      fprintf(stderr, "a[%d][%d] = %d\n", nrec - 1, width - 4 + i, got[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  start[1] = 0;
  start[0] = nrec / 2;
  ERR(ncmpi_get_vara_int_all(ncid, b, start, count, got));
  for (int i = 0; i < 4; i++)
    if (got[i] != NC_FILL_INT) {
      fprintf(stderr, "b[%d][%d] = %d, not the fill value\n", nrec / 2, i, got[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  ERR(ncmpi_close(ncid));
  if (rank == 0)
    printf("{\"mode\": \"%s\", \"ranks\": %d, \"nrec\": %d, \"record_bytes\": %d, \"records_bytes\": %lld, "
           "\"var_redef_bytes\": %lld, \"var_redef_wall_s\": %.6f, \"var_redef_cpu_s\": %.6f, "
           "\"att_redef_bytes\": %lld, \"att_redef_wall_s\": %.6f, \"att_redef_cpu_s\": %.6f}\n",
           mode, nprocs, nrec, 4 * width, (long long)nrec * 4 * width, var.bytes, var.wall, var.cpu, att.bytes,
           att.wall, att.cpu);
  free(vals);
  MPI_Finalize();
  return 0;
}
