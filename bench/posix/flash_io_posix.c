/*
 * flash_io_posix.c -- the physical ceiling for bench/flash_io.c: the same data
 * bytes (big-endian) in the same places as flash_io_mpiio.c -- one variable
 * after another, each rank's contiguous range of blocks in each -- written
 * with plain pwrite by every rank into one shared file per kind (checkpoint,
 * centred and corner plot files): one pwrite per variable per rank.  No
 * header, no attributes, no MPI-IO.
 *
 * Packing (guard cells out) and byte swapping are timed as in the other
 * variants; the packed buffer is swapped in place, the precomputed corner
 * data through a staging buffer.  No fsync.
 */
#include "posix_io.h"

enum { CKPT = 0, PLOT_CENTERED = 1, PLOT_CORNER = 2 };
static const char *const kind_names[3] = {"chk", "plt_cnt", "plt_crn"};

/* Writes this rank's blocks of one variable (per_block bytes each) at their
 * place, swapped through stage when given. */
static void put_var(int fd, off_t *var_off, const fl_mesh *m, long long per_block, const void *buf,
                    size_t nelem, int esize, void *stage) {
  const void *out = buf;
  if (stage) {
    bench_to_be(stage, buf, nelem, esize);
    out = stage;
  }
  px_pwrite(fd, out, nelem * (size_t)esize, *var_off + (off_t)(m->first * per_block));
  *var_off += (off_t)(m->tot_blocks * per_block);
}

static double write_file(const char *path, int kind, const fl_mesh *m, void *packbuf, void *stage,
                         double *pack_s) {
  int n = m->nxb + (kind == PLOT_CORNER ? 1 : 0);
  int nvars = kind == CKPT ? FL_NVARS : FL_NPLOT;
  long long cells = (long long)n * n * n;
  double pack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int fd = px_create(path);
  off_t off = 0;
  size_t nb = (size_t)m->lnblocks;
  put_var(fd, &off, m, 4, m->lrefine, nb, 4, stage);
  put_var(fd, &off, m, 4, m->nodetype, nb, 4, stage);
  put_var(fd, &off, m, 4 * FL_NGID, m->gid, nb * FL_NGID, 4, stage);
  put_var(fd, &off, m, 8 * 3, m->coord, nb * 3, 8, stage);
  put_var(fd, &off, m, 8 * 3, m->bsize, nb * 3, 8, stage);
  put_var(fd, &off, m, 8 * 6, m->bnd_box, nb * 6, 8, stage);
  size_t ncell = nb * (size_t)cells;
  for (int v = 0; v < nvars; v++) {
    double tp = MPI_Wtime();
    if (kind == CKPT) {
      fl_pack_double(m, v, (double *)packbuf);
      pack += MPI_Wtime() - tp;
      bench_to_be(packbuf, packbuf, ncell, 8);
      put_var(fd, &off, m, cells * 8, packbuf, ncell, 8, NULL);
    } else if (kind == PLOT_CENTERED) {
      fl_pack_float(m, fl_plot_vars[v], (float *)packbuf);
      pack += MPI_Wtime() - tp;
      bench_to_be(packbuf, packbuf, ncell, 4);
      put_var(fd, &off, m, cells * 4, packbuf, ncell, 4, NULL);
    } else {
      put_var(fd, &off, m, cells * 4, m->corner + (size_t)v * ncell, ncell, 4, stage);
    }
  }
  px_close(fd);
  double t = bench_max(MPI_Wtime() - t0);
  *pack_s = bench_max(pack);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  fl_args a = fl_parse(argc, argv);
  if (rank == 0) printf("# posix: pwrite, one call per variable per rank\n");
  fl_mesh m = fl_make_mesh(a.nxb, a.base);
  size_t maxcells = (size_t)m.lnblocks * (m.nxb + 1) * (m.nxb + 1) * (m.nxb + 1);
  void *packbuf = bench_malloc(maxcells * sizeof(double));
  void *stage = bench_malloc(maxcells * sizeof(double));
  for (int rep = 0; rep < a.reps; rep++) {
    double t[3], pack[3];
    char path[3][600];
    for (int k = 0; k < 3; k++) {
      snprintf(path[k], sizeof path[k], "%s/flash_io_posix_%s.dat", a.dir, kind_names[k]);
      t[k] = write_file(path[k], k, &m, packbuf, stage, &pack[k]);
    }
    fl_report("posix", nprocs, &m, rep, t, pack);
    for (int k = 0; k < 3; k++) bench_remove(path[k], a.keep);
  }
  free(packbuf);
  free(stage);
  fl_free_mesh(&m);
  MPI_Finalize();
  return 0;
}
