/*
 * flash_io_hdf5.c -- bench/flash_io.c written with parallel HDF5, as the
 * original FLASH-IO benchmark does: per file one dataset per variable
 * (tot_blocks, n, n, n), the tree metadata datasets, global attributes on the
 * root group; each rank's contiguous range of blocks is a hyperslab written
 * with one collective H5Dwrite per dataset.  Native (little-endian) types,
 * fill time NEVER (see partition3d_hdf5.c).  Packing of the interior cells is
 * the same code and is timed the same way as in the netCDF version.
 */
#include <hdf5.h>

#include "../bench_common.h"

#define HCHECK(expr)                                                 \
  do {                                                               \
    if ((expr) < 0) BENCH_DIE("%s failed", #expr);                   \
  } while (0)

enum { CKPT = 0, PLOT_CENTERED = 1, PLOT_CORNER = 2 };
static const char *const kind_names[3] = {"chk", "plt_cnt", "plt_crn"};

/* Creates dataset `name` of shape (tot_blocks, dims[1..rank-1]) and writes this
 * rank's blocks from buf collectively. */
static void put_dataset(hid_t fid, hid_t dxpl, const char *name, hid_t type, int rank,
                        const hsize_t *inner, const fl_mesh *m, const void *buf) {
  hsize_t gd[4], start[4] = {0, 0, 0, 0}, count[4];
  gd[0] = (hsize_t)m->tot_blocks;
  count[0] = (hsize_t)m->lnblocks;
  start[0] = (hsize_t)m->first;
  for (int d = 1; d < rank; d++) gd[d] = count[d] = inner[d - 1];
  hid_t fspace = H5Screate_simple(rank, gd, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  HCHECK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
  hid_t dset = H5Dcreate2(fid, name, type, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  HCHECK(dset);
  HCHECK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
  hid_t mspace = H5Screate_simple(rank, count, NULL);
  HCHECK(H5Dwrite(dset, type, mspace, fspace, dxpl, buf));
  H5Sclose(mspace);
  H5Dclose(dset);
  H5Pclose(dcpl);
  H5Sclose(fspace);
}

static void put_attr(hid_t fid, const char *name, hid_t type, const void *v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t at = H5Acreate2(fid, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
  HCHECK(at);
  HCHECK(H5Awrite(at, type, v));
  H5Aclose(at);
  H5Sclose(sp);
}

static void put_text_attr(hid_t fid, const char *name, const char *s) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(s));
  put_attr(fid, name, t, s);
  H5Tclose(t);
}

static double write_file(const char *path, int kind, const fl_mesh *m, void *packbuf, double *pack_s) {
  int nprocs;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int n = m->nxb + (kind == PLOT_CORNER ? 1 : 0);
  int nvars = kind == CKPT ? FL_NVARS : FL_NPLOT;
  double pack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  HCHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
  hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  HCHECK(fid);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  HCHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

  char names[FL_NVARS * 4 + 1];
  names[0] = 0;
  for (int v = 0; v < nvars; v++) strncat(names, fl_var_names[kind == CKPT ? v : fl_plot_vars[v]], 4);
  int ival = (int)m->tot_blocks;
  double time_v = 0.5, dt = 1e-3;
  put_text_attr(fid, "file_creation_time", "2003-11-15 00:00:00");
  put_text_attr(fid, "unknown_names", names);
  put_attr(fid, "total_blocks", H5T_NATIVE_INT, &ival);
  put_attr(fid, "number_of_processors", H5T_NATIVE_INT, &nprocs);
  ival = n;
  put_attr(fid, "nxb", H5T_NATIVE_INT, &ival);
  put_attr(fid, "nyb", H5T_NATIVE_INT, &ival);
  put_attr(fid, "nzb", H5T_NATIVE_INT, &ival);
  put_attr(fid, "time", H5T_NATIVE_DOUBLE, &time_v);
  put_attr(fid, "timestep", H5T_NATIVE_DOUBLE, &dt);

  hsize_t gid_in[1] = {FL_NGID}, nd_in[1] = {FL_NDIM}, bb_in[2] = {FL_NDIM, 2};
  put_dataset(fid, dxpl, "lrefine", H5T_NATIVE_INT, 1, NULL, m, m->lrefine);
  put_dataset(fid, dxpl, "nodetype", H5T_NATIVE_INT, 1, NULL, m, m->nodetype);
  put_dataset(fid, dxpl, "gid", H5T_NATIVE_INT, 2, gid_in, m, m->gid);
  put_dataset(fid, dxpl, "coordinates", H5T_NATIVE_DOUBLE, 2, nd_in, m, m->coord);
  put_dataset(fid, dxpl, "blocksize", H5T_NATIVE_DOUBLE, 2, nd_in, m, m->bsize);
  put_dataset(fid, dxpl, "bnd_box", H5T_NATIVE_DOUBLE, 3, bb_in, m, m->bnd_box);

  hsize_t cell_in[3] = {(hsize_t)n, (hsize_t)n, (hsize_t)n};
  size_t ncell = (size_t)m->lnblocks * n * n * n;
  for (int v = 0; v < nvars; v++) {
    char vn[8];
    snprintf(vn, sizeof vn, "%.4s", fl_var_names[kind == CKPT ? v : fl_plot_vars[v]]);
    for (int c = 3; c > 0 && vn[c] == ' '; c--) vn[c] = 0;
    double tp = MPI_Wtime();
    if (kind == CKPT) {
      fl_pack_double(m, v, (double *)packbuf);
      pack += MPI_Wtime() - tp;
      put_dataset(fid, dxpl, vn, H5T_NATIVE_DOUBLE, 4, cell_in, m, packbuf);
    } else if (kind == PLOT_CENTERED) {
      fl_pack_float(m, fl_plot_vars[v], (float *)packbuf);
      pack += MPI_Wtime() - tp;
      put_dataset(fid, dxpl, vn, H5T_NATIVE_FLOAT, 4, cell_in, m, packbuf);
    } else {
      put_dataset(fid, dxpl, vn, H5T_NATIVE_FLOAT, 4, cell_in, m, m->corner + (size_t)v * ncell);
    }
  }
  H5Pclose(dxpl);
  H5Pclose(fapl);
  HCHECK(H5Fclose(fid));
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
  if (rank == 0) {
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("# hdf5: %u.%u.%u\n", maj, min, rel);
  }
  fl_mesh m = fl_make_mesh(a.nxb, a.base);
  void *packbuf = bench_malloc((size_t)m.lnblocks * m.nxb * m.nxb * m.nxb * sizeof(double));
  for (int rep = 0; rep < a.reps; rep++) {
    double t[3], pack[3];
    char path[3][600];
    for (int k = 0; k < 3; k++) {
      snprintf(path[k], sizeof path[k], "%s/flash_io_hdf5_%s.h5", a.dir, kind_names[k]);
      t[k] = write_file(path[k], k, &m, packbuf, &pack[k]);
    }
    fl_report("hdf5", nprocs, &m, rep, t, pack);
    for (int k = 0; k < 3; k++) bench_remove(path[k], a.keep);
  }
  free(packbuf);
  fl_free_mesh(&m);
  MPI_Finalize();
  return 0;
}
