/* Nonblocking requests as the user sees them (also run through every suite
 * stack: under stack.async the iputs and their wait_all are kept by the async
 * connector and carried out in the background): request ids distinct, whatever
 * mix of iputs, igets and bputs; wait_all sets every id to
 * NC_REQ_NULL and every status to NC_NOERR; the values written and read; a
 * put buffer reused right after wait_all; waiting on ids already completed is
 * NC_EINVAL_REQUEST for each of them; an id named twice; cancel; a failed
 * post gives NC_REQ_NULL; ncmpi_inq_nreqs along the way. */
#include "mpi_test.h"

enum { kLen = 8 };

static int nreqs(int ncid) {
  int n = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
  return n;
}

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

int main(int argc, char** argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank;
  int ncid, dim, v, w;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("request_ids.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)kLen * mpi_test_nprocs, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_INT, 1, &dim, &w));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_buffer_attach(ncid, 1024));

  /* 1. Distinct ids over iputs, an iget and a bput; wait_all completes them. */
  int buf[kLen], again[kLen], got_w[2] = {-1, -1};
  for (int k = 0; k < kLen; ++k) buf[k] = rank * 100 + k;
  MPI_Offset base = (MPI_Offset)rank * kLen;
  int ids[6], statuses[6];
  for (int k = 0; k < 4; ++k) {  /* four iputs of two elements each */
    MPI_Offset start = base + 2 * k, count = 2;
    CHECK_OK(ncmpi_iput_vara_int(ncid, v, &start, &count, buf + 2 * k, &ids[k]));
  }
  {
    MPI_Offset start = base, count = 2;
    int bvals[2] = {rank * 100 + 50, rank * 100 + 51};
    CHECK_OK(ncmpi_bput_vara_int(ncid, w, &start, &count, bvals, &ids[4]));
    bvals[0] = bvals[1] = -7; /* a bput's buffer is free at once */
    CHECK_OK(ncmpi_iget_vara_int(ncid, v, &start, &count, got_w, &ids[5]));
  }
  /* PnetCDF 1.12.3 gives puts (iput, bput) even ids 2n and gets odd ids 2n+1, n counting from 0
   * again once no request of the kind is pending (here 0 2 4 6 8 1); exacdf gives 0 1 2 ...
   * (docs/architecture.md). Both: distinct, non-negative. */
  for (int k = 0; k < 6; ++k) CHECK(ids[k] >= 0);
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < k; ++j) CHECK(ids[k] != ids[j]);
  CHECK(nreqs(ncid) == 6);
  int saved[6];
  memcpy(saved, ids, sizeof ids);
  for (int k = 0; k < 6; ++k) statuses[k] = -12345;
  CHECK_OK(ncmpi_wait_all(ncid, 4, ids, statuses)); /* the four iputs only */
  for (int k = 0; k < 4; ++k) CHECK(ids[k] == NC_REQ_NULL && statuses[k] == NC_NOERR);
  for (int k = 0; k < kLen; ++k) buf[k] = -1; /* the buffer is the program's again */
  CHECK(nreqs(ncid) == 2);
  CHECK_OK(ncmpi_wait_all(ncid, 2, ids + 4, statuses + 4));
  CHECK(ids[4] == NC_REQ_NULL && ids[5] == NC_REQ_NULL && statuses[4] == NC_NOERR && statuses[5] == NC_NOERR);
  CHECK(nreqs(ncid) == 0);
  CHECK(got_w[0] == rank * 100 && got_w[1] == rank * 100 + 1); /* the iget ran after the iputs' wait */
  for (int k = 0; k < kLen; ++k) again[k] = rank * 100 + k;
  read_back(ncid, v, 0, kLen, again);
  {
    int want[2] = {rank * 100 + 50, rank * 100 + 51};
    read_back(ncid, w, 0, 2, want);
  }

  /* 2. The ids again: every one unknown now, the whole wait NC_EINVAL_REQUEST. */
  for (int k = 0; k < 4; ++k) statuses[k] = -12345;
  CHECK_ERR(ncmpi_wait_all(ncid, 4, saved, statuses), NC_EINVAL_REQUEST);
  for (int k = 0; k < 4; ++k) CHECK(statuses[k] == NC_EINVAL_REQUEST);

  /* 3. New requests continue the sequence; one named twice in a wait is unknown the second time,
   *    and no request of that wait is carried out. */
  int more[3], st3[3];
  {
    MPI_Offset start = base, count = kLen;
    for (int k = 0; k < kLen; ++k) buf[k] = rank * 100 + 20 + k;
    CHECK_OK(ncmpi_iput_vara_int(ncid, v, &start, &count, buf, &more[0]));
    CHECK(more[0] >= 0);
    more[1] = more[0];
    CHECK_ERR(ncmpi_wait_all(ncid, 2, more, st3), NC_EINVAL_REQUEST);
    CHECK(st3[1] == NC_EINVAL_REQUEST);
    CHECK(more[0] != NC_REQ_NULL);  /* still pending */
    CHECK(nreqs(ncid) == 1);
    CHECK_OK(ncmpi_wait_all(ncid, 1, more, st3));
    CHECK(more[0] == NC_REQ_NULL && st3[0] == NC_NOERR);
    for (int k = 0; k < kLen; ++k) again[k] = rank * 100 + 20 + k;
    read_back(ncid, v, 0, kLen, again);
  }

  /* 4. NC_REQ_NULL entries are skipped; cancel drops a request (nothing written). */
  {
    MPI_Offset start = base + 1, count = 3;
    int vals[3] = {-1, -2, -3};
    CHECK_OK(ncmpi_iput_vara_int(ncid, w, &start, &count, vals, &more[0]));
    int one[1] = {more[0]}, st1[1] = {-12345};
    CHECK_OK(ncmpi_cancel(ncid, 1, one, st1));
    CHECK(one[0] == NC_REQ_NULL && st1[0] == NC_NOERR);
    CHECK(nreqs(ncid) == 0);
    start = base + 4;
    int vals2[3] = {rank + 1000, rank + 1001, rank + 1002};
    more[0] = NC_REQ_NULL;
    CHECK_OK(ncmpi_iput_vara_int(ncid, w, &start, &count, vals2, &more[1]));
    more[2] = NC_REQ_NULL;
    CHECK_OK(ncmpi_wait_all(ncid, 3, more, st3));
    CHECK(more[1] == NC_REQ_NULL && st3[0] == NC_NOERR && st3[1] == NC_NOERR && st3[2] == NC_NOERR);
    int want[kLen];
    MPI_Offset all = kLen;
    MPI_Offset s0 = base;
    int got[kLen];
    CHECK_OK(ncmpi_get_vara_int_all(ncid, w, &s0, &all, got));
    memcpy(want, got, sizeof got);
    want[0] = rank * 100 + 50;  /* from the bput */
    want[1] = rank * 100 + 51;
    want[4] = rank + 1000;
    want[5] = rank + 1001;
    want[6] = rank + 1002;
    /* (element 7 of the last rank lies past the end of the file until written below: PnetCDF
     * leaves such elements of the buffer as they were) */
    read_back(ncid, w, 0, kLen - 1, want);
    CHECK(got[2] != -2 && got[3] != -3);  /* the cancelled iput wrote nothing */
  }

  /* 5. A post whose arguments are wrong gives NC_REQ_NULL and takes no id. */
  {
    MPI_Offset start = (MPI_Offset)kLen * mpi_test_nprocs + 3, count = 1;
    int x = 1, bad = 12345, next = -1;
    CHECK_ERR(ncmpi_iput_vara_int(ncid, v, &start, &count, &x, &bad), NC_EINVALCOORDS);
    CHECK(bad == NC_REQ_NULL);
    start = base;
    CHECK_OK(ncmpi_iput_vara_int(ncid, v, &start, &count, &x, &next));
    CHECK_OK(ncmpi_wait_all(ncid, 1, &next, NULL));
    CHECK(next == NC_REQ_NULL);
  }

  /* 6. NC_REQ_ALL, and an independent wait in independent mode. */
  {
    MPI_Offset start = base + 7, count = 1;
    int x = rank + 77, y = rank + 88, id1, id2;
    CHECK_OK(ncmpi_iput_vara_int(ncid, v, &start, &count, &x, &id1));
    CHECK_OK(ncmpi_iput_vara_int(ncid, w, &start, &count, &y, &id2));
    CHECK(id2 > id1);
    CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
    CHECK(nreqs(ncid) == 0);
    CHECK_OK(ncmpi_begin_indep_data(ncid));
    x = rank + 99;
    CHECK_OK(ncmpi_iput_vara_int(ncid, v, &start, &count, &x, &id1));
    CHECK_OK(ncmpi_wait(ncid, 1, &id1, NULL));
    CHECK(id1 == NC_REQ_NULL);
    CHECK_OK(ncmpi_end_indep_data(ncid));
    int want = rank + 99;
    read_back(ncid, v, 7, 1, &want);
    want = rank + 88;
    read_back(ncid, w, 7, 1, &want);
  }
  CHECK_OK(ncmpi_buffer_detach(ncid));
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
