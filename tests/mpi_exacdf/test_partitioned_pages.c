/*
 * A partitioned file whose index table has several pages (docs/format.md:
 * 512 entries a page as exacdf writes it): an open reads the head and the
 * first page only; a lookup reads the page of its block, then the block; a
 * collective call reads a missing page and block once, shared; a commit of
 * compact data by one rank is what another rank then reads, even from a
 * block it had not loaded; a redef regroups a reopened file. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static int rank, nprocs;

#define NBLOCKS 1200 /* three index pages: "/" and /s0000 ... /s1198 */

static void block_name(char *out, size_t n, int i, const char *obj) {
  snprintf(out, n, "/s%04d/%s", i, obj);
}

/* Block /s<i> (i < NBLOCKS - 1): dimension n (2), compact variable x = {i, -i},
 * defined and written by rank i % nprocs (independent define mode). */
static void create_file(const char *path) {
  int ncid;
  char name[64];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE,
                        MPI_INFO_NULL, &ncid));
  int mine[NBLOCKS], nmine = 0;
  for (int i = rank; i < NBLOCKS - 1; i += nprocs) {
    int d;
    block_name(name, sizeof name, i, "n");
    CHECK_OK(ncmpi_def_dim(ncid, name, 2, &d));
    block_name(name, sizeof name, i, "x");
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &mine[nmine++]));
  }
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 5, "pages"));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int k = 0; k < nmine; k++) {
    const int i = rank + k * nprocs, x[2] = {i, -i};
    CHECK_OK(ncmpi_put_var_int(ncid, mine[k], x));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

static MPI_Offset io_calls(int ncid) {
  MPI_Offset n = -1;
  CHECK_OK(exa_inq_io_calls(ncid, &n));
  return n;
}

static long long sum_over_ranks(long long v) {
  long long total = 0;
  MPI_Allreduce(&v, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

static void check_x(int ncid, int i, int want0, int want1) {
  char name[64];
  int v = -1, x[2] = {0, 0};
  block_name(name, sizeof name, i, "x");
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(ncmpi_get_var_int(ncid, v, x));
  CHECK(x[0] == want0 && x[1] == want1);
}

/* What an open and a lookup read. */
static void test_open_reads_one_page(const char *path) {
  int ncid, nvars = -1, ndims = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  /* the superblocks, the index head with page 0, the root block: by rank
   * 0, broadcast */
  CHECK(sum_over_ranks(io_calls(ncid)) == 3);
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK_OK(ncmpi_inq_ndims(ncid, &ndims));
  CHECK(nvars == NBLOCKS - 1 && ndims == NBLOCKS - 1);
  MPI_Offset nblocks = -1;
  CHECK_OK(exa_inq_blocks(ncid, &nblocks));
  CHECK(nblocks == NBLOCKS);
  MPI_Offset calls0 = io_calls(ncid);
  /* Block 100 is in page 0, loaded at the open: one read, of the block. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  check_x(ncid, 99, 99, -99);
  CHECK(io_calls(ncid) == calls0 + 1);
  /* Block /s1100 is in page 2: the page, then the block; again: nothing. */
  check_x(ncid, 1100, 1100, -1100);
  CHECK(io_calls(ncid) == calls0 + 3);
  check_x(ncid, 1100, 1100, -1100);
  CHECK(io_calls(ncid) == calls0 + 3);
  /* Another block of page 2: the block only. Listing a block of page 1: its page. */
  check_x(ncid, 1150 + rank, 1150 + rank, -1150 - rank);
  CHECK(io_calls(ncid) == calls0 + 4);
  char bpath[EXA_MAX_PATH + 1];
  CHECK_OK(exa_inq_block(ncid, 600, bpath, NULL, NULL, NULL, NULL, NULL));
  CHECK(strcmp(bpath, "/s0599") == 0);
  CHECK(io_calls(ncid) == calls0 + 5);
  CHECK_ERR(exa_inq_block(ncid, NBLOCKS, bpath, NULL, NULL, NULL, NULL, NULL), NC_EINVAL);
  char title[8] = {0};
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", title));
  CHECK(strcmp(title, "pages") == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));

  /* A collective read of a variable in page 1 on a fresh open: the page and
   * the block, each read once in all (the data comes with the block). */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  calls0 = io_calls(ncid);
  char name[64];
  int v = -1, x[2] = {0, 0};
  block_name(name, sizeof name, 700, "x");
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v)); /* reads page 1 and the block on every rank */
  CHECK(io_calls(ncid) == calls0 + 2);
  MPI_Offset block_size = -1, got0 = -1, got = -1;
  CHECK_OK(exa_inq_block(ncid, 702, NULL, NULL, NULL, NULL, NULL, &block_size)); /* page 1: loaded */
  CHECK(io_calls(ncid) == calls0 + 2);
  CHECK_OK(ncmpi_inq_get_size(ncid, &got0));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v + 1, x)); /* /s0701/x: its block is new to every rank */
  CHECK(x[0] == 701 && x[1] == -701);
  CHECK_OK(ncmpi_inq_get_size(ncid, &got));
  CHECK(sum_over_ranks(got - got0) == block_size); /* one rank read it, for all */
  CHECK_OK(ncmpi_close(ncid));

  /* A collective read by id of a variable whose page no rank has loaded
   * (/s1100/x, id 1100, block 1101, in page 2): the page and the block, each
   * read once in all. Their sizes first, from another open. */
  MPI_Offset page_size = -1, block1101 = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_get_size(ncid, &got0));
  CHECK_OK(exa_inq_block(ncid, 1101, NULL, NULL, NULL, NULL, NULL, &block1101)); /* reads page 2 */
  CHECK_OK(ncmpi_inq_get_size(ncid, &got));
  page_size = got - got0;
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_get_size(ncid, &got0));
  CHECK_OK(ncmpi_get_var_int_all(ncid, 1100, x));
  CHECK(x[0] == 1100 && x[1] == -1100);
  CHECK_OK(ncmpi_inq_get_size(ncid, &got));
  CHECK(page_size > 0 && sum_over_ranks(got - got0) == page_size + block1101);
  CHECK_OK(ncmpi_close(ncid));
}

/* Rank 0 changes a compact variable in page 2 and commits (sync); the last
 * rank, which had loaded neither that page nor that block, reads the new value. */
static void test_commit_seen_by_others(const char *path) {
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    char name[64];
    int v = -1, x[2] = {7, 8};
    block_name(name, sizeof name, 1150, "x");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_put_var_int(ncid, v, x));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_sync(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == nprocs - 1) check_x(ncid, 1150, 7, 8);
  check_x(ncid, 1151, 1151, -1151);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* A redef of a reopened file loads every page and block (shared), adds a
 * variable, and keeps every value. */
static void test_redef_reopened(const char *path) {
  int ncid, d, v;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/s0001/m", 3, &d));
  CHECK_OK(ncmpi_def_var(ncid, "/s0001/y", NC_DOUBLE, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int nvars = -1;
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK(nvars == NBLOCKS);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  check_x(ncid, 0, 0, 0);
  check_x(ncid, 1150, 7, 8);
  check_x(ncid, 1198, 1198, -1198);
  double y[3] = {1, 1, 1};
  CHECK_OK(ncmpi_inq_varid(ncid, "/s0001/y", &v));
  CHECK_OK(ncmpi_get_var_double(ncid, v, y));
  CHECK(y[0] == NC_FILL_DOUBLE && y[2] == NC_FILL_DOUBLE);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("pages.nc");
  create_file(path);
  test_open_reads_one_page(path);
  test_commit_seen_by_others(path);
  test_redef_reopened(path);
  return mpi_test_finish();
}
