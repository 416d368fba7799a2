/*
 * partition3d_hdf5.c -- bench/partition3d.c written with parallel HDF5: one
 * contiguous dataset tt(Z,Y,X) of floats, each rank's piece a hyperslab,
 * written and read with one collective H5Dwrite / H5Dread (H5Pset_fapl_mpio,
 * H5FD_MPIO_COLLECTIVE).  As a tuned HDF5 program does (and as netCDF's
 * NC_NOFILL, PnetCDF's default): fill time NEVER, so HDF5 does not write fill
 * values at allocation.  The file type is the native (little-endian) float:
 * HDF5 1.10 drops collective I/O when a type conversion is needed, so the
 * natural HDF5 program stores native order; netCDF must store big-endian.
 *
 * Timed, max over ranks: write = H5Fcreate .. H5Fclose; read = H5Fopen ..
 * H5Fclose.  Every value read is checked (not timed).
 */
#include <hdf5.h>

#include "../bench_common.h"

#define HCHECK(expr)                                                 \
  do {                                                               \
    if ((expr) < 0) BENCH_DIE("%s failed", #expr);                   \
  } while (0)

static hid_t fapl_mpio(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  HCHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
  return fapl;
}

static hid_t dxpl_collective(void) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  HCHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  return dxpl;
}

static void select_piece(hid_t fspace, const p3d_piece *pc, hid_t *mspace) {
  hsize_t start[3], count[3];
  for (int a = 0; a < 3; a++) {
    start[a] = (hsize_t)pc->start[a];
    count[a] = (hsize_t)pc->count[a];
  }
  HCHECK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
  *mspace = H5Screate_simple(3, count, NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  p3d_args a = p3d_parse(argc, argv);
  if (rank == 0) {
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("# hdf5: %u.%u.%u\n", maj, min, rel);
  }
  const char *names[P3D_NPATTERNS];
  int npat = p3d_select(a.patterns, names);
  char path[600];
  snprintf(path, sizeof path, "%s/partition3d_hdf5.h5", a.dir);
  hsize_t gd[3] = {(hsize_t)a.gdims[0], (hsize_t)a.gdims[1], (hsize_t)a.gdims[2]};
  for (int rep = 0; rep < a.reps; rep++)
    for (int p = 0; p < npat; p++) {
      p3d_piece pc = p3d_make_piece(names[p], a.gdims, rank, nprocs);
      size_t n = (size_t)pc.nelems;
      float *wbuf = (float *)bench_malloc(n * sizeof(float));
      float *rbuf = (float *)bench_malloc(n * sizeof(float));
      p3d_fill(&pc, wbuf);
      memset(rbuf, 0xff, n * sizeof(float));

      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      hid_t fapl = fapl_mpio();
      hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
      HCHECK(fid);
      hid_t fspace = H5Screate_simple(3, gd, NULL);
      hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
      HCHECK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
      hid_t dset = H5Dcreate2(fid, "tt", H5T_NATIVE_FLOAT, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      HCHECK(dset);
      hid_t mspace;
      select_piece(fspace, &pc, &mspace);
      hid_t dxpl = dxpl_collective();
      HCHECK(H5Dwrite(dset, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, wbuf));
      H5Pclose(dxpl);
      H5Sclose(mspace);
      H5Pclose(dcpl);
      H5Sclose(fspace);
      H5Dclose(dset);
      H5Pclose(fapl);
      HCHECK(H5Fclose(fid));
      double tw = bench_max(MPI_Wtime() - t0);

      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      fapl = fapl_mpio();
      fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
      HCHECK(fid);
      dset = H5Dopen2(fid, "tt", H5P_DEFAULT);
      HCHECK(dset);
      fspace = H5Dget_space(dset);
      select_piece(fspace, &pc, &mspace);
      dxpl = dxpl_collective();
      HCHECK(H5Dread(dset, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, rbuf));
      H5Pclose(dxpl);
      H5Sclose(mspace);
      H5Sclose(fspace);
      H5Dclose(dset);
      H5Pclose(fapl);
      HCHECK(H5Fclose(fid));
      double tr = bench_max(MPI_Wtime() - t0);

      long long bad = p3d_verify(&pc, rbuf);
      p3d_report("hdf5", names[p], nprocs, &pc, a.gdims, rep, tw, tr, bad);
      free(wbuf);
      free(rbuf);
      bench_remove(path, a.keep);
      if (bad) BENCH_DIE("hdf5 pattern %s: %lld values read back wrong", names[p], bad);
    }
  MPI_Finalize();
  return 0;
}
