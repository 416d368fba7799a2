/*
 * partition3d.c -- the 3-D partition benchmark of the PnetCDF paper (seed 003,
 * section 5.1): tt(Z,Y,X) of floats partitioned over P ranks along Z, Y, X, ZY,
 * ZX, YX and ZYX (process grid from MPI_Dims_create over the chosen axes),
 * written with ncmpi_put_vara_float_all and read back with
 * ncmpi_get_vara_float_all; every value read is checked.
 *
 * Written against the ncmpi_* API only: the same source builds against exacdf
 * (partition3d_exacdf) and against the system PnetCDF (partition3d_pnetcdf).
 *
 * Timed, max over ranks: write = create + define + enddef + put_vara_all +
 * close; read = open + inq_varid + get_vara_all + close.  Verification and
 * buffer filling are not timed.
 */
#include <pnetcdf.h>

#include "bench_common.h"

#include "bench_ncmpi.h"

static double write_once(const char *path, const long long gdims[3], const p3d_piece *pc,
                         const float *buf) {
  int ncid, dimids[3], varid;
  MPI_Offset start[3], count[3];
  for (int a = 0; a < 3; a++) {
    start[a] = pc->start[a];
    count[a] = pc->count[a];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "Z", gdims[0], &dimids[0]));
  CHECK(ncmpi_def_dim(ncid, "Y", gdims[1], &dimids[1]));
  CHECK(ncmpi_def_dim(ncid, "X", gdims[2], &dimids[2]));
  CHECK(ncmpi_def_var(ncid, "tt", NC_FLOAT, 3, dimids, &varid));
  CHECK(ncmpi_enddef(ncid));
  CHECK(ncmpi_put_vara_float_all(ncid, varid, start, count, buf));
  CHECK(ncmpi_close(ncid));
  return bench_max(MPI_Wtime() - t0);
}

static double read_once(const char *path, const p3d_piece *pc, float *buf) {
  int ncid, varid;
  MPI_Offset start[3], count[3];
  for (int a = 0; a < 3; a++) {
    start[a] = pc->start[a];
    count[a] = pc->count[a];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_inq_varid(ncid, "tt", &varid));
  CHECK(ncmpi_get_vara_float_all(ncid, varid, start, count, buf));
  CHECK(ncmpi_close(ncid));
  return bench_max(MPI_Wtime() - t0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  p3d_args a = p3d_parse(argc, argv);
  if (rank == 0) printf("# %s: %s\n", BENCH_LIB, ncmpi_inq_libvers());
  const char *names[P3D_NPATTERNS];
  int npat = p3d_select(a.patterns, names);
  char path[600];
  snprintf(path, sizeof path, "%s/partition3d_%s.nc", a.dir, BENCH_LIB);
  for (int rep = 0; rep < a.reps; rep++)
    for (int p = 0; p < npat; p++) {
      p3d_piece pc = p3d_make_piece(names[p], a.gdims, rank, nprocs);
      float *wbuf = (float *)bench_malloc((size_t)pc.nelems * sizeof(float));
      float *rbuf = (float *)bench_malloc((size_t)pc.nelems * sizeof(float));
      p3d_fill(&pc, wbuf);
      memset(rbuf, 0xff, (size_t)pc.nelems * sizeof(float));
      double tw = write_once(path, a.gdims, &pc, wbuf);
      double tr = read_once(path, &pc, rbuf);
      long long bad = p3d_verify(&pc, rbuf);
      p3d_report(BENCH_LIB, names[p], nprocs, &pc, a.gdims, rep, tw, tr, bad);
      free(wbuf);
      free(rbuf);
      bench_remove(path, a.keep);
      if (bad) BENCH_DIE("%s pattern %s: %lld values read back wrong", BENCH_LIB, names[p], bad);
    }
  MPI_Finalize();
  return 0;
}
