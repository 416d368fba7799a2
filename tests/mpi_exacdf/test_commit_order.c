/*
 * The commit order (issue 19, "Fix first"): a commit -- a partitioned
 * superblock, a classic numrecs written by ncmpi_sync or ncmpi_close -- is
 * written only after every byte it counts is synced on every rank, and is
 * synced itself. exa_debug_unordered_commits counts commit points written
 * while this process had unsynced writes: it stays 0. And a record commit
 * killed at each of its writes (exa_debug_fail_write, on rank 0 or the last
 * rank) reopens to a consistent state: the old number of records with the
 * old values, or more records holding every value written. exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static int rank, nprocs;

#define X 6     /* elements of one record */
#define OLD 2   /* records before the commit under test */
#define NEW 2   /* records the commit adds */

static int value(int rec, int i) { return 100 * rec + i + 1; }

static void create_file(const char *path, int cmode) {
  int ncid, d[2], v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", X, &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* Rank r writes elements r, r + nprocs, ... of records [first, first + n)
 * in one call: collectively, or independently (then the records are counted
 * at the next ncmpi_sync or ncmpi_close). */
static int put_records(int ncid, int first, int n, int independent) {
  int vals[(OLD + NEW) * X];
  MPI_Offset cnt = rank < X ? (X - 1 - rank) / nprocs + 1 : 0;
  MPI_Offset start[2] = {first, rank < X ? rank : 0}, count[2] = {n, cnt}, stride[2] = {1, nprocs};
  int k = 0;
  for (int r = first; r < first + n; r++)
    for (int i = rank; i < X; i += nprocs) vals[k++] = value(r, i);
  if (independent) return cnt ? ncmpi_put_vars_int(ncid, 0, start, count, stride, vals) : NC_NOERR;
  return ncmpi_put_vars_int_all(ncid, 0, start, count, stride, vals);
}

/* The file as a reopen sees it: at least `least` records, each record either
 * all written or (past the count) not counted. */
static MPI_Offset check_file(const char *path, MPI_Offset least, MPI_Offset most) {
  int ncid;
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK(nrec >= least && nrec <= most);
  for (MPI_Offset r = 0; r < nrec && r < most; r++) {
    int got[X];
    MPI_Offset start[2] = {r, 0}, count[2] = {1, X};
    CHECK_OK(ncmpi_get_vara_int_all(ncid, 0, start, count, got));
    for (int i = 0; i < X; i++) CHECK(got[i] == value((int)r, i));
  }
  CHECK_OK(ncmpi_close(ncid));
  return nrec;
}

/* Whether any rank failed (the failing-write hook hits one rank). */
static int any_failed(int err) {
  int mine = err != NC_NOERR, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

/* The writes of a record commit fail one at a time (write n of `victim`,
 * n = 1, 2, ...) until the commit goes through: each reopen is consistent. */
static void crash_every_write(int cmode, int independent, int victim, const char *name) {
  const char *path = mpi_test_path(name);
  int steps = 0;
  for (int n = 1; n <= 64 && !steps; n++) {
    create_file(path, cmode);
    int ncid;
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
    if (independent) CHECK_OK(ncmpi_begin_indep_data(ncid));
    CHECK(put_records(ncid, 0, OLD, independent) == NC_NOERR);
    CHECK_OK(ncmpi_sync(ncid));
    const long long unordered = exa_debug_unordered_commits();
    exa_debug_fail_write(rank == victim ? n : 0);
    int err = put_records(ncid, OLD, NEW, independent);
    /* (independent mode: ncmpi_sync counts the records, in order) */
    if (!any_failed(err)) err = ncmpi_sync(ncid);
    exa_debug_fail_write(0);
    CHECK(exa_debug_unordered_commits() == unordered);
    if (!any_failed(err)) {
      steps = n;
      CHECK_OK(ncmpi_close(ncid));
      CHECK(check_file(path, OLD + NEW, OLD + NEW) == OLD + NEW);
      break;
    }
    CHECK(err == NC_NOERR || err == NC_EWRITE);
    ncmpi_abort(ncid);
    MPI_Offset seen = check_file(path, OLD, OLD + NEW);
    if (getenv("ORDER_DEBUG") && rank == 0) printf("%s victim %d n %d err %d: %lld records\n", name, victim, n, err, (long long)seen);
  }
  CHECK(steps > 1);
}

/* ncmpi_close counts records grown independently, in order: no unordered commit. */
static void close_counts_in_order(int cmode, const char *name) {
  const char *path = mpi_test_path(name);
  create_file(path, cmode);
  int ncid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK(put_records(ncid, 0, OLD + NEW, 1) == NC_NOERR);
  const long long unordered = exa_debug_unordered_commits();
  CHECK_OK(ncmpi_close(ncid));
  CHECK(exa_debug_unordered_commits() == unordered);
  CHECK(check_file(path, OLD + NEW, OLD + NEW) == OLD + NEW);
}

/* A record written only in part leaves the file short of the committed end:
 * the commit extends it (one byte at the end), synced before the superblock. */
static void extension_in_order(void) {
  const char *path = mpi_test_path("order_part_extend.nc");
  create_file(path, EXA_FORMAT_PARTITIONED);
  int ncid, val = value(OLD + NEW, 0);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset start[2] = {OLD + NEW, 0}, count[2] = {1, rank == 0 ? 1 : 0};
  const long long unordered = exa_debug_unordered_commits();
  CHECK_OK(ncmpi_put_vara_int_all(ncid, 0, start, count, &val));
  CHECK(exa_debug_unordered_commits() == unordered);
  CHECK_OK(ncmpi_close(ncid));
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK(nrec == OLD + NEW + 1);
  int got[X];
  MPI_Offset all[2] = {1, X};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, 0, start, all, got)); /* the tail reads, no NC_ETRUNC */
  CHECK(got[0] == val);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const int victims[2] = {0, nprocs - 1};
  for (int k = 0; k < (nprocs > 1 ? 2 : 1); k++) {
    crash_every_write(EXA_FORMAT_PARTITIONED, 0, victims[k], "order_part_coll.nc");
    crash_every_write(EXA_FORMAT_PARTITIONED, 1, victims[k], "order_part_indep.nc");
    crash_every_write(0, 1, victims[k], "order_cdf1_indep.nc");
    crash_every_write(NC_64BIT_DATA, 1, victims[k], "order_cdf5_indep.nc");
  }
  extension_in_order();
  close_counts_in_order(0, "order_cdf1_close.nc");
  close_counts_in_order(EXA_FORMAT_PARTITIONED, "order_part_close.nc");
  return mpi_test_finish();
}
