/*
 * Committing compact variables (docs/format.md) costs the blocks that
 * changed: counted with exa_debug_blocks_written (summed over ranks).
 * A new file of NB blocks whose variables are all written once: its close
 * rewrites NB blocks. Reopened, one variable changed on one rank: one block.
 * Two ranks writing into one block: still one block. Values read back after
 * each reopen.
 */
#include <exacdf.h>

#include "mpi_test.h"

#define NB 40 /* blocks */
#define PER 5 /* variables per block, 3 ints each */

static int rank, nprocs;

static long long blocks_written_all(long long since) {
  long long mine = exa_debug_blocks_written() - since, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static int value(int b, int j, int e) { return 1000 * b + 10 * j + e; }

static void check_all(const char *path, int changed_b, int changed_j, int changed_v) {
  int ncid, v, got[3];
  char name[64];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  int bad = 0;
  for (int b = rank; b < NB; b += nprocs)
    for (int j = 0; j < PER; j++) {
      snprintf(name, sizeof name, "/b%03d/v%d", b, j);
      CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
      CHECK_OK(ncmpi_get_var_int(ncid, v, got));
      for (int e = 0; e < 3; e++) {
        int want = (b == changed_b && j == changed_j) ? changed_v + e : value(b, j, e);
        if (got[e] != want) bad++;
      }
    }
  CHECK(bad == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("compact_commit_cost.nc");
  char name[64];
  int ncid, d, v;

  /* Each rank defines and writes the blocks b = rank mod nprocs. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE, MPI_INFO_NULL,
                        &ncid));
  for (int b = rank; b < NB; b += nprocs) {
    snprintf(name, sizeof name, "/b%03d/n", b);
    CHECK_OK(ncmpi_def_dim(ncid, name, 3, &d));
    for (int j = 0; j < PER; j++) {
      snprintf(name, sizeof name, "/b%03d/v%d", b, j);
      CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
    }
  }
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int b = rank; b < NB; b += nprocs)
    for (int j = 0; j < PER; j++) {
      int vals[3] = {value(b, j, 0), value(b, j, 1), value(b, j, 2)};
      snprintf(name, sizeof name, "/b%03d/v%d", b, j);
      CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
      CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
    }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  long long before = exa_debug_blocks_written();
  CHECK_OK(ncmpi_close(ncid));
  CHECK(blocks_written_all(before) == NB);
  check_all(path, -1, -1, 0);

  /* One variable changed by one rank: one block. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == nprocs - 1) {
    int vals[3] = {-50, -49, -48};
    CHECK_OK(ncmpi_inq_varid(ncid, "/b017/v3", &v));
    CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  before = exa_debug_blocks_written();
  CHECK_OK(ncmpi_close(ncid));
  CHECK(blocks_written_all(before) == 1);
  check_all(path, 17, 3, -50);

  /* The ranks write the elements of one variable collectively (element e
   * by rank e % nprocs): one block, every element. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "/b017/v3", &v));
  int mine[3];
  MPI_Offset start = rank, count = 0, stride = nprocs;
  for (int e = rank; e < 3; e += nprocs) mine[count++] = -60 + e;
  if (count == 0) start = 0;
  CHECK_OK(ncmpi_put_vars_int_all(ncid, v, &start, &count, &stride, mine));
  before = exa_debug_blocks_written();
  CHECK_OK(ncmpi_sync(ncid));
  CHECK(blocks_written_all(before) == 1);
  before = exa_debug_blocks_written();
  CHECK_OK(ncmpi_close(ncid));
  CHECK(blocks_written_all(before) == 0); /* nothing left to commit */
  check_all(path, 17, 3, -60);
  return mpi_test_finish();
}
