/*
 * After an index build inside a partitioned file (exa_index_create, an
 * index block: docs/format.md "Index blocks"), the writer knows where the
 * table's pages lie, so the next commit of compact variables keeps the
 * pages it does not change (superblock flag 16, "Kept pages"): it writes
 * what a second such commit writes -- one block, the page listing it, the
 * head and a superblock -- not the whole table (exa_debug_metadata_bytes_written,
 * summed over ranks; both variables are listed on the same page and their
 * blocks have the same size). Values and the index read back after a
 * reopen.
 */
#include <exacdf.h>
#include <stdio.h>

#include "mpi_test.h"
#include "superblock_probe.h"

#define NB 1100 /* blocks /b0000 ... /b1099 of one compact variable: three pages */
#define NF 20000 /* elements of /big/f: not compact (80,000 bytes) */

static int rank, nprocs;

static long long all_ranks(long long mine) {
  long long all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static int value(int b, int e) { return 1000 * b + e; }

/* Rank nprocs - 1 writes block b's variable, then a sync commits it:
 * returns the metadata bytes every rank wrote. */
static long long change_and_sync(int ncid, int b, int first) {
  char name[64];
  int v;
  snprintf(name, sizeof name, "/b%04d/v", b);
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == nprocs - 1) {
    int vals[3] = {first, first + 1, first + 2};
    CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  long long blocks = exa_debug_blocks_written(), bytes = exa_debug_metadata_bytes_written();
  CHECK_OK(ncmpi_sync(ncid));
  CHECK(all_ranks(exa_debug_blocks_written() - blocks) == 1);
  return all_ranks(exa_debug_metadata_bytes_written() - bytes);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("compact_commit_after_index.nc");
  static float fvals[NF];
  char name[64];
  int ncid, d, v, f = -1;

  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE, MPI_INFO_NULL,
                        &ncid));
  for (int b = rank; b < NB; b += nprocs) {
    snprintf(name, sizeof name, "/b%04d/n", b);
    CHECK_OK(ncmpi_def_dim(ncid, name, 3, &d));
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
  }
  if (rank == 0) {
    CHECK_OK(ncmpi_def_dim(ncid, "/big/n", NF, &d));
    CHECK_OK(ncmpi_def_var(ncid, "/big/f", NC_FLOAT, 1, &d, &f));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int b = rank; b < NB; b += nprocs) {
    int vals[3] = {value(b, 0), value(b, 1), value(b, 2)};
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
  }
  if (rank == 0) {
    for (int i = 0; i < NF; i++) fvals[i] = (float)(i % 100);
    CHECK_OK(ncmpi_put_var_float(ncid, f, fvals));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "/big/f", &f));
  MPI_Offset blocks_before = 0, blocks_after = 0;
  CHECK_OK(exa_inq_blocks(ncid, &blocks_before));
  CHECK_OK(exa_index_create(ncid, f, "bins=16;chunk=1024"));
  CHECK_OK(exa_inq_blocks(ncid, &blocks_after));
  CHECK(blocks_after == blocks_before + 1); /* an index block, inside the file */
  CHECK(!superblock_flag_set(path, 16u)); /* the index build wrote the whole table */
  /* Blocks 700 and 600 are listed on page 1; the first commit after the
   * build keeps pages 0 and 2 as the second does. */
  const long long first = change_and_sync(ncid, 700, -700);
  CHECK(superblock_flag_set(path, 16u));
  const long long second = change_and_sync(ncid, 600, -600);
  CHECK(first == second);
  if (first != second && rank == 0) fprintf(stderr, "after the build %lld bytes, then %lld\n", first, second);
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  int bad = 0, got[3];
  for (int b = rank; b < NB; b += nprocs) {
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_var_int(ncid, v, got));
    for (int e = 0; e < 3; e++)
      bad += got[e] != (b == 700 ? -700 + e : b == 600 ? -600 + e : value(b, e));
  }
  CHECK(bad == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  /* The index block is still listed. */
  CHECK_OK(ncmpi_inq_varid(ncid, "/big/f", &f));
  int present = 0, current = 0;
  CHECK_OK(exa_index_inq(ncid, f, &present, &current, NULL, NULL));
  CHECK(present == 1);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
