/*
 * SWMR timer commits (exa_swmr_commit_interval, issue 19): a writer that
 * never calls ncmpi_sync still commits at a collective put of a record
 * variable once the interval has passed since its first put after the last
 * commit; a reader refreshing sees the records. The interval here is 1 µs,
 * so whether a put commits does not depend on timing: the first put after a
 * commit starts the timer, the next one commits. Without the hint nothing
 * is committed before ncmpi_sync. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static void put_record(int w, int varid, int rec) {
  int val = 10 * rec + 1;
  MPI_Offset start[1] = {rec}, count[1] = {mpi_test_rank == 0 ? 1 : 0};
  CHECK_OK(ncmpi_put_vara_int_all(w, varid, start, count, &val));
}

static void run(const char *name, const char *interval) {
  const char *path = mpi_test_path(name);
  MPI_Info info;
  int w, r, t, v;
  long long g0 = 0, g = 0;
  MPI_Offset nrec = 0;
  MPI_Info_create(&info);
  if (interval) MPI_Info_set(info, "exa_swmr_commit_interval", interval);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(w, "time", NC_UNLIMITED, &t));
  CHECK_OK(ncmpi_def_var(w, "v", NC_INT, 1, &t, &v));
  CHECK_OK(ncmpi_enddef(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  CHECK_OK(exa_inq_generation(r, &g0, NULL));
  for (int rec = 0; rec < 6; rec++) {
    put_record(w, v, rec);
    CHECK_OK(exa_refresh(r));
    CHECK_OK(exa_inq_generation(r, &g, NULL));
    CHECK_OK(ncmpi_inq_dimlen(r, 0, &nrec));
    if (interval) {
      /* puts 0, 2, 4 start the timer; puts 1, 3, 5 commit */
      CHECK(g == g0 + (rec + 1) / 2);
      CHECK(nrec == (rec % 2 ? rec + 1 : rec));
    } else {
      CHECK(g == g0 && nrec == 0);
    }
  }
  for (MPI_Offset rec = 0; rec < nrec; rec++) {
    int got = 0;
    MPI_Offset start[1] = {rec}, count[1] = {1};
    CHECK_OK(ncmpi_get_vara_int_all(r, 0, start, count, &got));
    CHECK(got == 10 * (int)rec + 1);
  }
  CHECK_OK(ncmpi_sync(w));
  CHECK_OK(exa_refresh(r));
  CHECK_OK(ncmpi_inq_dimlen(r, 0, &nrec));
  CHECK(nrec == 6);
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run("swmr_timer.nc", "0.000001");
  run("swmr_no_timer.nc", NULL);
  return mpi_test_finish();
}
