/* Requests as objects in the async connector: iputs of fixed-size variables
 * are kept (copied: the connector holds their bytes) under the ids native
 * would give, and a wait_all naming only kept requests on every rank is kept
 * too (it returns at once: ids NC_REQ_NULL, statuses NC_NOERR, the buffers
 * free); the values are in the file once the queue is done. A write failing
 * in a kept wait_all (the failing-write hook, rank 0) is reported by
 * exa_async_wait / exa_async_error with the call and the request ids, a
 * later iput on the region is cancelled (EXA_ECANCELED), a disjoint one
 * written. A wait_all where one rank names an id it does not have is not
 * kept anywhere: that rank gets NC_EINVAL_REQUEST, the others NC_NOERR with
 * their requests still pending (native's, PnetCDF's behaviour). */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

enum { kLen = 8 };

static void read_back(int ncid, int varid, MPI_Offset first, int n, const int* want) {
  int got[kLen];
  MPI_Offset start = (MPI_Offset)mpi_test_rank * kLen + first, count = n;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, &start, &count, got));
  for (int k = 0; k < n; ++k)
    if (got[k] != want[k]) {
      fprintf(stderr, "[rank %d] varid %d element %d: %d, expected %d\n", mpi_test_rank, varid,
              (int)first + k, got[k], want[k]);
      CHECK(got[k] == want[k]);
    }
}

static int iput(int ncid, int varid, MPI_Offset first, int n, const int* vals) {
  MPI_Offset start = (MPI_Offset)mpi_test_rank * kLen + first, count = n;
  int id = NC_REQ_NULL;
  CHECK_OK(ncmpi_iput_vara_int(ncid, varid, &start, &count, vals, &id));
  CHECK(id >= 0);
  return id;
}

