/* Without safe mode an error in a collective data call is the rank's own:
 * the rank that passed a bad start, count or id gets NC_EINVALCOORDS,
 * NC_EEDGE or NC_ENOTVAR, still takes part with nothing, and the other ranks
 * get NC_NOERR and their data lands (read back below). The last rank is the
 * bad one; at one rank it is alone and its slot keeps the fill value. */
#include "mpi_test.h"

#define PER 4 /* elements each rank owns */

static int expect(int bad, int code) { return bad ? code : NC_NOERR; }

int main(int argc, char **argv) {
  unsetenv("PNETCDF_SAFE_MODE");
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const int bad = rank == nprocs - 1;
  const char *path = mpi_test_path("collective_errors.nc");
  int ncid, dims[2], v, r, w, g;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dims[1], &v));  /* put_vara */
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_INT, 1, &dims[1], &w));  /* put_vard */
  CHECK_OK(ncmpi_def_var(ncid, "g", NC_INT, 1, &dims[1], &g));  /* get_vara */
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, dims, &r));      /* record */
  CHECK_OK(ncmpi_enddef(ncid));

  int mine[PER], got[PER];
  for (int i = 0; i < PER; ++i) mine[i] = 100 * (rank + 1) + i;
  const MPI_Offset end = (MPI_Offset)PER * nprocs;
  MPI_Offset start = (MPI_Offset)PER * rank, count = PER;

  /* Bad start, bad count, bad id: the error is the bad rank's only. */
  MPI_Offset s = bad ? end + 1 : start;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &s, &count, mine), expect(bad, NC_EINVALCOORDS));
  MPI_Offset c = bad ? end + 1 : count;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &c, mine), expect(bad, NC_EEDGE));
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, bad ? 99 : v, &start, &count, mine), expect(bad, NC_ENOTVAR));

  /* put_vard with a bad id on the bad rank. */
  MPI_Datatype ftype;
  MPI_Type_create_subarray(1, (int[]){(int)end}, (int[]){PER}, (int[]){(int)start}, MPI_ORDER_C, MPI_INT, &ftype);
  MPI_Type_commit(&ftype);
  CHECK_ERR(ncmpi_put_vard_all(ncid, bad ? 99 : w, ftype, mine, PER, MPI_INT), expect(bad, NC_ENOTVAR));
  MPI_Type_free(&ftype);

  /* Every rank writes g, then reads it with a bad start on the bad rank:
   * the good ranks get their values, the bad rank's buffer is untouched. */
  CHECK_OK(ncmpi_put_vara_int_all(ncid, g, &start, &count, mine));
  for (int i = 0; i < PER; ++i) got[i] = -7;
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, g, &s, &count, got), expect(bad, NC_EINVALCOORDS));
  for (int i = 0; i < PER; ++i) CHECK(got[i] == (bad ? -7 : mine[i]));

  /* A posted request with a bad start fails when posted; wait_all is fine. */
  int req = NC_REQ_NULL, st = NC_NOERR;
  int err = ncmpi_iput_vara_int(ncid, v, &s, &count, mine, &req);
  CHECK_ERR(err, expect(bad, NC_EINVALCOORDS));
  CHECK_OK(ncmpi_wait_all(ncid, err == NC_NOERR ? 1 : 0, &req, &st));
  CHECK(st == NC_NOERR);

#if MPI_TEST_IS_EXACDF
  /* Record variable, bad coordinates on the bad rank: it still takes part in
   * the agreement on numrecs (PnetCDF's bad rank does not, and the others wait
   * forever), so every rank returns and sees the records the others wrote. */
  MPI_Offset rs[2] = {0, bad ? end + 1 : start}, rc[2] = {1, PER};
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, r, rs, rc, mine), expect(bad, NC_EINVALCOORDS));
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == (nprocs > 1 ? 1 : 0));
#endif
  CHECK_OK(ncmpi_close(ncid));

  /* Read back: the good ranks' slots hold their values, the bad rank's the fill. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int *all = malloc(sizeof(int) * (size_t)end);
  MPI_Offset zero = 0;
  int ids[2] = {v, w};
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(ncmpi_get_vara_int_all(ncid, ids[k], &zero, &end, all));
    for (int q = 0; q < nprocs; ++q)
      for (int i = 0; i < PER; ++i)
        CHECK(all[q * PER + i] == (q == nprocs - 1 ? NC_FILL_INT : 100 * (q + 1) + i));
  }
  free(all);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
