/* The HDF5 counterparts of the seed-002 benchmark, with Debian's parallel
 * HDF5: Baseline_HDF5 (every rank creates the file with the MPI-IO driver and
 * writes its hyperslab of a contiguous 2-D uint64 dataset, HDF5's defaults)
 * and HDF5-OPT (Table 1: O1 tiny gather, O2 rank-0 create then parallel
 * collective write, O3 early allocation without fill, O4 contiguous or
 * chunked + deflate(1) by size and skew, O5 ROMIO hints by size tier, O6
 * alignment and sieve buffer tiers, O7 skew phases via MPI_Comm_split).
 * Also usable as an HDF5 export of a relation's rows. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ckpt_io.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

static int bad(const char *what) {
  fprintf(stderr, "tc: HDF5 %s failed\n", what);
  return -1;
}

/* The durability every other writer has (fsync / MPI_File_sync): a file one
 * rank wrote with HDF5's serial (sec2) driver, which never syncs, is fsynced
 * after H5Fclose. */
static int fsync_file(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return bad("open for fsync");
  int rc = fsync(fd) == 0 ? 0 : bad("fsync");
  close(fd);
  return rc;
}

static hid_t file_access(MPI_Comm comm, int opt, double total, int nprocs, double ratio) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (comm != MPI_COMM_NULL) {
    MPI_Info info = MPI_INFO_NULL;
    if (opt) { /* O5 */
      MPI_Info_create(&info);
      int cb = total < GIB ? nprocs / 4 : total <= 10 * GIB ? nprocs / 8 : nprocs / 16;
      int cap = total < GIB ? 64 : total <= 10 * GIB ? 32 : 16;
      cb = cb > cap ? cap : cb < 1 ? 1 : cb;
      double buf = (total <= 10 * GIB ? 4 * GIB : 8 * GIB) / nprocs;
      buf = buf < 32 * MIB ? 32 * MIB : buf > 512 * MIB ? 512 * MIB : buf;
      char v[32];
      snprintf(v, sizeof v, "%d", cb);
      MPI_Info_set(info, "cb_nodes", v);
      snprintf(v, sizeof v, "%.0f", buf);
      MPI_Info_set(info, "cb_buffer_size", v);
      MPI_Info_set(info, "romio_cb_write", "enable");
      MPI_Info_set(info, "romio_ds_write", "disable");
    }
    H5Pset_fapl_mpio(fapl, comm, info);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  }
  if (opt) { /* O6: alignment threshold / alignment, sieve buffer */
    double th = 4 * 1024, al = 16 * 1024;
    if (total >= 10 * MIB) th = 4 * MIB, al = 16 * MIB;
    if (total >= GIB) th = 8 * MIB, al = 32 * MIB;
    if (total > 10 * GIB) th = 16 * MIB, al = 64 * MIB;
    H5Pset_alignment(fapl, (hsize_t)th, (hsize_t)al);
    H5Pset_sieve_buf_size(fapl, (size_t)(total < GIB ? 32 * MIB : 256 * MIB));
  }
  (void)ratio;
  return fapl;
}

