/* Nonblocking and buffered I/O: hundreds of interleaved iput/iget requests
 * on fixed and record variables of several types, completed by one wait_all;
 * ranks posting nothing; cancel; bput with buffer reuse; varn, mput, vard;
 * the PnetCDF error codes of bad requests. Every value is checked. */
#include "mpi_test.h"
#if MPI_TEST_IS_EXACDF
#include <exacdf.h>
#endif

#define NY 8
#define NX 40

/* Every rank posts one iput per element of its own columns, interleaved
 * between the two variables, then one wait_all. */
static void many_small_puts(int ncid, int vint, int vdbl) {
  int nreq = 0, reqs[2 * NY * NX], sts[2 * NY * NX];
  static int ivals[NY * NX];
  static double dvals[NY * NX];
  for (int y = 0; y < NY; y++)
    for (int x = mpi_test_rank; x < NX; x += mpi_test_nprocs) {
      MPI_Offset idx[2] = {y, x};
      ivals[y * NX + x] = y * 1000 + x;
      dvals[y * NX + x] = y + x / 100.0;
      CHECK_OK(ncmpi_iput_var1_int(ncid, vint, idx, &ivals[y * NX + x], &reqs[nreq++]));
      CHECK_OK(ncmpi_iput_var1_double(ncid, vdbl, idx, &dvals[y * NX + x], &reqs[nreq++]));
    }
  int pending = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == nreq);
#if MPI_TEST_IS_EXACDF
  MPI_Offset calls_before = 0, calls_after = 0;
  CHECK_OK(exa_inq_io_calls(ncid, &calls_before));
#endif
  CHECK_OK(ncmpi_wait_all(ncid, nreq, reqs, sts));
#if MPI_TEST_IS_EXACDF
  CHECK_OK(exa_inq_io_calls(ncid, &calls_after));
  /* Every put of this rank in one MPI-IO call. exa_inq_io_calls counts every
   * MPI-IO call, so also the 1-byte write that extends the file first
   * (MpiFile::extend_before_write): in a collective wait only the rank(s)
   * reaching the end of all ranks' puts make it. */
  const MPI_Offset mine = calls_after - calls_before;
  CHECK(mine == 1 || mine == 2);
  MPI_Offset extra = mine - 1, all_extra = 0;
  MPI_Allreduce(&extra, &all_extra, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all_extra <= 1);
#endif
  for (int i = 0; i < nreq; i++) CHECK(sts[i] == NC_NOERR && reqs[i] == NC_REQ_NULL);
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == 0);
  /* Read everything back with igets: some ranks post none. */
  int iall[NY * NX];
  double dall[NY * NX];
  nreq = 0;
  if (mpi_test_rank % 2 == 0) {
    for (int y = 0; y < NY; y++) {
      MPI_Offset s[2] = {y, 0}, c[2] = {1, NX};
      CHECK_OK(ncmpi_iget_vara_int(ncid, vint, s, c, &iall[y * NX], &reqs[nreq++]));
      CHECK_OK(ncmpi_iget_vara_double(ncid, vdbl, s, c, &dall[y * NX], &reqs[nreq++]));
    }
  }
  CHECK_OK(ncmpi_wait_all(ncid, nreq, reqs, sts));
  if (mpi_test_rank % 2 == 0)
    for (int i = 0; i < NY * NX; i++) {
      CHECK(iall[i] == (i / NX) * 1000 + i % NX);
      CHECK(dall[i] == (i / NX) + (i % NX) / 100.0);
    }
}

