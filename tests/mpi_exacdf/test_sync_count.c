/* ncmpi_sync makes one MPI_File_sync per rank, as PnetCDF 1.12.3 does
 * (ncmpio_file_sync: MPI_File_sync, MPI_Barrier; the same program built
 * against Debian's PnetCDF with -rdynamic counts 1 per rank at 1, 2 and 4
 * ranks). Before, exacdf synced, barriered and synced again: two fsyncs per
 * rank at 2 and more ranks. A file whose records grew syncs twice: the
 * records' bytes, then the record count (exacdf's ordered commit; PnetCDF
 * orders nothing there); rank 0 writes the count through a handle of its
 * own (MPI_COMM_SELF), synced only when it wrote since its last sync, so the
 * next ncmpi_sync is one MPI_File_sync again. Counted by defining
 * MPI_File_sync here (the executable exports it: tests/CMakeLists.txt). */
#include "mpi_test.h"

static long long file_syncs = 0;

int MPI_File_sync(MPI_File fh) {
  file_syncs++;
  return PMPI_File_sync(fh);
}

/* MPI_File_sync calls of this rank during one ncmpi_sync. */
static long long syncs_of(int ncid) {
  const long long before = file_syncs;
  CHECK_OK(ncmpi_sync(ncid));
  return file_syncs - before;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  int ncid, dims[2], fixed, rec;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("sync.nc"), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL,
                        &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4 * mpi_test_nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "fixed", NC_INT, 1, &dims[1], &fixed));
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_INT, 2, dims, &rec));
  CHECK_OK(ncmpi_enddef(ncid));

  int v[4] = {1, 2, 3, 4};
  MPI_Offset start[2] = {0, 4 * mpi_test_rank}, count[2] = {1, 4};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, fixed, &start[1], &count[1], v));
  long long n = syncs_of(ncid);
  CHECK(n == 1);
  if (n != 1) fprintf(stderr, "rank %d: ncmpi_sync after a fixed-size put: %lld MPI_File_sync\n", mpi_test_rank, n);
  CHECK(syncs_of(ncid) == 1); /* nothing new: still one */

  /* Records grown by this put: at most the records' sync and the count's. */
  CHECK_OK(ncmpi_put_vara_int_all(ncid, rec, start, count, v));
  n = syncs_of(ncid);
  CHECK(n >= 1 && n <= 2);
  if (n < 1 || n > 2) fprintf(stderr, "rank %d: ncmpi_sync after a record put: %lld\n", mpi_test_rank, n);
  n = syncs_of(ncid);
  CHECK(n == 1);
  if (n != 1) fprintf(stderr, "rank %d: ncmpi_sync after nothing new: %lld\n", mpi_test_rank, n);

  /* The bytes are there: read back by another rank's share. */
  int back[4] = {0, 0, 0, 0};
  MPI_Offset other = 4 * ((mpi_test_rank + 1) % mpi_test_nprocs), four = 4;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, fixed, &other, &four, back));
  CHECK(back[0] == 1 && back[3] == 4);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
