/* A write that fails on one rank (exa_debug_fail_write on the last rank)
 * during a collective put written directly (exa_direct_put=enable, and auto
 * with a piece of 1 MiB): as on the usual path (test_collective_write_failure),
 * a record variable's failure reaches every rank through the numrecs
 * agreement, a fixed-size variable's stays the failing rank's, and the
 * others' data lands. One injected failure per put, whichever path. */
#include <exacdf.h>
#include <stdlib.h>

#include "mpi_test.h"

#define PER ((MPI_Offset)1 << 18) /* floats per rank: 1 MiB */

static void run(const char *mode) {
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const int victim = rank == nprocs - 1;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_direct_put", mode);
  int ncid, dims[2], v, r;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("direct_put_failure.nc"), NC_CLOBBER | NC_64BIT_DATA, info,
                        &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", PER * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_FLOAT, 1, &dims[1], &v));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 2, dims, &r));
  CHECK_OK(ncmpi_enddef(ncid));
  float *mine = malloc(sizeof(float) * PER);
  for (MPI_Offset i = 0; i < PER; ++i) mine[i] = (float)(rank * PER + i);
  MPI_Offset start[2] = {0, PER * rank}, count[2] = {1, PER};

  /* Record variable: every rank returns the failure; the good ranks' data lands. */
  exa_debug_fail_write(victim ? 1 : 0);
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, r, start, count, mine), NC_EWRITE);
  exa_debug_fail_write(0);
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == (nprocs > 1 ? 1 : 0));

  /* Fixed-size variable: the failing rank's error alone. */
  exa_debug_fail_write(victim ? 1 : 0);
  CHECK_ERR(ncmpi_put_vara_float_all(ncid, v, &start[1], &count[1], mine), victim ? NC_EWRITE : NC_NOERR);
  exa_debug_fail_write(0);

  /* What landed: every rank's piece but the victim's. */
  float *back = malloc(sizeof(float) * PER);
  for (int var = 0; var < 2; ++var) {
    for (int owner = 0; owner + 1 < nprocs; ++owner) {
      MPI_Offset s[2] = {0, PER * owner};
      CHECK_OK(var == 0 ? ncmpi_get_vara_float_all(ncid, v, &s[1], &count[1], back)
                        : ncmpi_get_vara_float_all(ncid, r, s, count, back));
      MPI_Offset bad = 0;
      for (MPI_Offset i = 0; i < PER; ++i) bad += back[i] != (float)(owner * PER + i);
      CHECK(bad == 0);
    }
  }
  free(back);
  free(mine);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run("enable");
  run("auto");
  run("disable");
  return mpi_test_finish();
}
