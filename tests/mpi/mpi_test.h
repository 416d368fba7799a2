/*
 * mpi_test.h -- a small harness for MPI test programs. CHECK records a
 * failure (with file, line and rank) and goes on; mpi_test_finish() agrees
 * on the outcome over all ranks and returns the exit code, so a failing rank
 * never leaves the others hanging.
 */
#ifndef EXACDF_MPI_TEST_H
#define EXACDF_MPI_TEST_H

#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Built against exacdf (1) or against another PnetCDF implementation, the
 * oracle (0). Checks of behaviour where exacdf deliberately differs from
 * PnetCDF 1.12.3 are compiled only for exacdf. */
#ifdef EXACDF_FOR_EACH_MEMTYPE
#define MPI_TEST_IS_EXACDF 1
#else
#define MPI_TEST_IS_EXACDF 0
#endif

static int mpi_test_failures = 0;
static int mpi_test_rank = 0;
static int mpi_test_nprocs = 1;
static char mpi_test_dir[1024] = ".";

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "[rank %d] %s:%d: CHECK failed: %s\n", mpi_test_rank, __FILE__,      \
              __LINE__, #cond);                                                            \
      mpi_test_failures++;                                                                 \
    }                                                                                      \
  } while (0)

/* Expects an ncmpi_* call to return the given code. */
#define CHECK_ERR(call, expected)                                                          \
  do {                                                                                     \
    int got_ = (call);                                                                     \
    if (got_ != (expected)) {                                                              \
      fprintf(stderr, "[rank %d] %s:%d: %s returned %d (%s), expected %d (%s)\n",          \
              mpi_test_rank, __FILE__, __LINE__, #call, got_, ncmpi_strerrno(got_),        \
              (expected), ncmpi_strerrno(expected));                                       \
      mpi_test_failures++;                                                                 \
    }                                                                                      \
  } while (0)

#define CHECK_OK(call) CHECK_ERR(call, NC_NOERR)

/* Initializes MPI and the scratch directory (argv[1], created if missing). */
static void mpi_test_init(int *argc, char ***argv) {
  /* MPI_TEST_THREAD_MULTIPLE set: MPI_THREAD_MULTIPLE (the suite under the async
   * connector, whose background thread calls MPI). */
  if (getenv("MPI_TEST_THREAD_MULTIPLE")) {
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(argc, argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_test_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_test_nprocs);
  if (*argc > 1) {
    snprintf(mpi_test_dir, sizeof mpi_test_dir, "%s", (*argv)[1]);
    if (mpi_test_rank == 0) mkdir(mpi_test_dir, 0755);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Path of a file in the scratch directory. The result lives in one of four
 * rotating buffers: copy it if it must outlive four more calls. */
static const char *mpi_test_path(const char *name) {
  static char buf[4][1200];
  static int slot = 0;
  slot = (slot + 1) % 4;
  snprintf(buf[slot], sizeof buf[slot], "%s/%s", mpi_test_dir, name);
  return buf[slot];
}

/* Agrees on failures across ranks, finalizes MPI, returns the exit status. */
static int mpi_test_finish(void) {
  int total = 0;
  MPI_Allreduce(&mpi_test_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (mpi_test_rank == 0) printf("%s: %d failure(s) over %d rank(s)\n", total ? "FAIL" : "PASS", total, mpi_test_nprocs);
  MPI_Finalize();
  return total ? 1 : 0;
}

#endif
