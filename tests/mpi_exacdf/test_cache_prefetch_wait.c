/* A wait drops the prefetched chunks its completed put requests reach and
 * no others: in a collective wait (ncmpi_wait_all) every rank drops what any
 * rank's completed requests wrote; a request into another variable, or
 * outside the prefetched chunks, keeps them served (exa_cache_read_stats),
 * for an explicit list of ids and for NC_REQ_ALL (iput and bput). Every value
 * read is the one written: this rank's own writes at once (read-your-writes)
 * and other ranks' independent writes after sync + barrier + sync. No
 * MPI_THREAD_MULTIPLE: the fetches are made inside the reads, so the
 * counters are exact (after reading chunk k, chunks k+1 and k+2 are held). */
#include <stdlib.h>
#include <string.h>

#include "exacdf.h"
#include "mpi_test.h"

enum { NZ = 2, NY = 4, NX = 128, CX = 8 };

static int value_at(int z, int y, int x) { return z * 10000 + y * 100 + x; }

/* What the test wrote so far (every rank keeps the same model): a and b. */
static int model[2][NZ][NY][NX];

static void make_file(const char *path, int *a, int *b) {
  int ncid, dims[3];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "z", NZ, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dims[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dims[2]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 3, dims, a));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 3, dims, b));
  CHECK_OK(ncmpi_enddef(ncid));
  for (int v = 0; v < 2; ++v)
    for (int z = 0; z < NZ; ++z)
      for (int y = 0; y < NY; ++y)
        for (int x = 0; x < NX; ++x) model[v][z][y][x] = value_at(z, y, x) + v * 1000000;
  MPI_Offset start[3] = {0, 0, 0}, count[3] = {mpi_test_rank == 0 ? NZ : 0, NY, NX};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, *a, start, count, &model[0][0][0][0]));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, *b, start, count, &model[1][0][0][0]));
  CHECK_OK(ncmpi_close(ncid));
}

static exa_cache_read_info stats(int ncid) {
  exa_cache_read_info s;
  CHECK_OK(exa_cache_read_stats(ncid, &s));
  return s;
}

/* Chunk k of `a` (every rank the same), read collectively and compared with the model. */
static void read_chunk(int ncid, int a, int k) {
  int got[NZ][NY][CX];
  MPI_Offset start[3] = {0, 0, (MPI_Offset)k * CX}, count[3] = {NZ, NY, CX};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, a, start, count, &got[0][0][0]));
  int wrong = 0;
  for (int z = 0; z < NZ; ++z)
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < CX; ++x) wrong += got[z][y][x] != model[0][z][y][k * CX + x];
  if (wrong) fprintf(stderr, "[rank %d] chunk %d: %d values differ from what was written\n", mpi_test_rank, k, wrong);
  CHECK(wrong == 0);
}

/* The same read, independent (independent data mode). */
static void read_chunk_indep(int ncid, int a, int k) {
  int got[NZ][NY][CX];
  MPI_Offset start[3] = {0, 0, (MPI_Offset)k * CX}, count[3] = {NZ, NY, CX};
  CHECK_OK(ncmpi_get_vara_int(ncid, a, start, count, &got[0][0][0]));
  int wrong = 0;
  for (int z = 0; z < NZ; ++z)
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < CX; ++x) wrong += got[z][y][x] != model[0][z][y][k * CX + x];
  if (wrong) fprintf(stderr, "[rank %d] chunk %d (indep): %d values differ\n", mpi_test_rank, k, wrong);
  CHECK(wrong == 0);
}

/* Posts an iput (bput when `bput`) of a [1, 1, n] row at (z, y, x) of
 * variable v (0: a, 1: b) by rank `writer` alone; *req stays NC_REQ_NULL
 * elsewhere. The model follows on every rank. */
static void post_row(int ncid, int varid, int v, int writer, int z, int y, int x, int n, int base, int bput,
                     int *req) {
  static int vals[8][NX];  /* kept until the wait */
  static int next = 0;
  int *buf = vals[next++ % 8];
  for (int i = 0; i < n; ++i) buf[i] = base + i;
  *req = NC_REQ_NULL;
  if (mpi_test_rank == writer) {
    MPI_Offset start[3] = {z, y, x}, count[3] = {1, 1, n};
    if (bput) CHECK_OK(ncmpi_bput_vara_int(ncid, varid, start, count, buf, req));
    else CHECK_OK(ncmpi_iput_vara_int(ncid, varid, start, count, buf, req));
  }
  for (int i = 0; i < n; ++i) model[v][z][y][x + i] = base + i;
}

