/*
 * Superblock generations of partitioned files (docs/format.md, "What a
 * reader can rely on"): exa_inq_generation reports the generation opened,
 * and when the newest one is unusable -- its superblock slot damaged (one
 * flipped byte), or its index table beyond the end of the file (a full disk
 * or a crash while it was committed) -- the file opens at the previous
 * generation with its data intact, and newer_damaged says so. exacdf only.
 */
#include <exacdf.h>
#include <unistd.h>

#include "mpi_test.h"

static int rank;

/* Generation 1..: x(4) int = 10,20,30,40 and t(time) double with 2 records;
 * a later open adds record 2 and (the newest generation, *g_three) a global
 * attribute "title". */
static void make_file(const char *path, long long *g_two, long long *g_three) {
  int ncid, dn, dt, vx, vt;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 4, &dn));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_var(ncid, "x", NC_INT, 1, &dn, &vx));
  CHECK_OK(ncmpi_def_var(ncid, "t", NC_DOUBLE, 1, &dt, &vt));
  CHECK_OK(ncmpi_enddef(ncid));
  int x[4] = {10, 20, 30, 40};
  CHECK_OK(ncmpi_put_var_int_all(ncid, vx, x));
  double t[2] = {0.5, 1.5};
  MPI_Offset start = 0, count = rank == 0 ? 2 : 0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, vt, &start, &count, t));
  CHECK_OK(ncmpi_close(ncid));

  int damaged = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_generation(ncid, g_two, &damaged));
  CHECK(*g_two >= 1);
  CHECK(damaged == 0);
  double t2 = 2.5;
  start = 2;
  count = rank == 0 ? 1 : 0;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, vt, &start, &count, &t2));
  /* The redef commits the third record, its enddef a new index table (past
   * the end of the space in use) with the title. */
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 1, "T"));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_generation(ncid, g_three, &damaged));
  CHECK(*g_three > *g_two);
  CHECK(damaged == 0);
  CHECK_OK(ncmpi_close(ncid));
}

/* Opens the file and checks the generation, the flag and the data of the
 * generation with `nrecs` records. */
static void check_opened(const char *path, long long want_generation, int want_damaged, MPI_Offset nrecs,
                         int want_title) {
  int ncid, vx, vt, damaged = -1;
  long long generation = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_generation(ncid, &generation, &damaged));
  MPI_Offset got_recs = -1;
  CHECK_OK(ncmpi_inq_unlimdim(ncid, &vt));
  CHECK_OK(ncmpi_inq_dimlen(ncid, vt, &got_recs));
  if (generation != want_generation || damaged != want_damaged || got_recs != nrecs)
    fprintf(stderr, "opened generation %lld (newer damaged %d) with %lld records; expected %lld (%d), %lld\n",
            generation, damaged, (long long)got_recs, want_generation, want_damaged, (long long)nrecs);
  CHECK(generation == want_generation);
  CHECK(damaged == want_damaged);
  CHECK(got_recs == nrecs);
  MPI_Offset len = 0;
  CHECK_ERR(ncmpi_inq_attlen(ncid, NC_GLOBAL, "title", &len), want_title ? NC_NOERR : NC_ENOTATT);
  CHECK_OK(ncmpi_inq_varid(ncid, "x", &vx));
  CHECK_OK(ncmpi_inq_varid(ncid, "t", &vt));
  int x[4] = {0};
  CHECK_OK(ncmpi_get_var_int_all(ncid, vx, x));
  CHECK(x[0] == 10 && x[1] == 20 && x[2] == 30 && x[3] == 40);
  double t[3] = {0};
  MPI_Offset start = 0, count = nrecs;
  CHECK_OK(ncmpi_get_vara_double_all(ncid, vt, &start, &count, t));
  for (MPI_Offset k = 0; k < nrecs; k++) CHECK(t[k] == 0.5 + (double)k);
  CHECK_OK(ncmpi_close(ncid));
}

static unsigned long long be64_at(const unsigned char *p) {
  unsigned long long v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  return v;
}

/* Rank 0 changes the file; the others wait. */
static void flip_byte(const char *path, long offset) {
  if (rank == 0) {
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
      CHECK(fseek(f, offset, SEEK_SET) == 0);
      int c = fgetc(f);
      CHECK(fseek(f, offset, SEEK_SET) == 0);
      fputc(c ^ 0x10, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Cuts the file at the end of the space generation g_prev uses (its slot's
 * file_end), as a full disk leaves it: the newest index table is gone. */
static void truncate_to_previous(const char *path, long long g_prev) {
  if (rank == 0) {
    unsigned char sb[128];
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
      CHECK(fseek(f, ((g_prev - 1) % 2) * 512, SEEK_SET) == 0);
      CHECK(fread(sb, 1, sizeof sb, f) == sizeof sb);
      fclose(f);
      CHECK(be64_at(sb + 16) == (unsigned long long)g_prev);
      CHECK(truncate(path, (off_t)be64_at(sb + 96)) == 0);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("generation.exa"));
  long long g2 = 0, g3 = 0;

  /* Intact: the newest generation, nothing passed over. */
  make_file(path, &g2, &g3);
  check_opened(path, g3, 0, 3, 1);

  /* One flipped byte in the newest slot: the previous generation (3
   * records, no title), and the flag says a newer one is damaged. */
  flip_byte(path, ((g3 - 1) % 2) * 512 + 40);
  check_opened(path, g3 - 1, 1, 3, 0);

  /* Writing commits a new generation into the damaged slot: the flag clears. */
  {
    int ncid, damaged = -1;
    long long generation = -1;
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_redef(ncid));
    CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 1, "B"));
    CHECK_OK(ncmpi_enddef(ncid));
    CHECK_OK(exa_inq_generation(ncid, &generation, &damaged));
    CHECK(generation == g3);
    CHECK(damaged == 0);
    CHECK_OK(ncmpi_close(ncid));
  }

  /* The newest index table beyond the end of the file (a full disk): the
   * previous generation. */
  make_file(path, &g2, &g3);
  truncate_to_previous(path, g3 - 1);
  check_opened(path, g3 - 1, 1, 3, 0);

  /* Classic files have no generations. */
  {
    int ncid;
    long long generation = 0;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("classic.nc"), NC_CLOBBER, MPI_INFO_NULL, &ncid));
    CHECK_ERR(exa_inq_generation(ncid, &generation, NULL), NC_ENOTSUPPORT);
    CHECK_OK(ncmpi_close(ncid));
  }
  return mpi_test_finish();
}
