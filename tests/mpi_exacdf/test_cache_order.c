/* The cache connector keeps the order of collective puts across ranks: when
 * rank A writes a region in collective put k and rank B writes the same region
 * in put k+1, the file holds B's values, whatever order the ranks' logs drain
 * in. (Before the fix each rank's log drained on its own: the rank that wrote
 * last drained first -- its iput post drained it -- and the earlier puts of the
 * other ranks landed over it at the wait.)
 * Phases, all checked against the values the puts imply:
 *   1. a record variable whose row is rewritten by alternating ranks while the
 *      record count grows;
 *   2. one shared region written by a different rank in each of K collective
 *      puts (the others write their own slots), then each rank's own slot
 *      (disjoint: these may share one collective write);
 *   3. the same with records bigger than part of the ring, so rings fill and
 *      back-pressure drains (on some ranks only, before the fix).
 * Variants: drain=close, drain=manual, eager with a small ring, the async
 * connector above cache, and close=detach with the helper disabled, then
 * exa_cache_recover on rank 0 (recovery replays every rank's log in the
 * order of the collective calls).
 * test_cache_order_mover.c runs it with MPI_THREAD_MULTIPLE (the mover). */
#include <stdlib.h>

#include "exacdf.h"
#include "mpi_test.h"

#ifndef CACHE_ORDER_THREADS
#define CACHE_ORDER_THREADS 0
#endif

enum { W = 4, K = 7, NB = 1500, NREC = 3 };

static int shared_value(int k, int i) { return 1000 * k + i; }
static int slot_value(int k, int rank, int i) { return 100000 + 100 * k + 10 * rank + i; }
static int big_value(int k, int i) { return 7 * k + 3 * i; }
static int row_value(int k, int i) { return -1000 * k - i; }

static void write_ordered(const char *path, const char *connectors, int force_early_drain) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", connectors);
  const int me = mpi_test_rank, np = mpi_test_nprocs;
  int ncid, dx, db, dr, dw, v, vb, vr;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", W + np * W, &dx));
  CHECK_OK(ncmpi_def_dim(ncid, "b", NB, &db));
  CHECK_OK(ncmpi_def_dim(ncid, "rec", NC_UNLIMITED, &dr));
  CHECK_OK(ncmpi_def_dim(ncid, "w", W, &dw));
  int rdims[2] = {dr, dw};
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dx, &v));
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_INT, 1, &db, &vb));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, rdims, &vr));
  CHECK_OK(ncmpi_enddef(ncid));

  int vals[W];
  /* Phase 1: row j is written first by rank j % np as it grows the record
   * count, then rewritten by the next rank in the following put. */
  for (int k = 0; k < 2 * NREC; ++k) {
    const int row = k / 2, writer = (k + row) % np;
    MPI_Offset start[2] = {row, 0}, count[2] = {1, writer == me ? W : 0};
    for (int i = 0; i < W; ++i) vals[i] = row_value(k, i);
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vr, start, count, vals));
  }
  /* Phase 2. */
  /* The other ranks write their own slot meanwhile: a put of nothing would not
   * be logged (and, before the fix, drained the rank's log in call order). */
  MPI_Offset slot = W + (MPI_Offset)me * W, slot_count = W;
  for (int k = 0; k < K; ++k) {
    MPI_Offset start = 0, count = W;
    for (int i = 0; i < W; ++i) vals[i] = k % np == me ? shared_value(k, i) : slot_value(k, me, i);
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, k % np == me ? &start : &slot, &count, vals));
    MPI_Offset s2 = W + (MPI_Offset)me * W, c2 = W;
    for (int i = 0; i < W; ++i) vals[i] = slot_value(k, me, i);
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &s2, &c2, vals));
  }
  if (force_early_drain) {
    /* The rank that wrote the shared region last posts a request (it drained its
     * log before the fix) and every rank waits for it after a barrier. */
    const int last = (K - 1) % np;
    int req = NC_REQ_NULL, status = NC_NOERR, nreq = 0;
    if (me == last) {
      MPI_Offset s2 = W + (MPI_Offset)me * W, c2 = 1;
      vals[0] = slot_value(K - 1, me, 0);
      CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s2, &c2, vals, &req));
      nreq = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(ncmpi_wait_all(ncid, nreq, &req, &status));
    CHECK_OK(status);
  }

  /* Phase 3: 6 KB records, rings of a few of them. */
  int *big = malloc(sizeof(int) * NB);
  for (int k = 0; k < K; ++k) {
    MPI_Offset start = 0, count = NB;
    for (int i = 0; i < NB; ++i) big[i] = big_value(k, i);
    if (k % np == me) {
      CHECK_OK(ncmpi_put_vara_int_all(ncid, vb, &start, &count, big));
    } else {
      for (int i = 0; i < W; ++i) vals[i] = slot_value(K - 1, me, i);
      CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &slot, &slot_count, vals));
    }
  }
  free(big);

  CHECK_OK(ncmpi_close(ncid));
}