/* Record variable: each rank appends its own record with iput, then all wait. */
static void records(int ncid, int vrec, int dimt) {
  float row[NX];
  for (int x = 0; x < NX; x++) row[x] = (float)(mpi_test_rank * 10 + x);
  MPI_Offset s[2] = {mpi_test_rank, 0}, c[2] = {1, NX};
  int req;
  CHECK_OK(ncmpi_iput_vara_float(ncid, vrec, s, c, row, &req));
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dimt, &nrec));
  CHECK(nrec == mpi_test_nprocs);
  float back[4 * NX];
  MPI_Offset s0[2] = {0, 0}, c0[2] = {mpi_test_nprocs, NX};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, vrec, s0, c0, back));
  for (int r = 0; r < mpi_test_nprocs; r++)
    for (int x = 0; x < NX; x++) CHECK(back[r * NX + x] == (float)(r * 10 + x));
}

/* bput: the buffer is reusable right after posting; usage accounting; errors. */
static void buffered(int ncid, int vint) {
  int req[2], st[2], value = 0;
  MPI_Offset usage = -1, size = -1, idx[2] = {0, mpi_test_rank};
  CHECK_ERR(ncmpi_bput_var1_int(ncid, vint, idx, &value, &req[0]), NC_ENULLABUF);
  CHECK_OK(ncmpi_buffer_attach(ncid, 8));
  CHECK_ERR(ncmpi_buffer_attach(ncid, 8), NC_EPREVATTACHBUF);
  value = -5;
  CHECK_OK(ncmpi_bput_var1_int(ncid, vint, idx, &value, &req[0]));
  value = 12345; /* must not affect the posted request */
  idx[0] = 1;
  CHECK_OK(ncmpi_bput_var1_int(ncid, vint, idx, &value, &req[1]));
  CHECK_OK(ncmpi_inq_buffer_usage(ncid, &usage));
  CHECK_OK(ncmpi_inq_buffer_size(ncid, &size));
  CHECK(usage == 8 && size == 8);
  int refused;
  CHECK_ERR(ncmpi_bput_var1_int(ncid, vint, idx, &value, &refused), NC_EINSUFFBUF);
  CHECK_ERR(ncmpi_buffer_detach(ncid), NC_EPENDINGBPUT);
  CHECK_OK(ncmpi_wait_all(ncid, 2, req, st));
  CHECK(st[0] == NC_NOERR && st[1] == NC_NOERR);
  CHECK_OK(ncmpi_inq_buffer_usage(ncid, &usage));
  CHECK(usage == 0);
  CHECK_OK(ncmpi_buffer_detach(ncid));
  int got[2];
  MPI_Offset s[2] = {0, mpi_test_rank}, c[2] = {2, 1};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vint, s, c, got));
  CHECK(got[0] == -5 && got[1] == 12345);
}

static void cancel_and_bad_ids(int ncid, int vint) {
  int v = 7, req, st;
  MPI_Offset idx[2] = {2, mpi_test_rank};
  CHECK_OK(ncmpi_iput_var1_int(ncid, vint, idx, &v, &req));
  int kept = req;
  CHECK_OK(ncmpi_cancel(ncid, 1, &req, &st));
  CHECK(st == NC_NOERR);
  int pending = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == 0);
  /* Waiting on a request that is gone reports it in its status. */
  int bogus[2] = {kept, NC_REQ_NULL}, sts[2] = {-1, -1};
  ncmpi_wait_all(ncid, 2, bogus, sts);
  CHECK(sts[0] == NC_EINVAL_REQUEST && sts[1] == NC_NOERR);
  int got = -1;
  CHECK_OK(ncmpi_get_var1_int_all(ncid, vint, idx, &got));
  CHECK(got != 7); /* the cancelled put never happened */
  /* Cancelling a request that already completed is reported in its status. */
  CHECK_OK(ncmpi_iput_var1_int(ncid, vint, idx, &v, &req));
  int done = req;
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &st));
  st = -1;
  ncmpi_cancel(ncid, 1, &done, &st);
  CHECK(st == NC_EINVAL_REQUEST);
  CHECK_OK(ncmpi_get_var1_int_all(ncid, vint, idx, &got));
  CHECK(got == 7);
}