int main(int argc, char** argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the background thread calls MPI */
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "async{mem=4096}");
  int ncid, dim, v, w;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("async_requests.nc"), NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)kLen * mpi_test_nprocs, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_INT, 1, &dim, &w));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_enddef(ncid));

  /* 1. Kept iputs and a kept wait_all. */
  int buf[kLen], want[kLen], ids[4], st[4];
  for (int k = 0; k < kLen; ++k) buf[k] = want[k] = rank * 100 + k;
  for (int k = 0; k < 4; ++k) ids[k] = iput(ncid, v, 2 * k, 2, buf + 2 * k);
  CHECK(ids[0] == 0); /* PnetCDF's put ids: 0, 2, 4, ... */
  for (int k = 1; k < 4; ++k) CHECK(ids[k] == ids[0] + 2 * k);
  long long peak = 0;
  CHECK_OK(exa_async_peak_bytes(ncid, &peak));
  CHECK(peak >= 2 * (long long)sizeof(int)); /* the iputs' bytes were copied, not posted below */
  const int first_id = ids[0];
  CHECK_OK(ncmpi_wait_all(ncid, 4, ids, st));
  for (int k = 0; k < 4; ++k) CHECK(ids[k] == NC_REQ_NULL && st[k] == NC_NOERR);
  for (int k = 0; k < kLen; ++k) buf[k] = -1; /* free once wait_all returned */
  int pending = -1;
  CHECK_OK(exa_async_wait(ncid, -1, &pending));
  CHECK(pending == 0);
  int n = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
  CHECK(n == 0);
  read_back(ncid, v, 0, kLen, want);
  /* The kept wait made no id of its own, and once its requests are done none is
   * pending: the put ids start again at 0, as in PnetCDF. */
  {
    int one = iput(ncid, w, 0, 1, want);
    CHECK(one == first_id);
    CHECK_OK(ncmpi_wait_all(ncid, 1, &one, NULL));
    CHECK_OK(exa_async_wait(ncid, -1, &pending)); /* nothing queued before the hook below */
  }

  /* 2. A write failing in a kept wait_all on rank 0. */
  int a_vals[4] = {rank + 500, rank + 501, rank + 502, rank + 503};
  int b_vals[2] = {rank + 600, rank + 601};
  int c_vals[2] = {rank + 700, rank + 701};
  int d_vals[1] = {rank + 800};
  if (rank == 0) exa_debug_fail_write(1); /* the next write of rank 0 fails */
  int ab[2];
  ab[0] = iput(ncid, v, 0, 4, a_vals);
  ab[1] = iput(ncid, w, 4, 2, b_vals);
  const int a_id = ab[0], b_id = ab[1];
  /* Kept: it returns at once, with an error the background recorded by then -- its own
   * write's, if the background thread was that quick (on a quiet machine it often is). */
  const int kept_wait = ncmpi_wait_all(ncid, 2, ab, st);
  CHECK(kept_wait == NC_NOERR || (rank == 0 && kept_wait == NC_EWRITE));
  CHECK(ab[0] == NC_REQ_NULL && ab[1] == NC_REQ_NULL && st[0] == NC_NOERR && st[1] == NC_NOERR);
  int cd[2];
  cd[0] = iput(ncid, v, 2, 2, c_vals); /* overlaps a: cancelled on rank 0 */
  cd[1] = iput(ncid, v, 6, 1, d_vals); /* disjoint: written */
  const int c_id = cd[0];
  int waited = ncmpi_wait_all(ncid, 2, cd, st);
  CHECK(cd[0] == NC_REQ_NULL && cd[1] == NC_REQ_NULL);
  int late = exa_async_wait(ncid, -1, &pending);
  exa_debug_fail_write(0);
  /* The failure is returned once, by the first completing call after it happened. */
  if (rank == 0) CHECK((kept_wait == NC_EWRITE) + (waited == NC_EWRITE) + (late == NC_EWRITE) == 1);
  exa_async_error_info e;
  memset(&e, 0, sizeof e);
  if (rank == 0) {
    CHECK_OK(exa_async_error(ncid, 0, &e));
    CHECK(e.code == NC_EWRITE);
    CHECK(strcmp(e.call, "ncmpi_wait_all") == 0);
    char expect[32];
    snprintf(expect, sizeof expect, "reqid=%d ", a_id);
    CHECK(strstr(e.args, expect) != NULL);
    CHECK_OK(exa_async_error(ncid, 1, &e));
    CHECK(e.code == NC_EWRITE);
    snprintf(expect, sizeof expect, "reqid=%d ", b_id);
    CHECK(strstr(e.args, expect) != NULL);
    CHECK_OK(exa_async_error(ncid, 2, &e));
    CHECK(e.code == EXA_ECANCELED);
    snprintf(expect, sizeof expect, "reqid=%d ", c_id);
    CHECK(strstr(e.args, expect) != NULL);
    CHECK_ERR(exa_async_error(ncid, 3, &e), NC_EINVAL);
    /* v: part 1's values, but d; w[4..5]: never written (fill). */
    int v_want[kLen];
    memcpy(v_want, want, sizeof v_want);
    v_want[6] = rank + 800;
    read_back(ncid, v, 0, kLen, v_want);
    int w_want[2] = {NC_FILL_INT, NC_FILL_INT};
    read_back(ncid, w, 4, 2, w_want);
  } else {
    /* The other ranks wrote (whether rank 0's failure reaches their requests is the layer below's
     * rule for a failed collective write; without an error they hold every value). */
    if (waited == NC_NOERR && late == NC_NOERR && exa_async_error(ncid, 0, &e) == NC_EINVAL) {
      int v_want[kLen] = {rank + 500, rank + 501, rank + 700, rank + 701, want[4], want[5], rank + 800, want[7]};
      read_back(ncid, v, 0, kLen, v_want);
      read_back(ncid, w, 4, 2, b_vals);
    } else { /* the reads are collective: take part */
      read_back(ncid, v, 0, 0, want);
      read_back(ncid, w, 4, 0, b_vals);
    }
  }

  /* 3. One rank names an id it does not have: nothing is kept, native's rule. */
  if (mpi_test_nprocs > 1) {
    int x = rank + 900, id2[2];
    id2[0] = iput(ncid, w, 7, 1, &x);
    id2[1] = rank == 1 ? id2[0] + 1000 : NC_REQ_NULL;
    CHECK_ERR(ncmpi_wait_all(ncid, 2, id2, st), rank == 1 ? NC_EINVAL_REQUEST : NC_NOERR);
    CHECK(id2[0] != NC_REQ_NULL); /* still pending everywhere */
    CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
    CHECK(n == 1);
    CHECK_OK(ncmpi_wait_all(ncid, 1, id2, st));
    CHECK(id2[0] == NC_REQ_NULL && st[0] == NC_NOERR);
    read_back(ncid, w, 7, 1, &x);
  }
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
