/* exa_relation_read's exchange in rounds (the MPI-3.1 path for more than
 * 2^31 rows per rank, src/relation/exchange.cpp), exercised with the test
 * knob exa_debug_relation_exchange_limit set low: every rank must get exactly
 * the rows, in the same order, that the one-call exchange gives, for skewed
 * and even counts, hashed and contiguous reads, and a checkpoint restore. */
#include <exacdf.h>
#include <stdint.h>

#include "mpi_test.h"

/* Skewed: rank 0 holds 700 rows, the others 3 (so rank 0 sends far more than
 * a round's share to every peer); else 40 + rank rows. */
static MPI_Offset make_tuples(int skewed, unsigned long long **out) {
  MPI_Offset n = skewed ? (mpi_test_rank == 0 ? 700 : 3) : 40 + mpi_test_rank;
  unsigned long long *t = malloc(sizeof *t * 3 * (size_t)n + 1);
  for (MPI_Offset i = 0; i < n; i++) {
    t[3 * i] = (unsigned long long)i * 2654435761ULL + (unsigned long long)mpi_test_rank;
    t[3 * i + 1] = (unsigned long long)mpi_test_rank;
    t[3 * i + 2] = (unsigned long long)i;
  }
  *out = t;
  return n;
}

/* Reads relation r with the exchange limit `limit` (0: default). */
static MPI_Offset read_with(int ncid, int hash, long long limit, unsigned long long **t) {
  MPI_Offset n = -1;
  exa_debug_relation_exchange_limit(limit);
  CHECK_OK(exa_relation_read(ncid, "r", hash, &n, t));
  exa_debug_relation_exchange_limit(0);
  return n;
}

static void same_rows(MPI_Offset na, const unsigned long long *a, MPI_Offset nb, const unsigned long long *b) {
  CHECK(na == nb);
  if (na == nb) CHECK(memcmp(a, b, sizeof *a * 3 * (size_t)na) == 0);
}

static void check_file(int skewed) {
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("big_counts.nc"), NC_CLOBBER | NC_64BIT_DATA,
                        MPI_INFO_NULL, &ncid));
  unsigned long long *t;
  MPI_Offset n = make_tuples(skewed, &t);
  CHECK_OK(exa_relation_write(ncid, "r", 3, n, t));
  MPI_Offset total = 0, got_total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
  const int hashes[] = {0, 1, -1};
  const long long limits[] = {1, 5, 64};
  for (int h = 0; h < 3; h++) {
    unsigned long long *once = NULL;
    MPI_Offset n_once = read_with(ncid, hashes[h], 0, &once);
    MPI_Allreduce(&n_once, &got_total, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
    CHECK(got_total == total);
    for (MPI_Offset i = 0; i < n_once && hashes[h] >= 0; i++)
      CHECK(exa_relation_owner(once[3 * i + hashes[h]], mpi_test_nprocs) == mpi_test_rank);
    for (int l = 0; l < 3; l++) {
      unsigned long long *rounds = NULL;
      MPI_Offset n_rounds = read_with(ncid, hashes[h], limits[l], &rounds);
      same_rows(n_once, once, n_rounds, rounds);
      exa_relation_free(rounds);
    }
    exa_relation_free(once);
  }
  CHECK_OK(ncmpi_close(ncid));

  /* A checkpoint restore reads through the same exchange. */
  int ckid, nrel = 0;
  long long iteration = -1;
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, mpi_test_path("big_counts_ck"), 3, &ckid));
  CHECK_OK(exa_checkpoint_write(ckid, "r", EXA_CHECKPOINT_FULL, 3, n, t));
  CHECK_OK(exa_checkpoint_commit(ckid));
  CHECK_OK(exa_checkpoint_restore(MPI_COMM_WORLD, mpi_test_path("big_counts_ck"), &iteration, &nrel, &ckid));
  CHECK(iteration == 3 && nrel == 1);
  unsigned long long *once = NULL, *rounds = NULL;
  MPI_Offset n_once = -1, n_rounds = -1;
  CHECK_OK(exa_checkpoint_read(ckid, "r", 0, &n_once, &once));
  exa_debug_relation_exchange_limit(2);
  CHECK_OK(exa_checkpoint_read(ckid, "r", 0, &n_rounds, &rounds));
  exa_debug_relation_exchange_limit(0);
  same_rows(n_once, once, n_rounds, rounds);
  MPI_Allreduce(&n_rounds, &got_total, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
  CHECK(got_total == total);
  CHECK_OK(exa_checkpoint_close(ckid));
  exa_relation_free(once);
  exa_relation_free(rounds);
  free(t);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  check_file(1);
  check_file(0);
  return mpi_test_finish();
}
