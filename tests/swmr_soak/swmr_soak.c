/*
 * SWMR soak (issue 19): a writer job and reader jobs run at once, as separate
 * mpiexec jobs. The writer (any number of ranks) appends one record per
 * commit (put + ncmpi_sync) for N commits, every 50th commit a redef adding an
 * attribute "step". Every record holds f(variable, record, generation): "v"
 * holds f(record, i) and "g" the generation that commits the record, next to
 * the record number. Each reader (any number of ranks) refreshes until it has
 * seen N records and checks every new record: v's values, g's record number,
 * and that g's generation is later than the last generation the reader saw
 * without the record and no later than the one it sees it in; also that
 * generations only increase. It prints how many refreshes, generations and
 * torn values it saw. Exit status 1 on any torn value or decreasing generation.
 *   mpiexec -n 2 swmr_soak write FILE N &  mpiexec -n 1 swmr_soak read FILE N
 */
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define X 16
static int rank, nprocs;
static int f(int rec, int i) { return rec * 37 + i; }
#define ERR(call)                                                                           \
  do {                                                                                      \
    int e_ = (call);                                                                        \
    if (e_ != NC_NOERR) {                                                                   \
      fprintf(stderr, "rank %d line %d: %s\n", rank, __LINE__, ncmpi_strerror(e_));        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                         \
    }                                                                                       \
  } while (0)

static void writer(const char *path, int n) {
  int ncid, d[3], v, g;
  ERR(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL, &ncid));
  ERR(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  ERR(ncmpi_def_dim(ncid, "x", X, &d[1]));
  ERR(ncmpi_def_dim(ncid, "pair", 2, &d[2]));
  ERR(ncmpi_def_var(ncid, "v", NC_INT, 2, d, &v));
  int gd[2] = {d[0], d[2]};
  ERR(ncmpi_def_var(ncid, "g", NC_INT64, 2, gd, &g));
  ERR(ncmpi_enddef(ncid));
  for (int rec = 0; rec < n; rec++) {
    /* The record becomes visible with the next commit: the enddef of the redef below, or the
     * sync. Either is the generation after the one in view now. */
    long long now = 0;
    ERR(exa_inq_generation(ncid, &now, NULL));
    long long stamp[2] = {rec, now + 1};
    MPI_Offset gs[2] = {rec, 0}, gc[2] = {1, rank == 0 ? 2 : 0};
    ERR(ncmpi_put_vara_longlong_all(ncid, g, gs, gc, stamp));
    int vals[X];
    MPI_Offset k = 0;
    for (int i = rank; i < X; i += nprocs) vals[k++] = f(rec, i);
    MPI_Offset start[2] = {rec, rank < X ? rank : 0}, count[2] = {1, k}, stride[2] = {1, nprocs};
    ERR(ncmpi_put_vars_int_all(ncid, v, start, count, stride, vals));
    if (rec % 50 == 49) {
      ERR(ncmpi_redef(ncid));
      ERR(ncmpi_put_att_int(ncid, NC_GLOBAL, "step", NC_INT, 1, &rec));
      ERR(ncmpi_enddef(ncid));
    }
    ERR(ncmpi_sync(ncid));
  }
  ERR(ncmpi_close(ncid));
}

static int reader(const char *path, int n) {
  int ncid = -1, seen = 0;
  long long torn = 0, refreshes = 0, gens = 0, prev = 0, gen = 0, bad_order = 0, misstamped = 0;
  long long last_without = 0; /* the newest generation seen without record `seen` */
  for (int t = 0; t < 100000; t++) { /* the writer may not have created it yet */
    int e = ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &ncid);
    if (e == NC_NOERR) break;
    usleep(10000);
  }
  while (seen < n) {
    ERR(exa_refresh(ncid));
    refreshes++;
    ERR(exa_inq_generation(ncid, &gen, NULL));
    if (gen < prev) bad_order++;
    if (gen > prev) gens++;
    prev = gen;
    MPI_Offset nrec = 0;
    int step = -1;
    ERR(ncmpi_inq_dimlen(ncid, 0, &nrec));
    if (ncmpi_get_att_int(ncid, NC_GLOBAL, "step", &step) == NC_NOERR && step >= nrec) torn++;
    for (int rec = seen; rec < nrec; rec++) {
      int got[X];
      MPI_Offset start[2] = {rec, 0}, count[2] = {1, X};
      ERR(ncmpi_get_vara_int_all(ncid, 0, start, count, got));
      for (int i = 0; i < X; i++) torn += got[i] != f(rec, i);
      long long stamp[2] = {-1, -1};
      MPI_Offset gs[2] = {rec, 0}, gc[2] = {1, 2};
      ERR(ncmpi_get_vara_longlong_all(ncid, 1, gs, gc, stamp));
      torn += stamp[0] != rec;
      /* Committed after the last generation that lacked it, and not after the one in view. */
      misstamped += stamp[1] > gen || stamp[1] <= last_without;
    }
    last_without = gen; /* the generation in view lacks record nrec, the next one to see */
    seen = (int)nrec;
    if (seen < n) usleep(500);
  }
  ERR(ncmpi_close(ncid));
  if (rank == 0 && misstamped)
    printf("reader: %lld records stamped with a generation outside (last without, first with]\n", misstamped);
  torn += misstamped;
  if (rank == 0)
    printf("reader: %d records, %lld refreshes, %lld generations seen, %lld torn values, %lld decreasing\n", seen,
           refreshes, gens, torn, bad_order);
  return torn || bad_order;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: swmr_soak write|read FILE N\n");
    MPI_Finalize();
    return 2;
  }
  int n = atoi(argv[3]), bad = 0;
  if (strcmp(argv[1], "write") == 0) writer(argv[2], n);
  else bad = reader(argv[2], n);
  MPI_Finalize();
  return bad;
}