/* Every rank checks the whole file, read through native. */
static void check_file(const char *path, const char *what) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "native");
  const int np = mpi_test_nprocs;
  int ncid, v, vb, vr;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_inq_varid(ncid, "v", &v));
  CHECK_OK(ncmpi_inq_varid(ncid, "big", &vb));
  CHECK_OK(ncmpi_inq_varid(ncid, "r", &vr));
  int wrong = 0;
  int *got = malloc(sizeof(int) * (W + np * W > NB ? W + np * W : NB));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, got));
  for (int i = 0; i < W; ++i) wrong += got[i] != shared_value(K - 1, i);
  for (int r = 0; r < np; ++r)
    for (int i = 0; i < W; ++i) wrong += got[W + r * W + i] != slot_value(K - 1, r, i);
  CHECK_OK(ncmpi_get_var_int_all(ncid, vb, got));
  for (int i = 0; i < NB; ++i) wrong += got[i] != big_value(K - 1, i);
  MPI_Offset nrec = -1;
  int dr;
  CHECK_OK(ncmpi_inq_dimid(ncid, "rec", &dr));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dr, &nrec));
  CHECK(nrec == NREC);
  CHECK_OK(ncmpi_get_var_int_all(ncid, vr, got));
  for (int row = 0; row < NREC; ++row)
    for (int i = 0; i < W; ++i) wrong += got[row * W + i] != row_value(2 * row + 1, i);
  free(got);
  CHECK_OK(ncmpi_close(ncid));
  if (wrong) fprintf(stderr, "rank %d: %s: %d values out of order\n", mpi_test_rank, what, wrong);
  CHECK(wrong == 0);
}

int main(int argc, char **argv) {
  if (CACHE_ORDER_THREADS) setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1);
  mpi_test_init(&argc, &argv);
  char dir[1200], path[1200], spec[2600];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("tier"));
  snprintf(path, sizeof path, "%s", mpi_test_path("ordered.nc"));
  /* The last one stacks the async connector above: with MPI_THREAD_MULTIPLE
   * its pool makes the puts; without, it runs them inside collective calls
   * only (before, a rank whose independent iput post ran its queued
   * collective puts waited for a rank standing in the program's MPI_Barrier). */
  const char *above[] = {"", "", "", "", "async,"};
  const char *settings[] = {"size=1M;drain=close", "size=1M;drain=manual", "size=40K", "size=24K;durable=node",
                            "size=40K"};
  for (int k = 0; k < 5; ++k) {
    snprintf(spec, sizeof spec, "%scache{dir=%s;%s}", above[k], dir, settings[k]);
    write_ordered(path, spec, 1);
    check_file(path, spec);
  }
  /* close=detach, the helper disabled: the logs stay, and recovery replays them. */
  setenv("EXACDF_RECOVER_COMMAND", "true", 1);
  snprintf(spec, sizeof spec, "cache{dir=%s;size=1M;drain=close;close=detach}", dir);
  write_ordered(path, spec, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (mpi_test_rank == 0) {
    int pending = -1;
    CHECK_OK(exa_cache_pending(path, dir, &pending));
    CHECK(pending == mpi_test_nprocs);
    char report[4096];
    CHECK_OK(exa_cache_recover(path, dir, report, sizeof report));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, "close=detach, then exa_cache_recover");
  return mpi_test_finish();
}
