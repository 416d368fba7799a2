/* The connector stack chosen at run time (EXACDF_CONNECTORS, hint
 * exa_connectors): stacks that work give the same file; an unknown name, a
 * bad setting, a malformed list or ranks asking for different stacks are
 * NC_EINVAL at create and open on every rank, and leave no file open. */
#include "mpi_test.h"

static MPI_Info hint(const char *connectors) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", connectors);
  return info;
}

/* Creates, writes, reopens and checks a small file through `connectors`
 * (NULL: no hint). */
static void round_trip(const char *connectors, const char *name) {
  MPI_Info info = connectors ? hint(connectors) : MPI_INFO_NULL;
  const char *path = mpi_test_path(name);
  int ncid, dimid, varid, nreqs = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4 * (MPI_Offset)mpi_test_nprocs, &dimid));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_DOUBLE, 1, &dimid, &varid));
  CHECK_OK(ncmpi_enddef(ncid));
  double out[4] = {mpi_test_rank, 1.5, 2.5, 3.5}, in[4] = {0};
  MPI_Offset start = 4 * (MPI_Offset)mpi_test_rank, count = 4;
  int req;
  CHECK_OK(ncmpi_iput_vara_double(ncid, varid, &start, &count, out, &req));
  CHECK_OK(ncmpi_inq_nreqs(ncid, &nreqs));
  CHECK(nreqs == 1);
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, NULL));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  CHECK_OK(ncmpi_get_vara_double_all(ncid, varid, &start, &count, in));
  for (int i = 0; i < 4; i++) CHECK(in[i] == out[i]);
  CHECK_ERR(ncmpi_put_vara_double_all(ncid, varid, &start, &count, in), NC_EPERM);
  CHECK_OK(ncmpi_close(ncid));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

/* create and open both fail with `code` and hand out no ncid. */
static void refused(const char *connectors, int code) {
  MPI_Info info = connectors ? hint(connectors) : MPI_INFO_NULL;
  int ncid = -7;
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("refused.nc"), NC_CLOBBER, info, &ncid), code);
  CHECK(ncid == -7);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, mpi_test_path("stack_a.nc"), NC_NOWRITE, info, &ncid), code);
  CHECK(ncid == -7);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  unsetenv("EXACDF_CONNECTORS");

  round_trip(NULL, "stack_a.nc");
  round_trip("passthrough", "stack_b.nc");
  round_trip(" passthrough , passthrough , native ", "stack_c.nc");
  round_trip("native", "stack_d.nc");
  round_trip("safe,passthrough", "stack_e.nc");

  refused("no_such_connector", NC_EINVAL);
  refused("passthrough{colour=red}", NC_EINVAL);
  refused("passthrough,,native", NC_EINVAL);
  refused("native,passthrough", NC_EINVAL);
  refused("passthrough{", NC_EINVAL);

  /* EXACDF_CONNECTORS is used when no hint is given; the hint wins over it. */
  setenv("EXACDF_CONNECTORS", "no_such_connector", 1);
  refused(NULL, NC_EINVAL);
  round_trip("passthrough", "stack_f.nc");
  setenv("EXACDF_CONNECTORS", "passthrough", 1);
  round_trip(NULL, "stack_g.nc");
  unsetenv("EXACDF_CONNECTORS");

  /* One rank alone asking for something bad fails every rank. */
  refused(mpi_test_rank == mpi_test_nprocs - 1 ? "no_such_connector" : "passthrough", NC_EINVAL);
  /* Ranks asking for different (valid) stacks. */
  if (mpi_test_nprocs > 1) refused(mpi_test_rank == 0 ? "passthrough" : "native", NC_EINVAL);

  return mpi_test_finish();
}
