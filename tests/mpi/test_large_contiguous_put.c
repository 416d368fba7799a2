/* Collective puts where a rank's piece is one large contiguous run of the
 * file (4 MiB), mixed in the same call with ranks whose piece is not
 * contiguous, is small, or is empty; fixed-size and record variables, values
 * swapped in place and back (float) and converted (int -> double). Every
 * value is read back on every rank, the caller's buffer is unchanged, and
 * the record count is the agreed one. */
#include <pnetcdf.h>
#include <stdlib.h>

#include "mpi_test.h"

#define NY 1024
#define NX 1024 /* one float plane: 4 MiB */
#define PLANE ((MPI_Offset)NY * NX)

static float fvalue(int plane, MPI_Offset i) { return (float)(plane * 1000003 + i % 1000003); }
static int ivalue(int plane, MPI_Offset i) { return plane * 7919 + (int)(i % 100003); }

/* Reads plane `z` of a 3-D float variable and checks it. */
static void check_plane(int ncid, int varid, int z, int plane_id, float *buf) {
  MPI_Offset start[3] = {z, 0, 0}, count[3] = {1, NY, NX};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, varid, start, count, buf));
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < PLANE; ++i) bad += buf[i] != fvalue(plane_id, i);
  CHECK(bad == 0);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("large_contiguous_put.nc");
  float *fbuf = malloc(sizeof(float) * PLANE);
  int *ibuf = malloc(sizeof(int) * PLANE / 2);
  double *dbuf = malloc(sizeof(double) * PLANE / 2);
  CHECK(fbuf && ibuf && dbuf);

  int ncid, dz, dy, dx, dt, dh, big, rec, dbl;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_dim(ncid, "z", nprocs, &dz));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dy));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dx));
  CHECK_OK(ncmpi_def_dim(ncid, "h", NY / 2, &dh));
  int d3[3] = {dz, dy, dx}, r3[3] = {dt, dy, dx}, h3[3] = {dz, dh, dx};
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_FLOAT, 3, d3, &big));
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_FLOAT, 3, r3, &rec));
  CHECK_OK(ncmpi_def_var(ncid, "dbl", NC_DOUBLE, 3, h3, &dbl));
  CHECK_OK(ncmpi_enddef(ncid));

  /* big: rank r > 0 writes plane r whole (contiguous, 4 MiB); rank 0 writes
   * the left half of plane 0 (not contiguous) in the same call, the right
   * half in a second call where every other rank writes nothing. */
  for (MPI_Offset i = 0; i < PLANE; ++i) fbuf[i] = fvalue(rank, i);
  if (rank > 0) {
    MPI_Offset start[3] = {rank, 0, 0}, count[3] = {1, NY, NX};
    CHECK_OK(ncmpi_put_vara_float_all(ncid, big, start, count, fbuf));
    CHECK_OK(ncmpi_put_vara_float_all(ncid, big, start, (MPI_Offset[3]){0, 0, 0}, fbuf));
  } else {
    float *half = malloc(sizeof(float) * PLANE / 2);
    CHECK(half != NULL);
    for (int side = 0; side < 2; ++side) {
      for (MPI_Offset y = 0; y < NY; ++y)
        for (MPI_Offset x = 0; x < NX / 2; ++x) half[y * (NX / 2) + x] = fbuf[y * NX + side * (NX / 2) + x];
      MPI_Offset start[3] = {0, 0, side * (NX / 2)}, count[3] = {1, NY, NX / 2};
      CHECK_OK(ncmpi_put_vara_float_all(ncid, big, start, count, half));
    }
    free(half);
  }
  /* The caller's buffer is unchanged (values swapped in place are swapped back). */
  MPI_Offset changed = 0;
  for (MPI_Offset i = 0; i < PLANE; ++i) changed += fbuf[i] != fvalue(rank, i);
  CHECK(changed == 0);

  /* rec: rank r writes record r whole (contiguous); the count is agreed. */
  {
    MPI_Offset start[3] = {rank, 0, 0}, count[3] = {1, NY, NX};
    CHECK_OK(ncmpi_put_vara_float_all(ncid, rec, start, count, fbuf));
    MPI_Offset nrec = -1;
    CHECK_OK(ncmpi_inq_dimlen(ncid, dt, &nrec));
    CHECK(nrec == nprocs);
  }

  /* dbl: ints converted to doubles (4 MiB of external bytes per plane); the
   * last rank writes a small piece only, the others their plane whole. */
  for (MPI_Offset i = 0; i < PLANE / 2; ++i) ibuf[i] = ivalue(rank, i);
  {
    const int small = nprocs > 1 && rank == nprocs - 1;
    MPI_Offset start[3] = {rank, 0, 0}, count[3] = {1, small ? 1 : NY / 2, NX};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, dbl, start, count, ibuf));
  }
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dt, &nrec));
  CHECK(nrec == nprocs);
  for (int z = 0; z < nprocs; ++z) {
    check_plane(ncid, big, z, z, fbuf);
    check_plane(ncid, rec, z, z, fbuf);
  }
  for (int z = 0; z < nprocs; ++z) {
    const int small = nprocs > 1 && z == nprocs - 1;
    MPI_Offset start[3] = {z, 0, 0}, count[3] = {1, small ? 1 : NY / 2, NX};
    CHECK_OK(ncmpi_get_vara_double_all(ncid, dbl, start, count, dbuf));
    MPI_Offset bad = 0;
    for (MPI_Offset i = 0; i < count[1] * NX; ++i) bad += dbuf[i] != (double)ivalue(z, i);
    CHECK(bad == 0);
  }
  CHECK_OK(ncmpi_close(ncid));
  free(fbuf);
  free(ibuf);
  free(dbuf);
  return mpi_test_finish();
}