static void varn_mput_vard(int ncid, int vint, int vdbl) {
  /* varn: two rows of this rank's column pair in one call. */
  MPI_Offset s0[2] = {3, mpi_test_rank}, s1[2] = {5, mpi_test_rank}, c[2] = {1, 1};
  MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c, c};
  int vals[2] = {mpi_test_rank + 300, mpi_test_rank + 500};
  CHECK_OK(ncmpi_put_varn_int_all(ncid, vint, 2, starts, counts, vals));
  int back[2] = {0, 0};
  CHECK_OK(ncmpi_get_varn_int_all(ncid, vint, 2, starts, counts, back));
  CHECK(back[0] == vals[0] && back[1] == vals[1]);
  /* mput: one element of each of the two variables. */
  int varids[2] = {vint, vdbl};
  MPI_Offset m[2] = {6, mpi_test_rank}, one[2] = {1, 1};
  MPI_Offset *ms[2] = {m, m}, *mc[2] = {one, one};
  int iv = 4242;
  double dv = 42.5;
  void *bufs[2] = {&iv, &dv};
  MPI_Offset bufcounts[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_OK(ncmpi_mput_vara_all(ncid, 2, varids, ms, mc, bufs, bufcounts, types));
  int ig = 0;
  double dg = 0;
  CHECK_OK(ncmpi_get_var1_int_all(ncid, vint, m, &ig));
  CHECK_OK(ncmpi_get_var1_double_all(ncid, vdbl, m, &dg));
  CHECK(ig == 4242 && dg == 42.5);
  /* vard: row 7 written through a subarray file type built by the caller. */
  int sizes[2] = {NY, NX}, subs[2] = {1, NX}, starts7[2] = {7, 0};
  MPI_Datatype ftype;
  MPI_Type_create_subarray(2, sizes, subs, starts7, MPI_ORDER_C, MPI_INT, &ftype);
  MPI_Type_commit(&ftype);
  int row[NX];
  for (int x = 0; x < NX; x++) row[x] = 7000 + x;
  CHECK_OK(ncmpi_put_vard_all(ncid, vint, ftype, row, mpi_test_rank == 0 ? NX : 0, MPI_INT));
  int rback[NX];
  CHECK_OK(ncmpi_get_vard_all(ncid, vint, ftype, rback, NX, MPI_INT));
  for (int x = 0; x < NX; x++) CHECK(rback[x] == 7000 + x);
  MPI_Type_free(&ftype);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  int ncid, dt, dy, dx, vint, vdbl, vrec, dims[2], req;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("nb.nc"), NC_CLOBBER | NC_64BIT_DATA,
                        MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dy));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dx));
  dims[0] = dy; dims[1] = dx;
  CHECK_OK(ncmpi_def_var(ncid, "i", NC_INT, 2, dims, &vint));
  CHECK_OK(ncmpi_def_var(ncid, "d", NC_DOUBLE, 2, dims, &vdbl));
  dims[0] = dt;
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 2, dims, &vrec));
  /* Posting in define mode is allowed (PnetCDF); the request runs at the wait. */
  int v = 99;
  MPI_Offset idx[2] = {7, NX - 1};
  CHECK_OK(ncmpi_iput_var1_int(ncid, vint, idx, &v, &req));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, NULL));
  int got = 0;
  CHECK_OK(ncmpi_get_var1_int_all(ncid, vint, idx, &got));
  CHECK(got == 99);
  many_small_puts(ncid, vint, vdbl);
  records(ncid, vrec, dt);
  buffered(ncid, vint);
  cancel_and_bad_ids(ncid, vint);
  varn_mput_vard(ncid, vint, vdbl);
  CHECK_OK(ncmpi_close(ncid));
  /* Reopened, the values are still there. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("nb.nc"), NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int row7[NX];
  MPI_Offset s[2] = {7, 0}, c[2] = {1, NX};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vint, s, c, row7));
  for (int x = 0; x < NX; x++) CHECK(row7[x] == 7000 + x);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