/* Creates the dataset (O3, O4 when opt). */
static hid_t create_dataset(hid_t file, const char *name, int opt, int cols, uint64_t total, double bytes,
                            double ratio) {
  hsize_t dims[2] = {total, (hsize_t)cols};
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (opt) {
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY); /* O3 */
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    const int contiguous = bytes < 10 * MIB || bytes > 10 * GIB || ratio > 10 || total == 0; /* O4 */
    if (!contiguous) {
      hsize_t h = total > 1000000 ? 65536 : total >= 100000 ? 32768 : 8192;
      if (h > total) h = total;
      hsize_t chunk[2] = {h, (hsize_t)cols};
      H5Pset_chunk(dcpl, 2, chunk);
      H5Pset_deflate(dcpl, 1);
    }
  }
  hid_t d = H5Dcreate2(file, name, H5T_NATIVE_UINT64, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

static int write_rows(hid_t d, int collective, int cols, uint64_t n, uint64_t offset, const uint64_t *rows) {
  hid_t fspace = H5Dget_space(d);
  hsize_t start[2] = {offset, 0}, count[2] = {n, (hsize_t)cols};
  if (n > 0) H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
  else H5Sselect_none(fspace);
  hid_t mspace = H5Screate_simple(2, count, NULL);
  if (n == 0) H5Sselect_none(mspace);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (collective) H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  herr_t e = H5Dwrite(d, H5T_NATIVE_UINT64, mspace, fspace, dxpl, rows);
  H5Pclose(dxpl);
  H5Sclose(mspace);
  H5Sclose(fspace);
  return e < 0 ? bad("H5Dwrite") : 0;
}

int tc_hdf5_write(MPI_Comm comm, const char *path, const char *name, int opt, int cols, uint64_t nlocal,
                  uint64_t offset, uint64_t total, const uint64_t *rows) {
  int rank, nprocs;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  const double bytes = (double)total * cols * 8, mine = (double)nlocal * cols * 8;
  double mx = 0, mn = 0;
  MPI_Allreduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, comm);
  const double ratio = mx <= 0 ? 1 : mn <= 0 ? INFINITY : mx / mn;
  int rc = 0;
  if (!opt) { /* Baseline_HDF5: all create, independent hyperslab writes */
    hid_t fapl = file_access(comm, 0, bytes, nprocs, ratio);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0) return bad("H5Fcreate");
    hid_t d = create_dataset(f, name, 0, cols, total, bytes, ratio);
    rc = d < 0 ? bad("H5Dcreate") : write_rows(d, 0, cols, nlocal, offset, rows);
    if (d >= 0) H5Dclose(d);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    H5Fclose(f);
    return rc;
  }
  if (bytes < 10 * MIB) { /* O1: gather, rank 0 writes serially */
    int cnt = (int)(nlocal * cols), *counts = NULL, *displs = NULL;
    uint64_t *all = NULL;
    if (rank == 0) {
      counts = malloc(sizeof *counts * nprocs), displs = malloc(sizeof *displs * nprocs);
      all = malloc(sizeof *all * (total * cols + 1));
    }
    MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0)
      for (int r = 0, at = 0; r < nprocs; r++) displs[r] = at, at += counts[r];
    MPI_Gatherv(rows, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, comm);
    if (rank == 0) {
      hid_t fapl = file_access(MPI_COMM_NULL, 1, bytes, nprocs, ratio);
      hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
      H5Pclose(fapl);
      hid_t d = f < 0 ? -1 : create_dataset(f, name, 1, cols, total, bytes, ratio);
      rc = d < 0 ? bad("create") : total ? (H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0 ? bad("H5Dwrite") : 0) : 0;
      if (d >= 0) H5Dclose(d);
      if (f >= 0) H5Fclose(f);
      if (rc == 0) rc = fsync_file(path);
      free(all), free(counts), free(displs);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
  }
  /* O2: rank 0 creates file and dataset serially. */
  if (rank == 0) {
    hid_t fapl = file_access(MPI_COMM_NULL, 1, bytes, nprocs, ratio);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hid_t d = f < 0 ? -1 : create_dataset(f, name, 1, cols, total, bytes, ratio);
    rc = d < 0 ? bad("create") : 0;
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  if (rc) return rc;
  /* O7: skew phases, each on its own communicator. */
  double sum = 0, sq = 0, m2 = mine * mine;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&m2, &sq, 1, MPI_DOUBLE, MPI_SUM, comm);
  const double mean = sum / nprocs, var = sq / nprocs - mean * mean;
  const double cv = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
  int phases = ratio > 100 || cv > 2 ? 8 : ratio > 10 || cv > 1 ? 4 : 1;
  if (phases > nprocs) phases = nprocs;
  const int my = (int)((long long)rank * phases / nprocs);
  MPI_Comm sub;
  MPI_Comm_split(comm, my, rank, &sub);
  int subsize;
  MPI_Comm_size(sub, &subsize);
  for (int p = 0; p < phases; p++) {
    if (p == my) {
      hid_t fapl = file_access(sub, 1, bytes, subsize, ratio);
      hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
      H5Pclose(fapl);
      hid_t d = f < 0 ? -1 : H5Dopen2(f, name, H5P_DEFAULT);
      if (d < 0) rc = bad("open");
      else rc = write_rows(d, 1, cols, nlocal, offset, rows);
      if (d >= 0) H5Dclose(d);
      if (f >= 0 && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 && rc == 0) rc = bad("H5Fflush"); /* MPI_File_sync */
      if (f >= 0) H5Fclose(f);
    }
    MPI_Barrier(comm);
  }
  MPI_Comm_free(&sub);
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, comm);
  return worst;
}
