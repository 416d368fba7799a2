/*
 * flash_io.c -- a FLASH-IO-like writer (seed 003 section 5.2, workloads.md):
 * each rank holds base + rank%3 AMR blocks of nxb^3 interior cells with 4 guard
 * cells per side (FLASH-IO: base 80, nxb 8 or 16) and writes a contiguous range
 * of blocks into three files:
 *   checkpoint      24 double variables (tot_blocks, nxb, nxb, nxb) + per-block
 *                   tree metadata + global attributes
 *   plot_centered   4 float variables, cell-centred (tot_blocks, nxb, nxb, nxb)
 *   plot_corner     4 float variables, corner data (tot_blocks, nxb+1, ...)
 * Guard cells stay out of the files: each variable is packed from the guarded
 * in-memory array (FLASH order unk[blk][k][j][i][var]) into a contiguous buffer
 * and written with one collective put, as FLASH does.  Bandwidth = data bytes /
 * (sum over the three files of the max-over-ranks time).
 *
 * Written against the ncmpi_* API only; built against exacdf and PnetCDF.
 */
#include <pnetcdf.h>
#include <time.h>

#include "bench_common.h"
#include "bench_ncmpi.h"

enum { CKPT = 0, PLOT_CENTERED = 1, PLOT_CORNER = 2 };
static const char *const kind_names[3] = {"chk", "plt_cnt", "plt_crn"};

/* Defines the tree metadata variables; ids in order lrefine, nodetype, gid,
 * coordinates, blocksize, bnd_box. */
static void def_tree(int ncid, int dim_blocks, int dim_gid, int dim_ndim, int dim_2, int ids[6]) {
  int d2[2], d3[3];
  CHECK(ncmpi_def_var(ncid, "lrefine", NC_INT, 1, &dim_blocks, &ids[0]));
  CHECK(ncmpi_def_var(ncid, "nodetype", NC_INT, 1, &dim_blocks, &ids[1]));
  d2[0] = dim_blocks;
  d2[1] = dim_gid;
  CHECK(ncmpi_def_var(ncid, "gid", NC_INT, 2, d2, &ids[2]));
  d2[1] = dim_ndim;
  CHECK(ncmpi_def_var(ncid, "coordinates", NC_DOUBLE, 2, d2, &ids[3]));
  CHECK(ncmpi_def_var(ncid, "blocksize", NC_DOUBLE, 2, d2, &ids[4]));
  d3[0] = dim_blocks;
  d3[1] = dim_ndim;
  d3[2] = dim_2;
  CHECK(ncmpi_def_var(ncid, "bnd_box", NC_DOUBLE, 3, d3, &ids[5]));
}

static void put_tree(int ncid, const int ids[6], const fl_mesh *m) {
  MPI_Offset start[3] = {m->first, 0, 0}, count[3] = {m->lnblocks, FL_NGID, 2};
  CHECK(ncmpi_put_vara_int_all(ncid, ids[0], start, count, m->lrefine));
  CHECK(ncmpi_put_vara_int_all(ncid, ids[1], start, count, m->nodetype));
  CHECK(ncmpi_put_vara_int_all(ncid, ids[2], start, count, m->gid));
  count[1] = FL_NDIM;
  CHECK(ncmpi_put_vara_double_all(ncid, ids[3], start, count, m->coord));
  CHECK(ncmpi_put_vara_double_all(ncid, ids[4], start, count, m->bsize));
  CHECK(ncmpi_put_vara_double_all(ncid, ids[5], start, count, m->bnd_box));
}

/* Writes one of the three files; returns its max-over-ranks time and the
 * max-over-ranks packing time inside it. */
