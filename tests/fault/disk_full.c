/*
 * disk_full DIR: DIR is a small, empty file system (run_disk_full.sh mounts a
 * tmpfs). A write that does not fit must be reported (NC_EWRITE or
 * NC_ENO_SPACE, never success), and a partitioned file whose commit ran out
 * of space must reopen to the previous generation with its data intact.
 */
#include <errno.h>
#include <exacdf.h>
#include <fcntl.h>
#include <unistd.h>

#include "mpi_test.h"

static int is_space_error(int err) { return err == NC_EWRITE || err == NC_ENO_SPACE; }

/* Classic: a variable larger than the file system; the put or the close fails. */
static void classic_full(void) {
  int ncid, d, v;
  const MPI_Offset n = 1 << 20; /* 4 MiB of ints */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("classic.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", n, &d));
  CHECK_OK(ncmpi_def_var(ncid, "x", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  MPI_Offset share = n / mpi_test_nprocs;
  MPI_Offset start = share * mpi_test_rank, count = mpi_test_rank == mpi_test_nprocs - 1 ? n - start : share;
  int *x = malloc((size_t)count * sizeof(int));
  for (MPI_Offset i = 0; i < count; i++) x[i] = (int)(start + i);
  int put = ncmpi_put_vara_int_all(ncid, v, &start, &count, x);
  free(x);
  int closed = ncmpi_close(ncid);
  if (mpi_test_rank == 0) printf("classic: put %d (%s), close %d\n", put, ncmpi_strerrno(put), closed);
  /* The rank whose part lies beyond the space must see it; all agree on some failure. */
  int mine = is_space_error(put) || is_space_error(closed), any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(any);
  CHECK(put == NC_NOERR || is_space_error(put));
  if (mpi_test_rank == 0) unlink(mpi_test_path("classic.nc"));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 fills the file system with a filler file. */
static void fill_up(void) {
  if (mpi_test_rank == 0) {
    int fd = open(mpi_test_path("filler"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0);
    static char chunk[4096];
    while (fd >= 0 && write(fd, chunk, sizeof chunk) > 0) {
    }
    if (fd >= 0) close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void partitioned_full(void) {
  const char *path = mpi_test_path("part.exa");
  char keep[1200];
  snprintf(keep, sizeof keep, "%s", path);
  int ncid, d, v, damaged = -1;
  long long before = 0, after = 0;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, keep, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 16, &d));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = 3 * i + 1;
  CHECK_OK(ncmpi_put_var_int_all(ncid, v, a));
  CHECK_OK(exa_inq_generation(ncid, &before, NULL));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, keep, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_generation(ncid, &before, NULL));
  CHECK_OK(ncmpi_close(ncid));

  fill_up();
  /* A commit that needs much more space than is left: a big attribute and
   * a big variable with fill values. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, keep, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  static char text[256 << 10];
  memset(text, 'x', sizeof text);
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "big", sizeof text, text));
  int ended = ncmpi_enddef(ncid);
  int closed = ncmpi_close(ncid);
  if (mpi_test_rank == 0) printf("partitioned: enddef %d (%s), close %d (%s)\n", ended, ncmpi_strerrno(ended), closed, ncmpi_strerrno(closed));
  CHECK(is_space_error(ended) || is_space_error(closed));

  /* The previous generation, its data intact, and no trace of the attribute. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, keep, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_generation(ncid, &after, &damaged));
  if (mpi_test_rank == 0) printf("partitioned: generation %lld before, %lld after (newer damaged %d)\n", before, after, damaged);
  CHECK(after == before);
  MPI_Offset len = -1;
  CHECK_ERR(ncmpi_inq_attlen(ncid, NC_GLOBAL, "big", &len), NC_ENOTATT);
  int got[16] = {0};
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &v));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, got));
  for (int i = 0; i < 16; i++) CHECK(got[i] == 3 * i + 1);
  CHECK_OK(ncmpi_close(ncid));
  if (mpi_test_rank == 0) {
    unlink(keep);
    unlink(mpi_test_path("filler"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  classic_full();
  partitioned_full();
  return mpi_test_finish();
}
