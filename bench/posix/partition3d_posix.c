/*
 * partition3d_posix.c -- the physical ceiling for bench/partition3d.c: the same
 * bytes (tt(Z,Y,X) floats, big-endian, the netCDF data section) of the same
 * decomposition written into one shared file with plain pwrite by every rank,
 * no MPI-IO: one pwrite per contiguous run of the rank's piece in the file
 * (rows of X merged while they follow each other: a Z slab is one call).  No
 * header; data at offset 0.
 *
 * Timed, max over ranks: write = create/open + byte swap into a staging buffer
 * + the pwrites + close; read = open + the preads + swap in place + close.
 * No fsync, as in the library variants.  Every value read is checked (not
 * timed).
 */
#include "posix_io.h"

/* One contiguous byte range of the file and where its bytes sit in the
 * rank's buffer (the piece in C order, so buffer runs are contiguous too). */
typedef struct {
  off_t file;
  size_t mem;
  size_t bytes;
} px_run;

/* The runs of a piece in file order, adjacent ones merged. */
static px_run *runs_of(const long long gdims[3], const p3d_piece *pc, size_t *nruns) {
  size_t rows = (size_t)(pc->count[0] * pc->count[1]);
  px_run *r = (px_run *)bench_malloc(rows * sizeof *r);
  size_t n = 0, row_bytes = (size_t)pc->count[2] * 4, mem = 0;
  for (long long z = 0; z < pc->count[0]; z++)
    for (long long y = 0; y < pc->count[1]; y++, mem += row_bytes) {
      off_t off = (off_t)((((pc->start[0] + z) * gdims[1] + pc->start[1] + y) * gdims[2] + pc->start[2]) * 4);
      if (n > 0 && r[n - 1].file + (off_t)r[n - 1].bytes == off) {
        r[n - 1].bytes += row_bytes;
        continue;
      }
      r[n++] = (px_run){off, mem, row_bytes};
    }
  *nruns = pc->nelems > 0 ? n : 0;
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  p3d_args a = p3d_parse(argc, argv);
  if (rank == 0) printf("# posix: pwrite/pread, one call per contiguous run\n");
  const char *names[P3D_NPATTERNS];
  int npat = p3d_select(a.patterns, names);
  char path[600];
  snprintf(path, sizeof path, "%s/partition3d_posix.dat", a.dir);
  for (int rep = 0; rep < a.reps; rep++)
    for (int p = 0; p < npat; p++) {
      p3d_piece pc = p3d_make_piece(names[p], a.gdims, rank, nprocs);
      size_t n = (size_t)pc.nelems, nruns = 0;
      float *wbuf = (float *)bench_malloc(n * sizeof(float));
      float *stage = (float *)bench_malloc(n * sizeof(float));
      float *rbuf = (float *)bench_malloc(n * sizeof(float));
      p3d_fill(&pc, wbuf);
      memset(rbuf, 0xff, n * sizeof(float));
      /* The staging buffer is touched before the clock starts: its first-touch page
       * faults are the benchmark's allocation, not a cost of the write. */
      memset(stage, 0, n * sizeof(float));
      px_run *runs = runs_of(a.gdims, &pc, &nruns);

      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      int fd = px_create(path);
      bench_to_be(stage, wbuf, n, 4);
      for (size_t k = 0; k < nruns; k++)
        px_pwrite(fd, (const char *)stage + runs[k].mem, runs[k].bytes, runs[k].file);
      px_close(fd);
      double tw = bench_max(MPI_Wtime() - t0);

      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      fd = px_open_read(path);
      for (size_t k = 0; k < nruns; k++)
        px_pread(fd, (char *)rbuf + runs[k].mem, runs[k].bytes, runs[k].file);
      bench_to_be(rbuf, rbuf, n, 4);
      px_close(fd);
      double tr = bench_max(MPI_Wtime() - t0);

      long long bad = p3d_verify(&pc, rbuf);
      p3d_report("posix", names[p], nprocs, &pc, a.gdims, rep, tw, tr, bad);
      free(runs);
      free(wbuf);
      free(stage);
      free(rbuf);
      bench_remove(path, a.keep);
      if (bad) BENCH_DIE("posix pattern %s: %lld values read back wrong", names[p], bad);
    }
  MPI_Finalize();
  return 0;
}
