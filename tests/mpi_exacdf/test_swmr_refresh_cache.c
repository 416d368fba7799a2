/*
 * An SWMR reader's refresh reads only what changed (issue 19): blocks whose
 * offset, size and CRC are the same in the new generation stay cached, so
 * after the writer appends records to 40 variables (each in a block of its
 * own), the refresh and looking every variable up again make a few MPI-IO
 * calls (superblocks, index head, root block), not one per block; the values
 * of the new records are read. After a redef that changes the blocks the
 * reader reads them again and sees the new attribute. The same for compact
 * variables rewritten one per commit. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

#define NV 40

static int f(int var, int rec) { return 1000 * var + rec; }

static void put_records(int w, int rec) {
  for (int v = 0; v < NV; v++) {
    int val = f(v, rec);
    MPI_Offset start[1] = {rec}, count[1] = {mpi_test_rank == 0 ? 1 : 0};
    CHECK_OK(ncmpi_put_vara_int_all(w, v, start, count, &val));
  }
}

/* Looks every variable up by name; reads record rec of each when rec >= 0. */
static void look_up(int r, int rec) {
  for (int v = 0; v < NV; v++) {
    char name[32];
    int varid, got = -1;
    snprintf(name, sizeof name, "/g%02d/v", v);
    CHECK_OK(ncmpi_inq_varid(r, name, &varid));
    if (rec < 0) continue;
    MPI_Offset start[1] = {rec}, count[1] = {1};
    CHECK_OK(ncmpi_get_vara_int_all(r, varid, start, count, &got));
    CHECK(got == f(v, rec));
  }
}

static MPI_Offset calls(int ncid) {
  MPI_Offset n = 0;
  CHECK_OK(exa_inq_io_calls(ncid, &n));
  return n;
}

/* Compact variables (their data in their blocks): the writer rewrites one
 * of NCOMPACT compact variables per commit; a refreshed reader reads all of them
 * with a few MPI-IO calls more than the one changed block. */
#define NCOMPACT 20
static void compact(void) {
  const char *path = mpi_test_path("swmr_refresh_cache_compact.nc");
  int w, r, d, v, vals[4];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL,
                        &w));
  CHECK_OK(ncmpi_def_dim(w, "n", 4, &d));
  for (int k = 0; k < NCOMPACT; k++) {
    char name[32];
    snprintf(name, sizeof name, "/c%02d/v", k);
    CHECK_OK(ncmpi_def_var(w, name, NC_INT, 1, &d, &v));
  }
  CHECK_OK(ncmpi_enddef(w));
  for (int k = 0; k < NCOMPACT; k++) {
    for (int i = 0; i < 4; i++) vals[i] = f(k, 0) + i;
    CHECK_OK(ncmpi_put_var_int_all(w, k, vals));
  }
  CHECK_OK(ncmpi_sync(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  int version[NCOMPACT] = {0};
  for (int c = 0; c <= 3; c++) {
    const int changed = 3 * c; /* c = 0: nothing changes, every block is read once */
    if (c > 0) {
      for (int i = 0; i < 4; i++) vals[i] = f(changed, c) + i;
      CHECK_OK(ncmpi_put_var_int_all(w, changed, vals));
      CHECK_OK(ncmpi_sync(w));
      version[changed] = c;
    }
    const MPI_Offset before = calls(r);
    CHECK_OK(exa_refresh(r));
    for (int k = 0; k < NCOMPACT; k++) {
      char name[32];
      int varid, got[4];
      snprintf(name, sizeof name, "/c%02d/v", k);
      CHECK_OK(ncmpi_inq_varid(r, name, &varid));
      CHECK_OK(ncmpi_get_var_int_all(r, varid, got));
      for (int i = 0; i < 4; i++) CHECK(got[i] == f(k, version[k]) + i);
    }
    /* each collective get takes part in one (empty) MPI-IO call: compact data is in the block */
    const MPI_Offset made = calls(r) - before - NCOMPACT;
    if (made > 5) printf("rank %d: refresh and %d compact reads made %lld MPI-IO calls besides the gets\n",
                         mpi_test_rank, NCOMPACT, (long long)made);
    if (c > 0) CHECK(made <= 5); /* the changed block once, not every block */
  }
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const char *path = mpi_test_path("swmr_refresh_cache.nc");
  int w, r, t, v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL,
                        &w));
  CHECK_OK(ncmpi_def_dim(w, "time", NC_UNLIMITED, &t));
  for (int k = 0; k < NV; k++) {
    char name[32];
    snprintf(name, sizeof name, "/g%02d/v", k);
    CHECK_OK(ncmpi_def_var(w, name, NC_INT, 1, &t, &v));
  }
  CHECK_OK(ncmpi_enddef(w));
  put_records(w, 0);
  CHECK_OK(ncmpi_sync(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  look_up(r, 0);  /* every block read once */
  for (int rec = 1; rec <= 3; rec++) {
    put_records(w, rec);
    CHECK_OK(ncmpi_sync(w));
    const MPI_Offset before = calls(r);
    CHECK_OK(exa_refresh(r));
    look_up(r, -1);
    const MPI_Offset made = calls(r) - before;
    if (made > 4) printf("rank %d: refresh and %d lookups made %lld MPI-IO calls\n", mpi_test_rank, NV, (long long)made);
    CHECK(made <= 4); /* not one per block */
    MPI_Offset nrec = 0;
    CHECK_OK(ncmpi_inq_dimlen(r, 0, &nrec));
    CHECK(nrec == rec + 1);
    look_up(r, rec);
  }
  /* a redef changes the blocks (an attribute; the record section moves) */
  int one = 1;
  CHECK_OK(ncmpi_redef(w));
  CHECK_OK(ncmpi_put_att_int(w, 7, "marked", NC_INT, 1, &one));
  CHECK_OK(ncmpi_enddef(w));
  CHECK_OK(exa_refresh(r));
  look_up(r, 3);
  int varid, got = 0;
  CHECK_OK(ncmpi_inq_varid(r, "/g07/v", &varid));
  CHECK_OK(ncmpi_get_att_int(r, varid, "marked", &got));
  CHECK(got == 1);
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
  compact();
  return mpi_test_finish();
}
