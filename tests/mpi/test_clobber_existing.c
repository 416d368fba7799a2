/* NC_CLOBBER over what is at the path: a netCDF file with more data than the
 * new one, a file of foreign bytes, an empty file, and no file at all. Each
 * time the new file holds only what was defined and written after the create:
 * its size is the new header and data (the old bytes are gone), its header
 * says what the new definitions say, its values read back. (exacdf truncates
 * only a file that has contents: a truncate to size 0 of a new file makes
 * ext4 start writeback at its close.) */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_test.h"

#define NSMALL 10

static long long size_of(const char *path) {
  long long size = -1;
  if (mpi_test_rank == 0) {
    struct stat sb;
    if (stat(path, &sb) == 0) size = (long long)sb.st_size;
  }
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return size;
}

/* Rank 0 puts `bytes` bytes of 0xAB at the path (0: an empty file). */
static void foreign_file(const char *path, long long bytes) {
  if (mpi_test_rank == 0) {
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    char block[4096];
    memset(block, 0xAB, sizeof block);
    for (long long done = 0; fd >= 0 && done < bytes; done += (long long)sizeof block)
      CHECK(write(fd, block, sizeof block) == (ssize_t)sizeof block);
    if (fd >= 0) CHECK(close(fd) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A CDF-5 file with one int variable of n values, every rank writing its share. */
static void big_file(const char *path, MPI_Offset n) {
  int ncid, dimid, varid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", n, &dimid));
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_INT, 1, &dimid, &varid));
  CHECK_OK(ncmpi_enddef(ncid));
  MPI_Offset share = n / mpi_test_nprocs;
  MPI_Offset start = share * mpi_test_rank;
  MPI_Offset count = mpi_test_rank == mpi_test_nprocs - 1 ? n - start : share;
  int *v = (int *)malloc((size_t)count * sizeof(int));
  for (MPI_Offset i = 0; i < count; i++) v[i] = (int)(start + i);
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, &start, &count, v));
  free(v);
  CHECK_OK(ncmpi_close(ncid));
}

/* Creates a CDF-2 file with one variable of NSMALL ints (rank 0 writes them,
 * collectively), then checks what is in it. */
static void small_file_over(const char *path, const char *what) {
  int ncid, dimid, varid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "m", NSMALL, &dimid));
  CHECK_OK(ncmpi_def_var(ncid, "small", NC_INT, 1, &dimid, &varid));
  CHECK_OK(ncmpi_enddef(ncid));
  int v[NSMALL];
  for (int i = 0; i < NSMALL; i++) v[i] = 100 + i;
  MPI_Offset start = 0, count = mpi_test_rank == 0 ? NSMALL : 0;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, &start, &count, v));
  CHECK_OK(ncmpi_close(ncid));

  long long size = size_of(path);
  if (size <= 0 || size > 4096) {
    CHECK(size > 0 && size <= 4096);
    if (mpi_test_rank == 0) fprintf(stderr, "  over %s: file of %lld bytes\n", what, size);
  }
  int ndims = -1, nvars = -1, natts = -1, unlim = -2, format = -1;
  MPI_Offset len = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq(ncid, &ndims, &nvars, &natts, &unlim));
  CHECK(ndims == 1 && nvars == 1 && natts == 0 && unlim == -1);
  CHECK_OK(ncmpi_inq_format(ncid, &format));
  CHECK(format == NC_FORMAT_CDF2);
  CHECK_ERR(ncmpi_inq_varid(ncid, "big", &varid), NC_ENOTVAR);
  CHECK_OK(ncmpi_inq_varid(ncid, "small", &varid));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &len));
  CHECK(len == NSMALL);
  int got[NSMALL];
  memset(got, 0, sizeof got);
  count = NSMALL;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, &start, &count, got));
  for (int i = 0; i < NSMALL; i++) CHECK(got[i] == 100 + i);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const char *path = mpi_test_path("clobber_existing.nc");
  char keep[1200];
  snprintf(keep, sizeof keep, "%s", path);

  /* A netCDF file with 256 KiB of data under it. */
  big_file(keep, 65536);
  CHECK(size_of(keep) >= 65536 * 4);
  small_file_over(keep, "a larger netCDF file");

  /* Foreign bytes, not a netCDF header. */
  foreign_file(keep, 100 * 1024);
  CHECK(size_of(keep) == 100 * 1024);
  small_file_over(keep, "a file of foreign bytes");

  /* An empty file. */
  foreign_file(keep, 0);
  CHECK(size_of(keep) == 0);
  small_file_over(keep, "an empty file");

  /* Nothing at the path. */
  if (mpi_test_rank == 0) unlink(keep);
  MPI_Barrier(MPI_COMM_WORLD);
  small_file_over(keep, "no file");

  /* And the same new file clobbered again by itself. */
  small_file_over(keep, "the same small file");

  if (mpi_test_rank == 0) unlink(keep);
  return mpi_test_finish();
}
