/* What an index commit costs in a partitioned file with records (issue 20,
 * docs/format.md "Index blocks"): each commit of index blocks -- here the
 * stale marks a query commits after a put -- closes the current record
 * section and writes anew every block that holds a record variable. The file
 * at argv[1] has a root record variable f(t, 16) and argv[2] groups
 * "/gNNNNN" with one record variable each; f is indexed, then argv[3] rounds
 * of: rank 0 overwrites one row of f and appends one record, then a query
 * (f > 100) on every rank -- with a fourth argument "update", an index
 * update instead of the query (one index commit per round). Prints wall and
 * CPU seconds per round and the bytes the file grew per round.
 *   mpicc bench/query_records_commit.c -Iinclude -Lbuild -lexacdf -Wl,-rpath,$PWD/build -o qrc
 *   mpiexec -n 2 ./qrc /tmp/x.exa 1000 20 [update] */
#include <string.h>
#include <mpi.h>
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define W 16

static double cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void ok(int err, const char *what) {
  if (err == NC_NOERR) return;
  fprintf(stderr, "%s: %s\n", what, ncmpi_strerror(err));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: %s FILE GROUPS ROUNDS\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int groups = atoi(argv[2]), rounds = atoi(argv[3]);
  const int update = argc > 4 && strcmp(argv[4], "update") == 0;
  int ncid, dims[2], f, v;
  ok(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid), "create");
  ok(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]), "dim");
  ok(ncmpi_def_dim(ncid, "w", W, &dims[1]), "dim");
  ok(ncmpi_def_var(ncid, "f", NC_FLOAT, 2, dims, &f), "var");
  for (int g = 0; g < groups; ++g) {
    char name[64];
    snprintf(name, sizeof name, "/g%05d/v", g);
    ok(ncmpi_def_var(ncid, name, NC_FLOAT, 1, dims, &v), "group var");
  }
  ok(ncmpi_enddef(ncid), "enddef");
  float row[W];
  MPI_Offset nrecs = 64;
  for (MPI_Offset r = 0; r < nrecs; ++r) {
    for (int i = 0; i < W; ++i) row[i] = (float)(r * W + i) * 0.25f;
    MPI_Offset start[2] = {r, 0}, count[2] = {rank == 0, W};
    ok(ncmpi_put_vara_float_all(ncid, f, start, count, row), "put");
  }
  ok(exa_index_create(ncid, f, "bins=16;chunk=8"), "index");
  struct stat sb;
  stat(argv[1], &sb);
  const double size0 = (double)sb.st_size;
  MPI_Barrier(MPI_COMM_WORLD);
  const double w0 = MPI_Wtime(), c0 = cpu();
  for (int k = 0; k < rounds; ++k) {
    for (int i = 0; i < W; ++i) row[i] = 1000.0f + (float)k;
    MPI_Offset start[2] = {k % nrecs, 0}, count[2] = {rank == 0, W};
    ok(ncmpi_put_vara_float_all(ncid, f, start, count, row), "overwrite");
    start[0] = nrecs++;
    ok(ncmpi_put_vara_float_all(ncid, f, start, count, row), "append");
    if (update) {
      ok(exa_index_create(ncid, f, "update"), "update");
      continue;
    }
    float c = 100.0f;
    int q;
    MPI_Offset nhits = 0;
    ok(exa_query_create(ncid, f, EXA_QUERY_GT, NC_FLOAT, &c, &q), "query");
    ok(exa_query_eval(ncid, q, NULL, NULL, &nhits), "eval");
    ok(exa_query_free(q), "free");
  }
  const double wall = MPI_Wtime() - w0, mycpu = cpu() - c0;
  double cpu_max = 0;
  MPI_Reduce(&mycpu, &cpu_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  ok(ncmpi_close(ncid), "close");
  stat(argv[1], &sb);
  if (rank == 0)
    printf("groups %d rounds %d%s: %.2f ms wall, %.2f ms CPU (max over ranks) per round; file grew %.0f bytes per round\n",
           groups, rounds, update ? " (update)" : "", 1e3 * wall / rounds, 1e3 * cpu_max / rounds, ((double)sb.st_size - size0) / rounds);
  MPI_Finalize();
  return 0;
}
