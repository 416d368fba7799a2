/* Checkpoint writers of the TC application: exacdf's checkpoint store (atomic,
 * self-describing, restartable on any rank count) and, for the benchmark, the
 * reference engine's opaque baselines (POSIX pwrite, MPI-IO, MPI-IO with the
 * policy's hints) and parallel HDF5 (default and the seed's HDF5-OPT). Every
 * writer stores a relation of arity k as rows of k+1 uint64 (k values and an
 * id), each rank at the offset of one MPI_Exscan, and syncs what it wrote. */
#ifndef TC_CKPT_IO_H
#define TC_CKPT_IO_H

#include <mpi.h>
#include <stdint.h>

typedef struct {
  const char *io; /* exacdf | posix | mpiio | mpiio-opt | hdf5 | hdf5-opt */
  const char *dir;
  MPI_Comm comm;
  int ckid;             /* exacdf */
  char path[1024];      /* the others: <dir>/checkpoint-<iteration> */
  double bytes;         /* written so far (all ranks) */
} tc_ckpt;

/* 0 on success; otherwise an error was printed. All collective. */
int tc_ckpt_begin(tc_ckpt *c, long long iteration);
int tc_ckpt_write(tc_ckpt *c, const char *name, int delta, int arity, uint64_t n, const uint64_t *tuples);
int tc_ckpt_commit(tc_ckpt *c);
int tc_ckpt_known(const char *io);

#ifdef TC_HAVE_HDF5
int tc_hdf5_write(MPI_Comm comm, const char *path, const char *name, int opt, int cols, uint64_t nlocal,
                  uint64_t offset, uint64_t total, const uint64_t *rows);
#endif

#endif