static void wait_one(int ncid, int req) {
  int st = NC_NOERR;
  CHECK_OK(ncmpi_wait_all(ncid, req == NC_REQ_NULL ? 0 : 1, &req, &st));
  CHECK_OK(st);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200], spec[2600];
  snprintf(path, sizeof path, "%s", mpi_test_path("wait.nc"));
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
  CHECK_OK(ncmpi_buffer_attach(ncid, 4096));

  /* Chunk 0 below, chunk 1 served; chunks 2 and 3 held. */
  read_chunk(ncid, a, 0);
  read_chunk(ncid, a, 1);
  exa_cache_read_info s = stats(ncid);
  CHECK(s.direct_reads == 1 && s.served_reads == 1);

  /* Every rank's iput into b right where a's chunks 2 and 3 are, completed
   * by a collective wait of its id: a's chunks are kept. */
  {
    int req;
    post_row(ncid, b, 1, mpi_test_rank, 0, mpi_test_rank % NY, 2 * CX, 2 * CX, -100 - 100 * mpi_test_rank, 0, &req);
    for (int r = 0; r < mpi_test_nprocs; ++r) /* the model of the others' rows too */
      for (int i = 0; i < 2 * CX; ++i) model[1][0][r % NY][2 * CX + i] = -100 - 100 * r + i;
    wait_one(ncid, req);
  }
  read_chunk(ncid, a, 2);
  s = stats(ncid);
  CHECK(s.direct_reads == 1 && s.served_reads == 2);  /* kept: the wait dropped nothing of a */

  /* The last rank's bput into a outside every held chunk (chunk 12) and
   * rank 0's iput into b, completed by wait_all(NC_REQ_ALL): kept. */
  {
    int r1, r2;
    post_row(ncid, a, 0, last, 1, 3, 12 * CX + 2, 3, -500, 1, &r1);
    post_row(ncid, b, 1, 0, 1, 0, 3 * CX, CX, -600, 0, &r2);
    CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  }
  read_chunk(ncid, a, 3);
  s = stats(ncid);
  CHECK(s.direct_reads == 1 && s.served_reads == 3);  /* chunks 4 and 5 held now */

  /* The last rank's iput into chunk 5, completed by a collective wait: every
   * rank drops chunk 5 (and keeps chunk 4), and reads what was written. */
  {
    int req;
    post_row(ncid, a, 0, last, 0, 2, 5 * CX + 1, 2, -700, 0, &req);
    wait_one(ncid, req);
    MPI_Barrier(MPI_COMM_WORLD); /* the writer's part is in the file before anyone reads it */
  }
  read_chunk(ncid, a, 5);
  s = stats(ncid);
  if (s.direct_reads != 2) fprintf(stderr, "[rank %d] chunk 5 after the wait: direct %lld served %lld\n",
                                   mpi_test_rank, (long long)s.direct_reads, (long long)s.served_reads);
  CHECK(s.direct_reads == 2 && s.served_reads == 3);  /* dropped on every rank */
  read_chunk(ncid, a, 4);
  s = stats(ncid);
  CHECK(s.direct_reads == 2 && s.served_reads == 4);  /* kept */

  /* Independent mode: the last rank's iput into a (chunk 9) and its
   * independent wait; it reads its own write at once; every rank reads it
   * after sync + barrier + sync. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  {
    int req;
    post_row(ncid, a, 0, last, 1, 1, 9 * CX + 4, 3, -800, 0, &req);
    if (mpi_test_rank == last) {
      int st = NC_NOERR;
      CHECK_OK(ncmpi_wait(ncid, 1, &req, &st));
      CHECK_OK(st);
      read_chunk_indep(ncid, a, 9);
    }
    CHECK_OK(ncmpi_sync(ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(ncmpi_sync(ncid));
    read_chunk_indep(ncid, a, 9);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));

  /* Every chunk of a, and all of b, as written. */
  for (int k = 0; k < NX / CX; ++k) read_chunk(ncid, a, k);
  {
    static int got[NZ][NY][NX];
    MPI_Offset start[3] = {0, 0, 0}, count[3] = {NZ, NY, NX};
    CHECK_OK(ncmpi_get_vara_int_all(ncid, b, start, count, &got[0][0][0]));
    CHECK(memcmp(got, model[1], sizeof got) == 0);
  }
  CHECK_OK(ncmpi_buffer_detach(ncid));
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
