/* A checkpoint whose ranks hold 4 MiB of rows or more each: with 2 or more
 * ranks the policy (O5) writes each rank's rows independently, with O5 off
 * collectively; one relation is empty on some ranks. Both restore what was
 * written, and the file holds every row, big-endian as netCDF reads it, at
 * the rank's offset with its global index as id. */
#include <exacdf.h>
#include <stdint.h>

#include "mpi_test.h"

static unsigned long long mix(unsigned long long x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  return x;
}

static unsigned long long value(int rank, MPI_Offset i, int col) {
  return col == 0 ? ((unsigned long long)rank << 40) | (unsigned long long)i : (unsigned long long)i * 7 + 1;
}

static void digest(MPI_Offset n, const unsigned long long *t, unsigned long long out[2]) {
  unsigned long long local[2] = {(unsigned long long)n, 0};
  for (MPI_Offset i = 0; i < n; i++) local[1] += mix(t[2 * i] * 1000003ULL + t[2 * i + 1]);
  MPI_Allreduce(local, out, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

/* Rank r's first and last rows of variable R in the file MANIFEST links to. */
static void check_file(const char *dir, MPI_Offset n, MPI_Offset offset) {
  char path[1300];
  snprintf(path, sizeof path, "%s/MANIFEST", dir);
  int ncid, varid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "R", &varid));
  MPI_Offset rows[2] = {0, n - 1};
  for (int k = 0; k < 2; k++) {
    MPI_Offset start[2] = {offset + rows[k], 0}, count[2] = {1, 3};
    unsigned long long got[3] = {0, 0, 0};
    CHECK_OK(ncmpi_get_vara_ulonglong_all(ncid, varid, start, count, got));
    CHECK(got[0] == value(mpi_test_rank, rows[k], 0) && got[1] == value(mpi_test_rank, rows[k], 1));
    CHECK(got[2] == (unsigned long long)(offset + rows[k])); /* the id: the row's global index */
  }
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  /* 240000 rows of 3 values: 5.8 MB a rank, above the 4 MiB share; at 2 ranks
   * above the 10 MiB of O1 (a tiny checkpoint is gathered to rank 0). */
  const MPI_Offset n = 240000 + 1000 * (MPI_Offset)mpi_test_rank;
  const MPI_Offset ns = mpi_test_rank % 2 == 0 ? 5 : 0; /* S: empty on odd ranks */
  unsigned long long *t = malloc(sizeof *t * 2 * (size_t)n), s[10], want[2], want_s[2];
  for (MPI_Offset i = 0; i < n; i++) {
    t[2 * i] = value(mpi_test_rank, i, 0);
    t[2 * i + 1] = value(mpi_test_rank, i, 1);
  }
  for (MPI_Offset i = 0; i < ns; i++) {
    s[2 * i] = (unsigned long long)mpi_test_rank * 100 + (unsigned long long)i;
    s[2 * i + 1] = 9;
  }
  digest(n, t, want);
  digest(ns, s, want_s);
  MPI_Offset offset = 0;
  MPI_Exscan(&n, &offset, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
  if (mpi_test_rank == 0) offset = 0;

  /* O5 (independent writes: with O2 and O4 each rank on its own handle; without
   * O4 between begin/end_indep_data), then O5 off (collective writes). */
  const char *policy[] = {"all", "O1,O2,O3,O5,O6,O7", "O1,O3,O4,O5", "O1,O2,O3,O4,O6,O7"};
  for (int k = 0; k < 4; k++) {
    char dir[1200];
    snprintf(dir, sizeof dir, "%s_%d", mpi_test_path("large"), k);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_policy", policy[k]);
    int ck;
    CHECK_OK(exa_checkpoint_begin_info(MPI_COMM_WORLD, dir, 3, info, &ck));
    CHECK_OK(exa_checkpoint_write(ck, "R", EXA_CHECKPOINT_FULL, 2, n, t));
    CHECK_OK(exa_checkpoint_write(ck, "S", EXA_CHECKPOINT_FULL, 2, ns, s));
    CHECK_OK(exa_checkpoint_commit(ck));
    MPI_Info_free(&info);
    check_file(dir, n, offset);

    long long it = -1;
    int nrel = 0;
    CHECK_OK(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &it, &nrel, &ck));
    CHECK(it == 3 && nrel == 2);
    unsigned long long got[2];
    MPI_Offset m = 0;
    unsigned long long *back = NULL;
    CHECK_OK(exa_checkpoint_read(ck, "R", 0, &m, &back));
    digest(m, back, got);
    CHECK(got[0] == want[0] && got[1] == want[1]);
    exa_relation_free(back);
    back = NULL;
    CHECK_OK(exa_checkpoint_read(ck, "S", -1, &m, &back));
    digest(m, back, got);
    CHECK(got[0] == want_s[0] && got[1] == want_s[1]);
    exa_relation_free(back);
    CHECK_OK(exa_checkpoint_close(ck));
  }
  free(t);
  return mpi_test_finish();
}
