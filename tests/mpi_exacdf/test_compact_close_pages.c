/*
 * A close after changing one compact variable of a file with 100,000 of
 * them reads only the index page listing that variable's block and the
 * block (issue 16 item 5; docs/format.md "Kept pages"): the head is in
 * memory from the open, the other pages are kept where they are. Asserted
 * in bytes with exa_debug_metadata_bytes_read (summed over the ranks): at
 * most one page and one block per changed variable, where the whole index
 * is 13 pages. Values read back after each reopen, after a second and a
 * third one-variable close, and after a redef between them. The file is
 * left for `exacdf verify` (tool.verify_compact_close_pages).
 */
#include <exacdf.h>

#include "mpi_test.h"

#define NV 100000           /* compact variables */
#define PER 16              /* per block */
#define NB (NV / PER)       /* blocks "/b%05d", then 1 root block: 13 index pages of 512 */
#define ENTRY (64 + 7)      /* an index entry and its path "/b%05d" */
#define PAGE (24 + 512 * ENTRY)
#define BLOCK_MAX 4096      /* one block of 16 variables of 2 ints, with names */

static int rank, nprocs;

static long long sum_all(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static void name_of(char *out, size_t n, int b, int j) { snprintf(out, n, "/b%05d/v%02d", b, j); }

/* What the file holds: variable (b, j) -> its two ints; unwritten: fill. */
#define NCHANGED 8
static struct {
  int b, j, v0, v1, set;
} changed[NCHANGED] = {{0, 0, 0, 0, 0}};

static void note(int slot, int b, int j, int v0) {
  changed[slot].b = b;
  changed[slot].j = j;
  changed[slot].v0 = v0;
  changed[slot].v1 = v0 + 1;
  changed[slot].set = 1;
}

static void put_one(int ncid, int b, int j, int v0) {
  char name[32];
  int v, vals[2] = {v0, v0 + 1};
  name_of(name, sizeof name, b, j);
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
}

/* Every rank reads every noted variable, and some never written. */
static void check_values(const char *path) {
  int ncid, v, got[2];
  char name[32];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int k = 0; k < NCHANGED; k++) {
    if (!changed[k].set) continue;
    name_of(name, sizeof name, changed[k].b, changed[k].j);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    got[0] = got[1] = 0;
    CHECK_OK(ncmpi_get_var_int(ncid, v, got));
    CHECK(got[0] == changed[k].v0 && got[1] == changed[k].v1);
  }
  const int never[3][2] = {{7, 5}, {NB / 2 + 3, 9}, {NB - 1, PER - 1}};
  for (int k = 0; k < 3; k++) {
    name_of(name, sizeof name, never[k][0], never[k][1]);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_var_int(ncid, v, got));
    CHECK(got[0] == NC_FILL_INT && got[1] == NC_FILL_INT);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* The close of ncid, its metadata bytes read summed over the ranks. */
static long long close_reads(int ncid) {
  const long long before = exa_debug_metadata_bytes_read();
  CHECK_OK(ncmpi_close(ncid));
  return sum_all(exa_debug_metadata_bytes_read() - before);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("close_pages.nc");
  char name[32];
  int ncid, d, v;

  /* Each rank defines its share of the blocks; each writes v00 of its first block. */
  const int b0 = NB * rank / nprocs, b1 = NB * (rank + 1) / nprocs;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE, MPI_INFO_NULL,
                        &ncid));
  for (int b = b0; b < b1; b++) {
    snprintf(name, sizeof name, "/b%05d/n", b);
    CHECK_OK(ncmpi_def_dim(ncid, name, 2, &d));
    for (int j = 0; j < PER; j++) {
      name_of(name, sizeof name, b, j);
      CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
    }
  }
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  put_one(ncid, b0, 0, 10 + rank);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
  for (int r = 0; r < nprocs && r < 4; r++) note(r, NB * r / nprocs, 0, 10 + r);
  check_values(path);

  /* 1. One variable (rank 0, page 1): at most one page and one block read. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) put_one(ncid, 1000, 3, 1000);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  long long got = close_reads(ncid);
  if (rank == 0) printf("one-variable close 1 read %lld bytes (a page is %d)\n", got, PAGE);
  CHECK(got > 0 && got <= PAGE + BLOCK_MAX);
  note(4, 1000, 3, 1000);
  check_values(path);

  /* 2. A second one, by the last rank (page 9), and a third from the same
   * open after a redef that commits it and adds a variable. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == nprocs - 1) put_one(ncid, 5000, 7, 5000);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  got = close_reads(ncid);
  if (rank == 0) printf("one-variable close 2 read %lld bytes\n", got);
  CHECK(got > 0 && got <= PAGE + BLOCK_MAX);
  note(5, 5000, 7, 5000);
  check_values(path);

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) put_one(ncid, 3000, 1, 3000);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  const long long before = exa_debug_metadata_bytes_read();
  CHECK_OK(ncmpi_sync(ncid)); /* a commit point (then another sync, then a redef) */
  got = sum_all(exa_debug_metadata_bytes_read() - before);
  CHECK(got > 0 && got <= PAGE + BLOCK_MAX);
  note(6, 3000, 1, 3000);
  /* A second commit from the same handle keeps the page the first wrote:
   * it must reference where that page now lies (else block 3000 reads its
   * old value). */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == nprocs - 1) put_one(ncid, 4000, 2, 4000);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  const long long before2 = exa_debug_metadata_bytes_read();
  CHECK_OK(ncmpi_sync(ncid));
  got = sum_all(exa_debug_metadata_bytes_read() - before2);
  CHECK(got > 0 && got <= PAGE + BLOCK_MAX);
  note(7, 4000, 2, 4000);
  check_values(path); /* (another open, while this one is still open: what is on disk) */
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/extra/n", 2, &d));
  CHECK_OK(ncmpi_def_var(ncid, "/extra/x", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    int x[2] = {-7, -8};
    CHECK_OK(ncmpi_put_var_int(ncid, v, x));
  }
  if (rank == nprocs - 1) put_one(ncid, 3000, 1, 3003); /* the last write wins */
  CHECK_OK(ncmpi_end_indep_data(ncid));
  got = close_reads(ncid);
  if (rank == 0) printf("close after the redef read %lld bytes\n", got);
  CHECK(got <= 2 * (PAGE + BLOCK_MAX));
  note(6, 3000, 1, 3003);
  check_values(path);
  {
    int x[2] = {0, 0};
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_inq_varid(ncid, "/extra/x", &v));
    CHECK_OK(ncmpi_get_var_int_all(ncid, v, x));
    CHECK(x[0] == -7 && x[1] == -8);
    CHECK_OK(ncmpi_close(ncid));
  }
  return mpi_test_finish();
}
