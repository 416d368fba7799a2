/* The async connector without MPI_THREAD_MULTIPLE (progress inside library
 * calls), alone, above the cache connector, and the cache alone: queued
 * COLLECTIVE work may only run at a call every rank makes in the same order.
 * Before the fix each phase below hung at 2 and 4 ranks: one rank ran its
 * queued collective puts inside a call only it made, and waited in them for
 * ranks standing in the program's own MPI_Barrier/MPI_Allreduce.
 *   1. one rank alone posts an iput and makes local calls (an inquiry,
 *      ncmpi_inq_nreqs, ncmpi_inq_put_size, exa_async_wait), then
 *      MPI_Barrier, then every rank's wait_all;
 *   2. a collective put with bad arguments on one rank only (it takes part
 *      with nothing; the others' puts were queued), then MPI_Barrier;
 *   3. back-pressure on one rank only (its mem= bound is smaller), with an
 *      MPI_Allreduce after each put;
 *   4. other files: one rank alone creates and writes a file on
 *      MPI_COMM_SELF (same stack), and reads independently from a second
 *      file, while the first holds queued collective puts, then MPI_Barrier.
 * Overlapping puts of different ranks in successive collective calls check
 * the order; the file is read back through native and compared value by
 * value. alarm() bounds a hang. */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_test.h"

enum { N = 512, ROUNDS = 6 };

/* The value of element i of the shared head after put k, and of rank r's slot. */
static int head_value(int k, int i) { return 1000 * k + i; }
static int slot_value(int k, int r, int i) { return 100000 + 1000 * k + 100 * r + i; }

static int nputs = 0; /* collective puts so far (the same on every rank) */

/* One collective put: rank (nputs % np) writes the head, the others their slots. */
static void put_round(int ncid, int v) {
  const int me = mpi_test_rank, np = mpi_test_nprocs, k = nputs++;
  static int vals[N];
  MPI_Offset start = (MPI_Offset)(me + 1) * N, count = N;
  if (k % np == me) start = 0;
  for (int i = 0; i < N; ++i) vals[i] = start == 0 ? head_value(k, i) : slot_value(k, me, i);
  CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &start, &count, vals));
}

static int expect_at(MPI_Offset at) {
  /* The last put that wrote each part. */
  const int np = mpi_test_nprocs;
  if (at < N) return head_value(nputs - 1, (int)at);
  const int r = (int)(at / N) - 1, i = (int)(at % N);
  for (int k = nputs - 1; k >= 0; --k)
    if (k % np != r) return slot_value(k, r, i);
  return 0;
}

