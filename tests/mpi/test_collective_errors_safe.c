/* With PNETCDF_SAFE_MODE=1 an error in a collective data call on one rank
 * is returned on every rank and no rank writes (or reads) anything. A rank
 * calling a collective put in define mode while the others call enddef
 * gets NC_EINDEFINE, and so do the others: nobody waits forever. */
#include "mpi_test.h"

#define PER 4

int main(int argc, char **argv) {
  setenv("PNETCDF_SAFE_MODE", "1", 1);
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const int bad = rank == nprocs - 1;
  const char *path = mpi_test_path("collective_errors_safe.nc");
  int ncid, dims[2], v, w, g, r;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dims[1], &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_INT, 1, &dims[1], &w));
  CHECK_OK(ncmpi_def_var(ncid, "g", NC_INT, 1, &dims[1], &g));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, dims, &r));

  int mine[PER], got[PER];
  for (int i = 0; i < PER; ++i) mine[i] = 100 * (rank + 1) + i;
  const MPI_Offset end = (MPI_Offset)PER * nprocs;
  MPI_Offset start = (MPI_Offset)PER * rank, count = PER;

  /* Rank 0 puts while still in define mode, the others end define mode. */
  if (rank == 0)
    CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &count, mine), NC_EINDEFINE);
  else
    CHECK_ERR(ncmpi_enddef(ncid), NC_EINDEFINE);
  CHECK_OK(ncmpi_enddef(ncid));

  /* One bad rank: every rank gets its error, nothing is written. */
  MPI_Offset s = bad ? end + 1 : start;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &s, &count, mine), NC_EINVALCOORDS);
  MPI_Offset c = bad ? end + 1 : count;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, v, &start, &c, mine), NC_EEDGE);
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, bad ? 99 : v, &start, &count, mine), NC_ENOTVAR);
  MPI_Offset rs[2] = {0, bad ? end + 1 : start}, rc[2] = {1, PER};
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, r, rs, rc, mine), NC_EINVALCOORDS);
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 0);

  MPI_Datatype ftype;
  MPI_Type_create_subarray(1, (int[]){(int)end}, (int[]){PER}, (int[]){(int)start}, MPI_ORDER_C, MPI_INT, &ftype);
  MPI_Type_commit(&ftype);
  CHECK_ERR(ncmpi_put_vard_all(ncid, bad ? 99 : w, ftype, mine, PER, MPI_INT), NC_ENOTVAR);
  MPI_Type_free(&ftype);

  CHECK_OK(ncmpi_put_vara_int_all(ncid, g, &start, &count, mine));
  for (int i = 0; i < PER; ++i) got[i] = -7;
  CHECK_ERR(ncmpi_get_vara_int_all(ncid, g, &s, &count, got), NC_EINVALCOORDS);
  for (int i = 0; i < PER; ++i) CHECK(got[i] == -7);
  CHECK_OK(ncmpi_get_vara_int_all(ncid, g, &start, &count, got));
  for (int i = 0; i < PER; ++i) CHECK(got[i] == mine[i]);
  CHECK_OK(ncmpi_close(ncid));

  /* Nothing of the failed puts landed: v and w hold the fill value. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int *all = malloc(sizeof(int) * (size_t)end);
  MPI_Offset zero = 0;
  int ids[2] = {v, w};
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(ncmpi_get_vara_int_all(ncid, ids[k], &zero, &end, all));
    for (int i = 0; i < end; ++i) CHECK(all[i] == NC_FILL_INT);
  }
  free(all);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
