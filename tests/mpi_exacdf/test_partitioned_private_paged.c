/*
 * The private-blocks enddef (layer/native_private_blocks.cpp) with an index
 * table of several pages: rank 0 merges the ranks' block summaries a chunk
 * at a time and writes the index a batch of pages at a time
 * (io/private_rounds.cpp). Checked, with the default rounds and with tiny
 * ones (EXACDF_DEBUG_SMALL_ROUNDS=1: 1 KiB of summaries per rank a round, one page
 * per batch): the file is byte for byte the one a collective define of the
 * same objects writes; reopened, the objects of samples on every page are
 * found by name with their dimensions and attributes. Samples are owned in
 * contiguous runs (first half) and interleaved over the ranks (second half);
 * the root block is rank 0's (global attributes only) or the last rank's
 * (a root dimension). exacdf only.
 */
#include <exacdf.h>
#include <stdlib.h>

#include "mpi_test.h"

static int rank, nprocs;

static int owner(int k, int n) {
  if (k < n / 2) return (int)((long)k * nprocs / (n / 2));
  return k % nprocs;
}

/* Every sample k of n that `who` owns (all of them if who < 0): group
 * /g<k> with dimension n (1 + k % 5), variable v (int over n, compact) with
 * attribute "k" = k. Root: "title" on every rank, and with root_dim the last
 * rank defines dimension "nsamples". */
static void define_samples(int ncid, int n, int who, int root_dim) {
  char name[64];
  for (int k = 0; k < n; k++) {
    if (who >= 0 && owner(k, n) != who) continue;
    int d, v;
    snprintf(name, sizeof name, "/g%05d/n", k);
    CHECK_OK(ncmpi_def_dim(ncid, name, 1 + k % 5, &d));
    snprintf(name, sizeof name, "/g%05d/v", k);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
    CHECK_OK(ncmpi_put_att_int(ncid, v, "k", NC_INT, 1, &k));
  }
  if (root_dim && (who < 0 || who == nprocs - 1)) {
    int d;
    CHECK_OK(ncmpi_def_dim(ncid, "nsamples", n, &d));
  }
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 5, "paged"));
}

static int same_bytes(const char *x, const char *y) {
  FILE *a = fopen(x, "rb"), *b = fopen(y, "rb");
  long n = 0, differ = 0;
  for (int ca = 0, cb = 0; a && b && (ca != EOF || cb != EOF); n++) {
    ca = fgetc(a);
    cb = fgetc(b);
    differ += ca != cb;
  }
  if (a) fclose(a);
  if (b) fclose(b);
  return a && b && differ == 0 && n > 4096;
}

static void check_reopened(const char *path, int n, int root_dim) {
  int ncid, nd, nv, ng, unlim;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq(ncid, &nd, &nv, &ng, &unlim));
  CHECK(nd == n + (root_dim ? 1 : 0));
  CHECK(nv == n);
  CHECK(ng == 1);
  /* Samples spread over the index pages (512 entries each). */
  const int probes[] = {0, 1, 510, 511, 512, 513, n / 2, n - 2, n - 1};
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    const int k = probes[i];
    char name[64];
    int v, d, got = -1;
    MPI_Offset len = 0;
    snprintf(name, sizeof name, "/g%05d/v", k);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_att_int(ncid, v, "k", &got));
    CHECK(got == k);
    CHECK_OK(ncmpi_inq_vardimid(ncid, v, &d));
    CHECK_OK(ncmpi_inq_dimlen(ncid, d, &len));
    CHECK(len == 1 + k % 5);
  }
  if (root_dim) {
    int d;
    MPI_Offset len = 0;
    CHECK_OK(ncmpi_inq_dimid(ncid, "nsamples", &d));
    CHECK_OK(ncmpi_inq_dimlen(ncid, d, &len));
    CHECK(len == n);
  }
  CHECK_OK(ncmpi_close(ncid));
}

static void run(int n, int small_rounds, int root_dim) {
  const char *p = mpi_test_path("part_paged_private.nc");
  char private_path[1200], merged_path[1200];
  snprintf(private_path, sizeof private_path, "%s", p);
  snprintf(merged_path, sizeof merged_path, "%s", mpi_test_path("part_paged_merged.nc"));
  if (small_rounds) setenv("EXACDF_DEBUG_SMALL_ROUNDS", "1", 1);
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, private_path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE,
                        MPI_INFO_NULL, &ncid));
  define_samples(ncid, n, rank, root_dim);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
  unsetenv("EXACDF_DEBUG_SMALL_ROUNDS");
  /* The same objects defined collectively: the ordinary enddef. */
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, merged_path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  define_samples(ncid, n, -1, root_dim);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
  if (rank == 0) CHECK(same_bytes(private_path, merged_path));
  MPI_Barrier(MPI_COMM_WORLD);
  check_reopened(private_path, n, root_dim);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  run(1100, 0, 0); /* 3 pages, root by rank 0 */
  run(1100, 0, 1); /* the last rank's root block */
  run(600, 1, 0);  /* tiny rounds: 2 pages, one page a batch */
  run(600, 1, 1);
  return mpi_test_finish();
}
