/* The cache connector's prefetched chunks are dropped by the writes that
 * reach them and by no other write: a collective put drops on every rank
 * the chunks that any rank's part of it reaches (the ranks' boxes are agreed
 * in the put's allreduce), a put outside a prefetched chunk -- or into
 * another variable -- keeps it served (exa_cache_read_stats), and every
 * value read is the one written. No MPI_THREAD_MULTIPLE: the fetches are
 * made inside the reads, so the counters are exact. */
#include <stdlib.h>
#include <string.h>

#include "exacdf.h"
#include "mpi_test.h"

enum { NZ = 2, NY = 4, NX = 64, CX = 8 };

static int value_at(int z, int y, int x) { return z * 10000 + y * 100 + x; }

/* What the test wrote so far (every rank keeps the same model). */
static int model[NZ][NY][NX];

static void make_file(const char *path, int *a, int *b) {
  int ncid, dims[3];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "z", NZ, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dims[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dims[2]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 3, dims, a));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 3, dims, b));
  CHECK_OK(ncmpi_enddef(ncid));
  for (int z = 0; z < NZ; ++z)
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < NX; ++x) model[z][y][x] = value_at(z, y, x);
  MPI_Offset start[3] = {0, 0, 0}, count[3] = {mpi_test_rank == 0 ? NZ : 0, NY, NX};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, *a, start, count, &model[0][0][0]));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, *b, start, count, &model[0][0][0]));
  CHECK_OK(ncmpi_close(ncid));
}

static exa_cache_read_info stats(int ncid) {
  exa_cache_read_info s;
  CHECK_OK(exa_cache_read_stats(ncid, &s));
  return s;
}

/* Chunk k of `a` (every rank the same), read collectively and checked against the model. */
static void read_chunk(int ncid, int a, int k) {
  int got[NZ][NY][CX];
  MPI_Offset start[3] = {0, 0, (MPI_Offset)k * CX}, count[3] = {NZ, NY, CX};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, a, start, count, &got[0][0][0]));
  int wrong = 0;
  for (int z = 0; z < NZ; ++z)
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < CX; ++x) wrong += got[z][y][x] != model[z][y][k * CX + x];
  if (wrong) fprintf(stderr, "[rank %d] chunk %d: %d values differ from what was written\n", mpi_test_rank, k, wrong);
  CHECK(wrong == 0);
}

/* One collective put of a [1, 1, n] row at (z, y, x) by rank `writer` alone
 * (the others take part with nothing); the model follows on every rank. */
static void put_row(int ncid, int varid, int writer, int z, int y, int x, int n, int base, int is_a) {
  int vals[NX];
  for (int i = 0; i < n; ++i) vals[i] = base + i;
  MPI_Offset start[3] = {z, y, x}, count[3] = {1, 1, mpi_test_rank == writer ? n : 0};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
  if (is_a)
    for (int i = 0; i < n; ++i) model[z][y][x + i] = base + i;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200], spec[2600];
  snprintf(path, sizeof path, "%s", mpi_test_path("region.nc"));
  snprintf(spec, sizeof spec, "cache{dir=%s;prefetch=2;ghost=0}", mpi_test_path("tier"));
  int a, b;
  make_file(path, &a, &b);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, info, &ncid));
  MPI_Info_free(&info);
  const int last = mpi_test_nprocs - 1;

  /* Chunk 0 read below; its shape predicts chunks 1 and 2, fetched. */
  read_chunk(ncid, a, 0);
  exa_cache_read_info s = stats(ncid);
  CHECK(s.direct_reads == 1 && s.served_reads == 0);
  CHECK(s.fetched_chunks == 2);
  read_chunk(ncid, a, 1);  /* served; chunk 3 fetched */
  s = stats(ncid);
  CHECK(s.served_reads == 1 && s.fetched_chunks == 3);

  /* Writes outside the prefetched chunks 2 and 3: `a` at chunk 6 (by the
   * last rank), `b` right where `a`'s chunks 2 and 3 are (by rank 0). */
  put_row(ncid, a, last, 1, 2, 6 * CX + 1, 5, -100, 1);
  put_row(ncid, b, 0, 0, 1, 2 * CX, 2 * CX, -200, 0);
  read_chunk(ncid, a, 2);
  s = stats(ncid);
  CHECK(s.served_reads == 2 && s.direct_reads == 1);  /* still served */
  CHECK(s.fetched_chunks == 4);                        /* and chunk 4 fetched */

  /* A write inside chunk 3 by the last rank alone: every rank drops chunk 3
   * (and keeps chunk 4), and reads what was written. */
  put_row(ncid, a, last, 1, 3, 3 * CX + 7, 1, -300, 1);
  read_chunk(ncid, a, 3);
  s = stats(ncid);
  CHECK(s.direct_reads == 2 && s.served_reads == 2);
  read_chunk(ncid, a, 4);
  s = stats(ncid);
  CHECK(s.served_reads == 3 && s.direct_reads == 2);

  /* This rank's own write straddling chunks 5 and 6 (each rank its own y):
   * both dropped here and on the others; the values are everyone's. */
  {
    int vals[4];
    for (int i = 0; i < 4; ++i) vals[i] = -1000 * (mpi_test_rank + 1) - i;
    const int y = mpi_test_rank % NY;
    MPI_Offset start[3] = {0, y, 6 * CX - 2}, count[3] = {1, 1, mpi_test_rank < NY ? 4 : 0};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, a, start, count, vals));
    for (int r = 0; r < mpi_test_nprocs && r < NY; ++r)
      for (int i = 0; i < 4; ++i) model[0][r % NY][6 * CX - 2 + i] = -1000 * (r + 1) - i;
  }
  read_chunk(ncid, a, 5);  /* below: dropped */
  s = stats(ncid);
  CHECK(s.direct_reads == 3 && s.served_reads == 3);
  read_chunk(ncid, a, 6);  /* dropped too, and fetched again by the read of 5 (after the write) */
  s = stats(ncid);
  CHECK(s.direct_reads == 3 && s.served_reads == 4);

  /* A nonblocking put inside chunk 7 (fetched by the read of 6): its wait
   * drops what other ranks' requests may have written; the value is read. */
  {
    int v = -4242, st = NC_NOERR, req = NC_REQ_NULL;
    MPI_Offset start[3] = {1, 0, 7 * CX + 3}, count[3] = {1, 1, mpi_test_rank == 0 ? 1 : 0};
    CHECK_OK(ncmpi_iput_vara_int(ncid, a, start, count, &v, &req));
    CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &st));
    CHECK_OK(st);
    model[1][0][7 * CX + 3] = v;
  }
  read_chunk(ncid, a, 7);
  s = stats(ncid);
  CHECK(s.direct_reads == 4 && s.served_reads == 4);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
