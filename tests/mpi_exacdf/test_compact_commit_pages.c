/*
 * A commit of compact variables writes only the index pages that changed
 * (docs/format.md, "Kept pages", superblock flag 16). NB blocks of one
 * compact variable each give a table of three pages of 512 entries. Bytes
 * of metadata written (exa_debug_metadata_bytes_written, summed over ranks)
 * are checked exactly, from the format's sizes:
 *   - the new file's close: every block, the whole table (no flag 16: the
 *     layout files had before the flag) and one superblock;
 *   - reopened, one variable changed: one block, the page listing it, the
 *     head and one superblock (flag 16 now);
 *   - the same handle, another page's variable (after an ncmpi_sync): the
 *     same, from the placement that commit left;
 *   - a variable listed on page 0 (kept by the commits before, so the opens
 *     in between read it outside the table);
 *   - a redef adding a block: the whole table again, without flag 16, and
 *     the close after it keeps the pages it does not change;
 *   - a new file whose first close writes one variable: the pages the
 *     enddef wrote are kept.
 * Every value is read back after each close by a fresh open.
 */
#include <exacdf.h>
#include <stdio.h>
#include <string.h>

#include "mpi_test.h"
#include "superblock_probe.h"

#define NB 1100  /* blocks /b0000 ... /b1099, and the root "/" */
#define PATH_LEN 6 /* "/b0000" */
#define PAGE 512
#define SUPERBLOCK 128

static int rank, nprocs;

