/*
 * Kept index pages (superblock flag 16) under SWMR with space reuse: an SWMR
 * writer with a refresh bound (1 µs: which space is reused does not depend
 * on timing) rewrites one compact variable per commit, on each of the three
 * index pages in turn, so every commit keeps two pages written by earlier
 * commits and releases the old head and the page it replaced. A reader
 * refreshes and reads variables on every page; the file stops growing; a
 * writer that reopens the file (and rebuilds its list of free space from
 * what the two newest generations reference, kept pages included) commits
 * more into one page only, and every value reads back after it. A kept page wrongly reused
 * would fail its CRC or give wrong values. exacdf only.
 */
#include <exacdf.h>
#include <stdio.h>
#include <sys/stat.h>

#include "mpi_test.h"

#define NB 1100 /* blocks /b0000 ... /b1099 and the root: three index pages */
#define COMMITS 60
#define STEADY 30

static int rank, nprocs;
static int current[NB]; /* what block b's variable holds: current[b] + e */

static long long file_size(const char *path) {
  long long size = 0;
  if (rank == 0) {
    struct stat st;
    size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
  }
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return size;
}

static int varid_of(int ncid, int b) {
  char name[32];
  int v = -1;
  snprintf(name, sizeof name, "/b%04d/v", b);
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  return v;
}

/* Block b's variable, collectively: each rank its elements. */
static void put_b(int ncid, int b, int first) {
  int vals[3], n = 0;
  MPI_Offset start = rank, count, stride = nprocs;
  for (int e = rank; e < 3; e += nprocs) vals[n++] = first + e;
  count = n;
  if (n == 0) start = 0;
  CHECK_OK(ncmpi_put_vars_int_all(ncid, varid_of(ncid, b), &start, &count, &stride, vals));
  current[b] = first;
}

static int holds(int ncid, int b) {
  int got[3];
  CHECK_OK(ncmpi_get_var_int_all(ncid, varid_of(ncid, b), got));
  return got[0] == current[b] && got[1] == current[b] + 1 && got[2] == current[b] + 2;
}

/* The block a commit changes: on page c % 3 (page k lists blocks from
 * 512 k - 1 on), or on page `only` when it is not -1. */
static int only = -1;
static int block_of_commit(int c) {
  static const int first[3] = {0, 511, 1023}, span[3] = {511, 512, 77};
  int k = only >= 0 ? only : c % 3;
  return first[k] + (c * 37) % span[k];
}

static void commits(int w, int r, int from, int to, const char *path, long long *steady) {
  for (int c = from; c < to; c++) {
    put_b(w, block_of_commit(c), -100 * c);
    CHECK_OK(ncmpi_sync(w));
    if (c == STEADY) *steady = file_size(path);
    if (r >= 0 && c % 5 == 0) {
      CHECK_OK(exa_refresh(r));
      int bad = 0;
      for (int k = 0; k < 6; k++) bad += !holds(r, block_of_commit(c - k > 0 ? c - k : 0));
      bad += !holds(r, 0) + !holds(r, 700) + !holds(r, NB - 1);
      CHECK(bad == 0);
    }
  }
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("swmr_kept_pages.nc");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", "0.000001");
  int w, r, d, v;
  char name[32];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  for (int b = 0; b < NB; b++) {
    snprintf(name, sizeof name, "/b%04d/n", b);
    CHECK_OK(ncmpi_def_dim(w, name, 3, &d));
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_def_var(w, name, NC_INT, 1, &d, &v));
  }
  CHECK_OK(ncmpi_enddef(w));
  for (int b = 0; b < NB; b++) put_b(w, b, 10 * b);
  CHECK_OK(ncmpi_sync(w)); /* every page changes: the whole table */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  long long steady = 0;
  commits(w, r, 1, COMMITS, path, &steady);
  CHECK_OK(ncmpi_close(w));
  const long long size = file_size(path);
  if (rank == 0) printf("swmr kept pages: %lld bytes after %d commits, %lld after %d\n", size, COMMITS, steady, STEADY);
  /* Without reuse every commit appends a block, a head and a page (about 36 KiB). */
  CHECK(size <= steady + 2 * 40000);

  /* Reopened by a writer: its free list rebuilt from the file. Its commits
   * change page 1 only: pages 0 and 2 stay where commits before the reopen
   * wrote them, and must not be taken for free space. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | EXA_SWMR_WRITE, info, &w));
  only = 1;
  long long unused = 0;
  commits(w, r, COMMITS, COMMITS + 30, path, &unused);
  CHECK_OK(ncmpi_close(w));
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &r));
  int bad = 0;
  CHECK_OK(ncmpi_begin_indep_data(r));
  for (int b = rank; b < NB; b += nprocs) {
    int got[3];
    CHECK_OK(ncmpi_get_var_int(r, varid_of(r, b), got));
    bad += got[0] != current[b] || got[1] != current[b] + 1 || got[2] != current[b] + 2;
  }
  CHECK_OK(ncmpi_end_indep_data(r));
  CHECK(bad == 0);
  CHECK_OK(ncmpi_close(r));
  MPI_Info_free(&info);
  return mpi_test_finish();
}
