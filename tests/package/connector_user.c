/* A PnetCDF program run through an out-of-tree connector
 * (run_connector_test.sh): writes a variable with blocking and nonblocking
 * puts and an attribute, reads them back and checks them. With argv[2] =
 * "expect-einval" it checks instead that create and open fail with NC_EINVAL
 * on every rank (a missing plugin, a bad version, a bad setting). */
#include <stdio.h>
#include <string.h>

#include <pnetcdf.h>

#define N 8

static int failures = 0;
#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                    \
    }                                                                \
  } while (0)

static int expect_einval(const char *path) {
  int ncid = -1;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) == NC_EINVAL);
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid) == NC_EINVAL);
  return failures;
}

static int round_trip(const char *path, int rank, int nprocs) {
  int ncid, dimid, varid, err;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) == NC_NOERR);
  CHECK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * nprocs, &dimid) == NC_NOERR);
  CHECK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dimid, &varid) == NC_NOERR);
  CHECK(ncmpi_put_att_text(ncid, varid, "units", 5, "count") == NC_NOERR);
  CHECK(ncmpi_enddef(ncid) == NC_NOERR);
  int data[N];
  for (int i = 0; i < N; i++) data[i] = rank * 1000 + i;
  MPI_Offset start = (MPI_Offset)rank * N, count = N / 2;
  CHECK(ncmpi_put_vara_int_all(ncid, varid, &start, &count, data) == NC_NOERR);
  MPI_Offset start2 = start + N / 2;
  int req = -1, status = -1;
  CHECK(ncmpi_iput_vara_int(ncid, varid, &start2, &count, data + N / 2, &req) == NC_NOERR);
  CHECK(ncmpi_wait_all(ncid, 1, &req, &status) == NC_NOERR);
  CHECK(status == NC_NOERR);
  CHECK(ncmpi_close(ncid) == NC_NOERR);

  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid) == NC_NOERR);
  CHECK(ncmpi_inq_varid(ncid, "v", &varid) == NC_NOERR);
  char units[8] = {0};
  CHECK(ncmpi_get_att_text(ncid, varid, "units", units) == NC_NOERR);
  CHECK(strcmp(units, "count") == 0);
  int back[N];
  count = N;
  memset(back, 0, sizeof back);
  CHECK(ncmpi_get_vara_int_all(ncid, varid, &start, &count, back) == NC_NOERR);
  for (int i = 0; i < N; i++) CHECK(back[i] == rank * 1000 + i);
  /* An error from below comes back through the plugin. */
  err = ncmpi_put_vara_int_all(ncid, varid, &start, &count, back);
  CHECK(err == NC_EPERM);
  CHECK(ncmpi_close(ncid) == NC_NOERR);
  return failures;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [expect-einval]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int bad = (argc > 2 && strcmp(argv[2], "expect-einval") == 0) ? expect_einval(argv[1])
                                                                 : round_trip(argv[1], rank, nprocs);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("connector_user: %s\n", any ? "FAILED" : "passed");
  MPI_Finalize();
  return any ? 1 : 0;
}
