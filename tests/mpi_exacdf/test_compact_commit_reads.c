/*
 * What a commit of compact variables (docs/format.md) reads back:
 * exa_debug_metadata_bytes_read. The first commit after an enddef in
 * independent define mode writes its pieces into the blocks each rank
 * encoded at that enddef: a rank that rewrites only blocks it wrote reads
 * nothing. A block another rank wrote at the enddef is read (rank 0 writes
 * into some blocks of rank 1 here, and the lowest rank writing into a block
 * rewrites it), and so is
 * every block after a first commit (ncmpi_sync) moved them. Values (whole
 * writes, partial ones over the fill value) read back after each reopen.
 */
#include <exacdf.h>

#include "mpi_test.h"

#define NB 24 /* blocks */
#define PER 4 /* variables per block, 3 ints each */

static int rank, nprocs;

static long long read_since(long long since) { return exa_debug_metadata_bytes_read() - since; }

/* Value of element e of variable j of block b after `round` rounds of writes. */
static int value(int b, int j, int e, int round) {
  if (j == 3 && e != 1) return NC_FILL_INT; /* only element 1 of v3 is ever written */
  return 1000 * b + 10 * j + e + 100000 * round;
}

/* Who writes variable j of block b: its definer, except v0 of every
 * other block of rank 1 (b % (2 nprocs) == 1), which rank 0 writes: rank 0
 * rewrites those, rank 1 the others of its own. */
static int writer_of(int b, int j) {
  if (nprocs > 1 && j == 0 && b % (2 * nprocs) == 1) return 0;
  return b % nprocs;
}

static void write_round(int ncid, int round) {
  char name[64];
  int v;
  for (int b = 0; b < NB; b++)
    for (int j = 0; j < PER; j++) {
      if (writer_of(b, j) != rank) continue;
      snprintf(name, sizeof name, "/b%03d/v%d", b, j);
      CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
      int vals[3] = {value(b, j, 0, round), value(b, j, 1, round), value(b, j, 2, round)};
      if (j == 3) {
        MPI_Offset start = 1, count = 1;
        CHECK_OK(ncmpi_put_vara_int(ncid, v, &start, &count, &vals[1]));
      } else {
        CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
      }
    }
}

static void check_all(const char *path, int round) {
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
      for (int e = 0; e < 3; e++)
        if (got[e] != value(b, j, e, round)) bad++;
    }
  CHECK(bad == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

static int create_defined(const char *path) {
  int ncid, d, v;
  char name[64];
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
  return ncid;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("compact_commit_reads.nc");

  /* 1. Written once, closed: no rank reads a block it wrote at the enddef;
   * rank 0 reads rank 1's blocks, which it rewrites. */
  int ncid = create_defined(path);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  write_round(ncid, 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  long long before = exa_debug_metadata_bytes_read();
  CHECK_OK(ncmpi_close(ncid));
  long long got = read_since(before);
  if (rank == 0 && nprocs > 1)
    CHECK(got > 0);
  else
    CHECK(got == 0);
  check_all(path, 0);

  /* 2. A sync commits (nothing read where 1. read nothing); the blocks
   * then lie elsewhere, so the close after a second round reads what it
   * rewrites. */
  ncid = create_defined(path);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  write_round(ncid, 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  before = exa_debug_metadata_bytes_read();
  CHECK_OK(ncmpi_sync(ncid));
  got = read_since(before);
  if (rank == 0 && nprocs > 1)
    CHECK(got > 0);
  else
    CHECK(got == 0);
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  write_round(ncid, 1);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  before = exa_debug_metadata_bytes_read();
  CHECK_OK(ncmpi_close(ncid));
  CHECK(read_since(before) > 0); /* every rank rewrites blocks the sync moved */
  check_all(path, 1);
  return mpi_test_finish();
}
