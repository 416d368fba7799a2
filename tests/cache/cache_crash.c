/* The cache connector's crash and failure tests (run by run_cache_crash.sh).
 *   cache_crash write FILE SPEC [FAILWRITE [quiet]]   writes NPUT blocks per rank through
 *        EXACDF_CONNECTORS-free hint SPEC (exa_connectors), flushing every 5 puts;
 *        FAILWRITE n > 0: the n-th MPI-IO write after enddef fails (exit 3 when
 *        close reported the failure, as it must); quiet: no flushes, no records of w
 *        (nothing drains before close).
 *   cache_crash check FILE R NMIN NMAX   reads FILE (native) and checks that every
 *        rank's blocks are a committed prefix -- each block whole or untouched
 *        (fill), never torn -- and that rank R (-1: every rank) has between NMIN
 *        and NMAX blocks. Prints the counts.
 *   cache_crash opens FILE SPEC ok|efile   opening FILE through SPEC succeeds, or
 *        fails with NC_EFILE (undrained logs).
 * Block k of rank r is element range [(r*NPUT + k)*B, +B) of v, values r*1e6 + k*1e3 + i;
 * and record k of w (one element per rank) holds k. */
#include <exacdf.h>
#include <stdlib.h>

#include "mpi_test.h"

enum { NPUT = 24, B = 200 };

static int write_file(const char *path, const char *spec, int failwrite, int quiet) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid, dv, dr, dx, v, w;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "n", (MPI_Offset)mpi_test_nprocs * NPUT * B, &dv));
  CHECK_OK(ncmpi_def_dim(ncid, "rec", NC_UNLIMITED, &dr));
  CHECK_OK(ncmpi_def_dim(ncid, "ranks", mpi_test_nprocs, &dx));
  int dw[2] = {dr, dx};
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dv, &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_INT, 2, dw, &w));
  CHECK_OK(ncmpi_enddef(ncid));
  if (failwrite > 0) exa_debug_fail_write(failwrite);
  int buf[B];
  for (int k = 0; k < NPUT; ++k) {
    for (int i = 0; i < B; ++i) buf[i] = mpi_test_rank * 1000000 + k * 1000 + i;
    MPI_Offset start = ((MPI_Offset)mpi_test_rank * NPUT + k) * B, count = B;
    int err = ncmpi_put_vara_int_all(ncid, v, &start, &count, buf);
    if (!failwrite) CHECK_OK(err); /* with a failing target the log keeps them */
    if (k % 6 == 5 && !quiet) {  /* a record every 6 puts: the record count grows */
      MPI_Offset ws[2] = {k / 6, mpi_test_rank}, wc[2] = {1, 1};
      int val = k / 6;
      err = ncmpi_put_vara_int_all(ncid, w, ws, wc, &val);
      if (!failwrite) CHECK_OK(err);
    }
    if (k % 5 == 4 && !quiet) {
      err = ncmpi_flush(ncid);
      if (!failwrite) CHECK_OK(err);
    }
  }
  int err = ncmpi_close(ncid);
  if (failwrite > 0) {
    if (err == NC_NOERR) {
      fprintf(stderr, "[rank %d] close did not report the failed drain\n", mpi_test_rank);
      mpi_test_failures++;
    }
    return 3;
  }
  CHECK_OK(err);
  return 0;
}

static void check_file(const char *path, int rank_exact, int nmin, int nmax) {
  int ncid, v;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "v", &v));
  int nranks = 0, dx;
  MPI_Offset len = 0;
  CHECK_OK(ncmpi_inq_dimid(ncid, "ranks", &dx));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dx, &len));
  nranks = (int)len;
  int *all = malloc(sizeof(int) * (size_t)len * NPUT * B);
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, all));
  if (mpi_test_rank == 0) {
    for (int r = 0; r < nranks; ++r) {
      int whole = 0, ended = 0;
      for (int k = 0; k < NPUT; ++k) {
        const int *blk = all + ((size_t)r * NPUT + k) * B;
        int good = 0, fill = 0;
        for (int i = 0; i < B; ++i) {
          good += blk[i] == r * 1000000 + k * 1000 + i;
          fill += blk[i] == NC_FILL_INT;
        }
        if (good == B && !ended) {
          whole++;
        } else if (fill == B) {
          ended = 1;
        } else {
          fprintf(stderr, "rank %d block %d: %d good, %d fill of %d (torn or out of order)\n", r, k, good, fill, B);
          mpi_test_failures++;
        }
      }
      printf("rank %d: %d block(s) committed\n", r, whole);
      if ((rank_exact < 0 || rank_exact == r) && (whole < nmin || whole > nmax)) {
        fprintf(stderr, "rank %d: %d blocks, expected %d..%d\n", r, whole, nmin, nmax);
        mpi_test_failures++;
      }
    }
  }
  free(all);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_test_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_test_nprocs);
  (void)mpi_test_init;
  (void)mpi_test_path;
  if (argc >= 4 && strcmp(argv[1], "write") == 0) {
    int rc = write_file(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 0, argc > 5 && strcmp(argv[5], "quiet") == 0);
    int worst = 0, failures = mpi_test_failures ? 1 : 0;
    MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst ? 1 : rc;
  }
  if (argc >= 6 && strcmp(argv[1], "check") == 0) {
    check_file(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
  } else if (argc >= 5 && strcmp(argv[1], "opens") == 0) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_connectors", argv[3]);
    int ncid = -1, err = ncmpi_open(MPI_COMM_WORLD, argv[2], NC_WRITE, info, &ncid);
    MPI_Info_free(&info);
    CHECK_ERR(err, strcmp(argv[4], "ok") == 0 ? NC_NOERR : NC_EFILE);
    if (err == NC_NOERR) CHECK_OK(ncmpi_close(ncid));
  } else {
    fprintf(stderr, "usage: cache_crash write FILE SPEC [FAILWRITE] | check FILE R NMIN NMAX | opens FILE SPEC ok|efile\n");
    mpi_test_failures++;
  }
  return mpi_test_finish();
}
