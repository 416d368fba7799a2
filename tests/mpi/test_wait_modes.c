/* Waits and data modes, and the ids requests get, as PnetCDF 1.12.3 has them:
 * - ncmpi_wait (independent) in collective data mode is NC_ENOTINDEP and
 *   ncmpi_wait_all (collective) in independent data mode is NC_EINDEP; nothing
 *   is done, the requests stay pending and a wait in the right mode completes
 *   them;
 * - put requests (iput, bput) get even ids 0, 2, 4, ..., get requests odd ids
 *   1, 3, 5, ...; each sequence starts again at 0 (1) when no request of its
 *   kind is pending (after a wait or a cancel), and goes on otherwise. */
#include <pnetcdf.h>
#include "mpi_test.h"

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("wait_modes.nc");
  int ncid, d, v, st[8], a[8];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4 * (MPI_Offset)nprocs, &d));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  int val = 100 + rank, got = -1;
  MPI_Offset s = rank, c = 1;

  /* Collective data mode: ncmpi_wait is refused, the request stays. */
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[0]));
  CHECK(a[0] == 0);
  st[0] = -1;
  CHECK_ERR(ncmpi_wait(ncid, 1, a, st), NC_ENOTINDEP);
  CHECK(a[0] == 0);
  int pending = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == 1);
  CHECK_OK(ncmpi_wait_all(ncid, 1, a, st));
  CHECK(a[0] == NC_REQ_NULL && st[0] == NC_NOERR);

  /* Independent data mode: ncmpi_wait_all is refused, ncmpi_wait works. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  s = nprocs + rank;
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[0]));
  CHECK_ERR(ncmpi_wait_all(ncid, 1, a, st), NC_EINDEP);
  CHECK_OK(ncmpi_inq_nreqs(ncid, &pending));
  CHECK(pending == 1);
  CHECK_OK(ncmpi_wait(ncid, 1, a, st));
  CHECK(a[0] == NC_REQ_NULL && st[0] == NC_NOERR);
  CHECK_ERR(ncmpi_wait_all(ncid, 0, NULL, NULL), NC_EINDEP);  /* the mode first, even for nothing */
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_ERR(ncmpi_wait(ncid, 0, NULL, NULL), NC_ENOTINDEP);

  /* Ids: puts even, gets odd, each kind counting on while one of it is pending. */
  s = rank;
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[0]));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[1]));
  CHECK_OK(ncmpi_iget_vara_int(ncid, v, &s, &c, &got, &a[2]));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[3]));
  CHECK_OK(ncmpi_iget_vara_int(ncid, v, &s, &c, &got, &a[4]));
  CHECK(a[0] == 0 && a[1] == 2 && a[2] == 1 && a[3] == 4 && a[4] == 3);
  int w[2] = {a[1], a[3]};  /* puts 2 and 4 done, put 0 pending: puts go on at 6 */
  CHECK_OK(ncmpi_wait_all(ncid, 2, w, st));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[5]));
  CHECK(a[5] == 6);
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  /* Nothing pending: both start again. */
  CHECK_OK(ncmpi_iget_vara_int(ncid, v, &s, &c, &got, &a[0]));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[1]));
  CHECK(a[0] == 1 && a[1] == 0);
  /* Only the get done: gets start again, puts go on. */
  CHECK_OK(ncmpi_wait_all(ncid, 1, &a[0], st));
  CHECK(got == val);
  CHECK_OK(ncmpi_iget_vara_int(ncid, v, &s, &c, &got, &a[2]));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[3]));
  CHECK(a[2] == 1 && a[3] == 2);
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  /* A cancel that leaves no put pending starts the puts again; bput counts as a put. */
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[0]));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[1]));
  CHECK_OK(ncmpi_cancel(ncid, 2, a, st));
  CHECK_OK(ncmpi_buffer_attach(ncid, 1024));
  CHECK_OK(ncmpi_bput_vara_int(ncid, v, &s, &c, &val, &a[0]));
  CHECK_OK(ncmpi_iput_vara_int(ncid, v, &s, &c, &val, &a[1]));
  CHECK(a[0] == 0 && a[1] == 2);
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  CHECK_OK(ncmpi_buffer_detach(ncid));
  CHECK_OK(ncmpi_close(ncid));

  /* What the waits wrote. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int back[2] = {-1, -1};
  MPI_Offset idx[2] = {rank, nprocs + rank};
  CHECK_OK(ncmpi_get_var1_int_all(ncid, v, &idx[0], &back[0]));
  CHECK_OK(ncmpi_get_var1_int_all(ncid, v, &idx[1], &back[1]));
  CHECK(back[0] == val && back[1] == val);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