/* connectors: a format whose %s is rank 0's setting (mine0) or the others'. */
static void run(const char *connectors, const char *mine0, const char *others) {
  const int me = mpi_test_rank, np = mpi_test_nprocs;
  char spec[2600];
  snprintf(spec, sizeof spec, connectors, me == 0 ? mine0 : others);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  const char *path = mpi_test_path("inline.nc");
  char path2[1200];
  snprintf(path2, sizeof path2, "%s", mpi_test_path("inline_read.nc"));
  int ncid, ncid2, dx, v, v2;
  nputs = 0;

  /* A second file to read from independently (phase 4). */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path2, NC_CLOBBER, info, &ncid2));
  CHECK_OK(ncmpi_def_dim(ncid2, "x", N, &dx));
  CHECK_OK(ncmpi_def_var(ncid2, "w", NC_INT, 1, &dx, &v2));
  CHECK_OK(ncmpi_enddef(ncid2));
  {
    static int w[N];
    for (int i = 0; i < N; ++i) w[i] = 7 * i;
    MPI_Offset start = 0, count = me == 0 ? N : 0;
    CHECK_OK(ncmpi_put_vara_int_all(ncid2, v2, &start, &count, w));
  }

  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)(np + 1) * N, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dx, &v));
  CHECK_OK(ncmpi_enddef(ncid));

  /* Phase 1: one rank's local calls. */
  for (int k = 0; k < ROUNDS; ++k) put_round(ncid, v);
  int req = NC_REQ_NULL, status = NC_NOERR, nreq = 0, one = 7;
  if (me == np - 1) {
    MPI_Offset s = 0, c = 1;
    CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &one, &req));
    nreq = 1;
    int pending = -1, varid = -1, n = -1;
    MPI_Offset size = -1;
    CHECK_OK(ncmpi_inq_varid(ncid, "v", &varid));
    CHECK(varid == v);
    CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
    CHECK(n == 1);
    CHECK_OK(ncmpi_inq_put_size(ncid, &size));
    CHECK_OK(exa_async_wait(ncid, 0, &pending));
    CHECK(pending >= 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_wait_all(ncid, nreq, &req, &status));
  CHECK_OK(status);
  /* The iput wrote element 0 of the head: the next round rewrites it. */
  put_round(ncid, v);

  /* Phase 2: bad arguments on one rank only. */
  for (int k = 0; k < ROUNDS; ++k) put_round(ncid, v);
  {
    MPI_Offset start = me == 0 ? (MPI_Offset)(np + 2) * N : (MPI_Offset)(me + 1) * N, count = 1;
    int x = -1;
    CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &count, &x), me == 0 ? NC_EINVALCOORDS : NC_NOERR);
    /* (the others wrote -1 at their slot's first element: rewritten below) */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  put_round(ncid, v);
  if (np > 1) put_round(ncid, v);

  /* Phase 3: rank 0's bound holds two puts; an allreduce after each put. */
  for (int k = 0; k < 2 * ROUNDS; ++k) {
    put_round(ncid, v);
    int sum = 0, mine = 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == np);
  }

  /* Phase 4: other files, on one rank only. */
  for (int k = 0; k < ROUNDS; ++k) put_round(ncid, v);
  CHECK_OK(ncmpi_begin_indep_data(ncid2));
  for (int k = 0; k < ROUNDS; ++k) put_round(ncid, v);
  if (me == 0) {
    int self, ds, vs, x = 42, got = -1;
    MPI_Offset s = 3, c = 1;
    CHECK_OK(ncmpi_create(MPI_COMM_SELF, mpi_test_path("inline_self.nc"), NC_CLOBBER, info, &self));
    CHECK_OK(ncmpi_def_dim(self, "x", 4, &ds));
    CHECK_OK(ncmpi_def_var(self, "s", NC_INT, 1, &ds, &vs));
    CHECK_OK(ncmpi_enddef(self));
    CHECK_OK(ncmpi_put_vara_int_all(self, vs, &s, &c, &x));
    CHECK_OK(ncmpi_close(self));
    CHECK_OK(ncmpi_get_vara_int(ncid2, v2, &s, &c, &got));
    CHECK(got == 21);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_end_indep_data(ncid2));
  put_round(ncid, v);
  CHECK_OK(ncmpi_close(ncid2));
  CHECK_OK(ncmpi_close(ncid));
  MPI_Info_free(&info);

  /* Read back through native: the last writer of every element. */
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "native");
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  MPI_Info_free(&info);
  const MPI_Offset len = (MPI_Offset)(np + 1) * N;
  int *got = malloc(sizeof(int) * (size_t)len);
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, got));
  int wrong = 0;
  for (MPI_Offset at = 0; at < len; ++at) wrong += got[at] != expect_at(at);
  free(got);
  CHECK_OK(ncmpi_close(ncid));
  if (wrong) fprintf(stderr, "rank %d: %s: %d values wrong\n", me, spec, wrong);
  CHECK(wrong == 0);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv); /* MPI_Init: no MPI_THREAD_MULTIPLE */
  alarm(120);                  /* a hang fails the test rather than the suite's time */
  char dir[1200], spec[2600];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("tier"));
  /* %s: rank 0's own setting (a smaller bound: back-pressure there only). */
  run("async%s", "{mem=5k}", "");
  snprintf(spec, sizeof spec, "async%%s,cache{dir=%s;size=64K}", dir);
  run(spec, "{mem=5k}", "");
  snprintf(spec, sizeof spec, "cache{dir=%s;size=%%s}", dir);
  run(spec, "6K", "64K");
  return mpi_test_finish();
}