static double write_file(const char *path, int kind, const fl_mesh *m, void *packbuf, double *pack_s) {
  int nprocs;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int n = m->nxb + (kind == PLOT_CORNER ? 1 : 0);
  int nvars = kind == CKPT ? FL_NVARS : FL_NPLOT;
  nc_type xtype = kind == CKPT ? NC_DOUBLE : NC_FLOAT;
  double pack = 0;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int ncid, dim_blocks, dim_k, dim_j, dim_i, dim_gid, dim_ndim, dim_2;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "dim_tot_blocks", m->tot_blocks, &dim_blocks));
  CHECK(ncmpi_def_dim(ncid, "dim_nzb", n, &dim_k));
  CHECK(ncmpi_def_dim(ncid, "dim_nyb", n, &dim_j));
  CHECK(ncmpi_def_dim(ncid, "dim_nxb", n, &dim_i));
  CHECK(ncmpi_def_dim(ncid, "dim_NGID", FL_NGID, &dim_gid));
  CHECK(ncmpi_def_dim(ncid, "dim_NDIM", FL_NDIM, &dim_ndim));
  CHECK(ncmpi_def_dim(ncid, "dim_2", 2, &dim_2));

  /* global attributes, as FLASH's header */
  const char *stamp = "2003-11-15 00:00:00";
  int ival = (int)m->tot_blocks;
  double time_v = 0.5, dt = 1e-3;
  char names[FL_NVARS * 4 + 1];
  names[0] = 0;
  for (int v = 0; v < nvars; v++)
    strncat(names, fl_var_names[kind == CKPT ? v : fl_plot_vars[v]], 4);
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "file_creation_time", (MPI_Offset)strlen(stamp), stamp));
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "unknown_names", (MPI_Offset)strlen(names), names));
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "total_blocks", NC_INT, 1, &ival));
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "number_of_processors", NC_INT, 1, &nprocs));
  ival = n;
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "nxb", NC_INT, 1, &ival));
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "nyb", NC_INT, 1, &ival));
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "nzb", NC_INT, 1, &ival));
  CHECK(ncmpi_put_att_double(ncid, NC_GLOBAL, "time", NC_DOUBLE, 1, &time_v));
  CHECK(ncmpi_put_att_double(ncid, NC_GLOBAL, "timestep", NC_DOUBLE, 1, &dt));

  int tree[6], var[FL_NVARS];
  def_tree(ncid, dim_blocks, dim_gid, dim_ndim, dim_2, tree);
  int d4[4] = {dim_blocks, dim_k, dim_j, dim_i};
  for (int v = 0; v < nvars; v++) {
    char vn[8];
    snprintf(vn, sizeof vn, "%.4s", fl_var_names[kind == CKPT ? v : fl_plot_vars[v]]);
    for (int c = 3; c > 0 && vn[c] == ' '; c--) vn[c] = 0;
    CHECK(ncmpi_def_var(ncid, vn, xtype, 4, d4, &var[v]));
  }
  CHECK(ncmpi_enddef(ncid));

  put_tree(ncid, tree, m);
  MPI_Offset start[4] = {m->first, 0, 0, 0}, count[4] = {m->lnblocks, n, n, n};
  size_t ncell = (size_t)m->lnblocks * n * n * n;
  for (int v = 0; v < nvars; v++) {
    double tp = MPI_Wtime();
    if (kind == CKPT) {
      fl_pack_double(m, v, (double *)packbuf);
      pack += MPI_Wtime() - tp;
      CHECK(ncmpi_put_vara_double_all(ncid, var[v], start, count, (const double *)packbuf));
    } else if (kind == PLOT_CENTERED) {
      fl_pack_float(m, fl_plot_vars[v], (float *)packbuf);
      pack += MPI_Wtime() - tp;
      CHECK(ncmpi_put_vara_float_all(ncid, var[v], start, count, (const float *)packbuf));
    } else {
      CHECK(ncmpi_put_vara_float_all(ncid, var[v], start, count, m->corner + (size_t)v * ncell));
    }
  }
  CHECK(ncmpi_close(ncid));
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
  if (rank == 0) printf("# %s: %s\n", BENCH_LIB, ncmpi_inq_libvers());
  fl_mesh m = fl_make_mesh(a.nxb, a.base);
  void *packbuf = bench_malloc((size_t)m.lnblocks * m.nxb * m.nxb * m.nxb * sizeof(double));
  for (int rep = 0; rep < a.reps; rep++) {
    double t[3], pack[3];
    char path[3][600];
    for (int k = 0; k < 3; k++) {
      snprintf(path[k], sizeof path[k], "%s/flash_io_%s_%s.nc", a.dir, BENCH_LIB, kind_names[k]);
      t[k] = write_file(path[k], k, &m, packbuf, &pack[k]);
    }
    fl_report(BENCH_LIB, nprocs, &m, rep, t, pack);
    for (int k = 0; k < 3; k++) bench_remove(path[k], a.keep);
  }
  free(packbuf);
  fl_free_mesh(&m);
  MPI_Finalize();
  return 0;
}
