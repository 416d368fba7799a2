#define _POSIX_C_SOURCE 200809L
#include "ckpt_io.h"

#include <exacdf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tc_ckpt_known(const char *io) {
  static const char *known[] = {"exacdf", "posix", "mpiio", "mpiio-opt",
#ifdef TC_HAVE_HDF5
                                "hdf5", "hdf5-opt",
#endif
                                NULL};
  for (int i = 0; known[i]; i++)
    if (strcmp(io, known[i]) == 0) return 1;
  return 0;
}

static int fail(MPI_Comm comm, const char *what, int code) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  fprintf(stderr, "tc[%d]: %s failed: %d (%s)\n", rank, what, code, code < 0 ? ncmpi_strerror(code) : "");
  return -1;
}

int tc_ckpt_begin(tc_ckpt *c, long long iteration) {
  if (strcmp(c->io, "exacdf") == 0) {
    int e = exa_checkpoint_begin(c->comm, c->dir, iteration, &c->ckid);
    return e == NC_NOERR ? 0 : fail(c->comm, "exa_checkpoint_begin", e);
  }
  int rank;
  MPI_Comm_rank(c->comm, &rank);
  snprintf(c->path, sizeof c->path, "%s/checkpoint-%lld", c->dir, iteration);
  if (rank == 0) {
    mkdir(c->dir, 0755);
    mkdir(c->path, 0755);
  }
  return MPI_Barrier(c->comm) == MPI_SUCCESS ? 0 : -1;
}

/* The MPI-IO OPT hints: the tiers of the policy's O5 (src/relation/pure/policy.cpp). */
static void opt_hints(MPI_Info info, double total, int n) {
  const double gib = 1024.0 * 1024 * 1024;
  int cb = total < gib ? n / 4 : total <= 10 * gib ? n / 8 : n / 16;
  int cap = total < gib ? 64 : total <= 10 * gib ? 32 : 16;
  if (cb > cap) cb = cap;
  if (cb < 1) cb = 1;
  double buf = (total <= 10 * gib ? 4 * gib : 8 * gib) / n;
  if (buf < 32.0 * 1024 * 1024) buf = 32.0 * 1024 * 1024;
  if (buf > 512.0 * 1024 * 1024) buf = 512.0 * 1024 * 1024;
  char v[32];
  snprintf(v, sizeof v, "%d", cb);
  MPI_Info_set(info, "cb_nodes", v);
  snprintf(v, sizeof v, "%.0f", buf);
  MPI_Info_set(info, "cb_buffer_size", v);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_ds_write", "disable");
}

int tc_ckpt_write(tc_ckpt *c, const char *name, int delta, int arity, uint64_t n, const uint64_t *tuples) {
  if (strcmp(c->io, "exacdf") == 0) {
    int e = exa_checkpoint_write(c->ckid, name, delta ? EXA_CHECKPOINT_DELTA : EXA_CHECKPOINT_FULL, arity,
                                 (MPI_Offset)n, (const unsigned long long *)tuples);
    uint64_t total = 0;
    MPI_Allreduce(&n, &total, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    c->bytes += (double)total * (arity + 1) * 8;
    return e == NC_NOERR ? 0 : fail(c->comm, "exa_checkpoint_write", e);
  }
  /* The reference engine's packing: k values and an id per row. */
  const int cols = arity + 1;
  uint64_t *rows = malloc(sizeof *rows * (n * cols + 1));
  uint64_t offset = 0, total = 0;
  MPI_Exscan(&n, &offset, 1, MPI_UINT64_T, MPI_SUM, c->comm);
  int rank, size;
  MPI_Comm_rank(c->comm, &rank);
  MPI_Comm_size(c->comm, &size);
  if (rank == 0) offset = 0;
  MPI_Allreduce(&n, &total, 1, MPI_UINT64_T, MPI_SUM, c->comm);
  for (uint64_t i = 0; i < n; i++) {
    memcpy(&rows[i * cols], &tuples[i * arity], sizeof(uint64_t) * arity);
    rows[i * cols + arity] = offset + i;
  }
  c->bytes += (double)total * cols * 8;
  char path[1200];
  snprintf(path, sizeof path, "%s/%s_%s", c->path, name, delta ? "delta" : "full");
  const MPI_Offset at = (MPI_Offset)(offset * cols * 8);
  int rc = 0;
  if (strcmp(c->io, "posix") == 0) {
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    size_t len = n * cols * 8, done = 0;
    while (fd >= 0 && done < len) {
      ssize_t w = pwrite(fd, (char *)rows + done, len - done, at + (off_t)done);
      if (w <= 0) break;
      done += (size_t)w;
    }
    if (fd < 0 || done < len || fsync(fd) != 0) rc = fail(c->comm, "pwrite", 0);
    if (fd >= 0) close(fd);
    MPI_Barrier(c->comm);
  } else if (strncmp(c->io, "mpiio", 5) == 0) {
    MPI_Info info = MPI_INFO_NULL;
    if (strcmp(c->io, "mpiio-opt") == 0) {
      MPI_Info_create(&info);
      opt_hints(info, (double)total * cols * 8, size);
    }
    MPI_File fh;
    int e = MPI_File_open(c->comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
    if (e == MPI_SUCCESS) {
      /* Counts in rows of a contiguous type: no 2^31-element limit on a rank. */
      MPI_Datatype row;
      MPI_Type_contiguous(cols, MPI_UINT64_T, &row);
      MPI_Type_commit(&row);
      e = MPI_File_write_at_all(fh, at, rows, (int)n, row, MPI_STATUS_IGNORE);
      if (e == MPI_SUCCESS) e = MPI_File_sync(fh);
      MPI_Type_free(&row);
      MPI_File_close(&fh);
    }
    if (e != MPI_SUCCESS) rc = fail(c->comm, "MPI-IO write", e);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
#ifdef TC_HAVE_HDF5
  } else if (strncmp(c->io, "hdf5", 4) == 0) {
    strncat(path, ".h5", sizeof path - strlen(path) - 1);
    rc = tc_hdf5_write(c->comm, path, name, strcmp(c->io, "hdf5-opt") == 0, cols, n, offset, total, rows);
#endif
  }
  free(rows);
  return rc;
}

int tc_ckpt_commit(tc_ckpt *c) {
  if (strcmp(c->io, "exacdf") == 0) {
    int e = exa_checkpoint_commit(c->ckid);
    return e == NC_NOERR ? 0 : fail(c->comm, "exa_checkpoint_commit", e);
  }
  return MPI_Barrier(c->comm) == MPI_SUCCESS ? 0 : -1;
}