static long long all_ranks(long long mine) {
  long long all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Entries of the table: the root, then the blocks in path order. */
static long long entries(void) { return NB + 1; }
static long long npages(void) { return (entries() + PAGE - 1) / PAGE; }
static long long page_size(long long k) {
  long long first = k * PAGE, m = entries() - first < PAGE ? entries() - first : PAGE;
  long long paths = m * PATH_LEN - (k == 0 ? PATH_LEN - 1 : 0); /* the root's path is "/" */
  return 24 + 64 * m + paths;
}
static long long head_size(void) { return 32 + 64 * npages() + 1 + (npages() - 1) * PATH_LEN; }
static long long table_size(void) {
  long long n = head_size();
  for (long long k = 0; k < npages(); k++) n += page_size(k);
  return n;
}
static long long page_of_block(int b) { return (b + 1) / PAGE; }

static int value(int b, int e) { return 1000 * b + e; }

/* changed[b] != 0: block b's variable holds changed[b] + e. */
static void check_all(const char *path, const int *changed) {
  int ncid, v, got[3];
  char name[64];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  int bad = 0;
  for (int b = rank; b < NB; b += nprocs) {
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_var_int(ncid, v, got));
    for (int e = 0; e < 3; e++)
      if (got[e] != (changed[b] ? changed[b] + e : value(b, e))) bad++;
  }
  CHECK(bad == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* Rank nprocs - 1 writes block b's variable; the commit (close or sync)
 * must write one block, its page, the head and a superblock. */
static void change_one(int ncid, int b, int first, int *changed, long long block_bytes, int close) {
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
  changed[b] = first;
  long long blocks = exa_debug_blocks_written(), bytes = exa_debug_metadata_bytes_written();
  if (close)
    CHECK_OK(ncmpi_close(ncid));
  else
    CHECK_OK(ncmpi_sync(ncid));
  blocks = all_ranks(exa_debug_blocks_written() - blocks);
  bytes = all_ranks(exa_debug_metadata_bytes_written() - bytes);
  CHECK(blocks == 1);
  CHECK(bytes == block_bytes + page_size(page_of_block(b)) + head_size() + SUPERBLOCK);
  if (bytes != block_bytes + page_size(page_of_block(b)) + head_size() + SUPERBLOCK && rank == 0)
    fprintf(stderr, "block %d: %lld bytes, expected %lld (block %lld, page %lld, head %lld)\n", b, bytes,
            block_bytes + page_size(page_of_block(b)) + head_size() + SUPERBLOCK, block_bytes,
            page_size(page_of_block(b)), head_size());
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("compact_commit_pages.nc");
  static int changed[NB];
  char name[64];
  int ncid, d, v;

  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE, MPI_INFO_NULL,
                        &ncid));
  for (int b = rank; b < NB; b += nprocs) {
    snprintf(name, sizeof name, "/b%04d/n", b);
    CHECK_OK(ncmpi_def_dim(ncid, name, 3, &d));
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int b = rank; b < NB; b += nprocs) {
    int vals[3] = {value(b, 0), value(b, 1), value(b, 2)};
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  long long blocks = exa_debug_blocks_written(), bytes = exa_debug_metadata_bytes_written();
  CHECK_OK(ncmpi_close(ncid));
  blocks = all_ranks(exa_debug_blocks_written() - blocks);
  bytes = all_ranks(exa_debug_metadata_bytes_written() - bytes);
  CHECK(blocks == NB);
  /* Every block has the same size (the same names' lengths, the same data). */
  const long long block_bytes = (bytes - table_size() - SUPERBLOCK) / NB;
  CHECK(bytes == NB * block_bytes + table_size() + SUPERBLOCK);
  CHECK(!superblock_flag_set(path, 16u)); /* the whole table, packed: the layout before flag 16 */
  check_all(path, changed);

  /* Reopened (the old layout): one variable of page 1. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  change_one(ncid, 700, -700, changed, block_bytes, 1);
  CHECK(superblock_flag_set(path, 16u));
  check_all(path, changed);

  /* Page 2, then page 1 again, on one handle: the placement each commit left. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  change_one(ncid, 1050, -1050, changed, block_bytes, 0);
  change_one(ncid, 600, -600, changed, block_bytes, 1);
  check_all(path, changed);

  /* Page 0 (kept until now: the opens above read it outside the table). */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  change_one(ncid, 3, -3, changed, block_bytes, 1);
  check_all(path, changed);

  /* A redef of a file whose pages were kept: a new block, the whole table
   * again (no flag 16), every value where it was; the close that commits
   * the new variable keeps the pages the redef wrote. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/z/n", 2, &d));
  CHECK_OK(ncmpi_def_var(ncid, "/z/new", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK(!superblock_flag_set(path, 16u)); /* the redef wrote the whole table */
  int two[2] = {7, 8}, back[2] = {0, 0};
  CHECK_OK(ncmpi_put_var_int_all(ncid, v, two));
  CHECK_OK(ncmpi_close(ncid));
  CHECK(superblock_flag_set(path, 16u)); /* and its close kept the pages it did not change */
  check_all(path, changed);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "/z/new", &v));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, back));
  CHECK(back[0] == 7 && back[1] == 8);
  CHECK_OK(ncmpi_close(ncid));

  /* A new file whose close writes one variable: the pages the enddef wrote
   * are kept (where the enddef put them); the others read as fill values. */
  const char *fresh = mpi_test_path("compact_commit_pages_new.nc");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, fresh, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE, MPI_INFO_NULL,
                        &ncid));
  for (int b = rank; b < NB; b += nprocs) {
    snprintf(name, sizeof name, "/b%04d/n", b);
    CHECK_OK(ncmpi_def_dim(ncid, name, 3, &d));
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  static int none[NB];
  change_one(ncid, 1090, -1090, none, block_bytes, 1);
  CHECK(superblock_flag_set(fresh, 16u));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, fresh, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  int bad = 0;
  for (int b = rank; b < NB; b += nprocs) {
    int got[3];
    snprintf(name, sizeof name, "/b%04d/v", b);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_var_int(ncid, v, got));
    for (int e = 0; e < 3; e++) bad += got[e] != (b == 1090 ? -1090 + e : NC_FILL_INT);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
  CHECK(bad == 0);
  return mpi_test_finish();
}
