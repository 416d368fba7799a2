/* Index commits in a partitioned file WITH records reuse space (issue 20;
 * docs/format.md "Index blocks"): what a commit stops referencing (the old
 * header block, chunk pieces an update replaced, the old index table, the
 * old places of blocks a record move rewrote) is written again by a later
 * commit (two generations on), and a commit whose bytes all fit there
 * leaves the current record section, and every block of a record
 * variable, where they are, and the table keeps the pages that did not
 * change (superblock flag 16). So N commits of an index that does not grow
 * cost the file a bounded number of bytes, not N times the blocks of the
 * record variables and the table.
 *
 * Two files get the same puts: "reuse.exa" with an index on f updated after
 * every round (appended records, an overwrite), "plain.exa" with none. The
 * difference of their sizes (the index's cost) must stop growing; every
 * query equals a brute-force scan after every commit and after a reopen,
 * and every value read back equals the model (no record or block was
 * overwritten by reused space). tool.query_index_reuse runs this program
 * and then `exacdf verify` on reuse.exa and compares ncdump of the CDF-5
 * copies of both files. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <exacdf.h>

#include "mpi_test.h"
#include "superblock_probe.h"

#define COLS 8
#define GROUPS 24 /* record variables in blocks of their own: a record move rewrites them all */
#define EMPTY_GROUPS 520
#define ROWS0 64
#define STEP 8
#define ROUNDS 10
#define MAXROWS (ROWS0 + STEP * ROUNDS + 8)
#define EDGES "edges=50,100,150,200,250,300;chunk=128"

static float fmodel[MAXROWS * COLS], fvals[MAXROWS * COLS];
static double rmodel[GROUPS][MAXROWS], rvals[MAXROWS];
static MPI_Offset nrows;
static int both_choices; /* queries with the index forced, and (when set) by the cost check's choice too */

static int test_op(int op, double v, double c) {
  switch (op) {
    case EXA_QUERY_EQ: return v == c;
    case EXA_QUERY_LT: return v < c;
    default: return v >= c;
  }
}

static float f_at(MPI_Offset i) { return (float)((i / 4) % 700) * 0.5f; }

struct file {
  int ncid, f, r[GROUPS];
};

static void define(const char *path, struct file *x) {
  int dims[2];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &x->ncid));
  CHECK_OK(ncmpi_def_dim(x->ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(x->ncid, "col", COLS, &dims[1]));
  CHECK_OK(ncmpi_def_var(x->ncid, "f", NC_FLOAT, 2, dims, &x->f));
  for (int k = 0; k < GROUPS; ++k) {
    char name[64];
    snprintf(name, sizeof name, "/g%02d/r", k);
    CHECK_OK(ncmpi_def_var(x->ncid, name, NC_DOUBLE, 1, dims, &x->r[k]));
  }
  /* Blocks without variables, so the index table has two pages (512
   * entries a page): a commit that keeps the records rewrites only the
   * page listing the index block and keeps page 0 (superblock flag 16). */
  for (int k = 0; k < EMPTY_GROUPS; ++k) {
    char name[64];
    int d;
    snprintf(name, sizeof name, "/h%03d/d", k);
    CHECK_OK(ncmpi_def_dim(x->ncid, name, 1, &d));
  }
  CHECK_OK(ncmpi_enddef(x->ncid));
}

/* Ids follow the blocks' order on disk: looked up again after a reopen. */
static void lookup(struct file *x) {
  CHECK_OK(ncmpi_inq_varid(x->ncid, "f", &x->f));
  for (int k = 0; k < GROUPS; ++k) {
    char name[64];
    snprintf(name, sizeof name, "/g%02d/r", k);
    CHECK_OK(ncmpi_inq_varid(x->ncid, name, &x->r[k]));
  }
}

/* Rows [row, row + n) of every variable, split over the ranks, into both files. */
static void put_rows(struct file *xs, int nx, MPI_Offset row, MPI_Offset n, float shift) {
  CHECK(row + n <= MAXROWS);
  for (MPI_Offset i = row * COLS; i < (row + n) * COLS; ++i) fmodel[i] = f_at(i) + shift;
  for (int k = 0; k < GROUPS; ++k)
    for (MPI_Offset r = row; r < row + n; ++r) rmodel[k][r] = (double)r * 1.5 + k + shift;
  const MPI_Offset lo = row + n * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = row + n * (mpi_test_rank + 1) / mpi_test_nprocs;
  MPI_Offset start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
  for (int x = 0; x < nx; ++x) {
    CHECK_OK(ncmpi_put_vara_float_all(xs[x].ncid, xs[x].f, start, count, fmodel + lo * COLS));
    for (int k = 0; k < GROUPS; ++k)
      CHECK_OK(ncmpi_put_vara_double_all(xs[x].ncid, xs[x].r[k], start, count, rmodel[k] + lo));
  }
  if (row + n > nrows) nrows = row + n;
}

/* Every value read back equals the model. */
static void read_all(const struct file *x, const char *what) {
  MPI_Offset start[2] = {0, 0}, count[2] = {nrows, COLS}, bad = 0;
  CHECK_OK(ncmpi_get_vara_float_all(x->ncid, x->f, start, count, fvals));
  for (MPI_Offset i = 0; i < nrows * COLS; ++i) bad += fvals[i] != fmodel[i];
  for (int k = 0; k < GROUPS; ++k) {
    CHECK_OK(ncmpi_get_vara_double_all(x->ncid, x->r[k], start, count, rvals));
    for (MPI_Offset r = 0; r < nrows; ++r) bad += rvals[r] != rmodel[k][r];
  }
  if (bad) fprintf(stderr, "[rank %d] %s: %lld values differ from what was put\n", mpi_test_rank, what, (long long)bad);
  CHECK(bad == 0);
}

/* f op c on the default split, with the index forced and by the cost check's
 * choice, equal to a scan of the values read back (fvals). */
static void check_query(const struct file *x, int op, float c, const char *what) {
  const MPI_Offset lo = nrows * mpi_test_rank / mpi_test_nprocs;
  const MPI_Offset hi = nrows * (mpi_test_rank + 1) / mpi_test_nprocs;
  for (int s = 0; s < 1 + both_choices; ++s) {
    if (s == 0) setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1);
    else unsetenv("EXACDF_QUERY_INDEX_SHARE");
    int q;
    MPI_Offset nhits = -1, want = 0, wrong = 0;
    CHECK_OK(exa_query_create(x->ncid, x->f, op, NC_FLOAT, &c, &q));
    CHECK_OK(exa_query_eval(x->ncid, q, NULL, NULL, &nhits));
    MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * 2 * sizeof *coords);
    CHECK_OK(exa_query_hits(x->ncid, q, nhits, coords));
    for (MPI_Offset i = lo * COLS; i < hi * COLS; ++i) {
      if (!test_op(op, fvals[i], c)) continue;
      if (want < nhits) wrong += !(coords[2 * want] == i / COLS && coords[2 * want + 1] == i % COLS);
      ++want;
    }
    if (nhits != want || wrong)
      fprintf(stderr, "[rank %d] %s: op %d %g: %lld hits, want %lld (%lld misplaced)\n", mpi_test_rank, what, op,
              (double)c, (long long)nhits, (long long)want, (long long)wrong);
    CHECK(nhits == want && wrong == 0);
    free(coords);
    CHECK_OK(exa_query_free(q));
  }
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
}

static void all_queries(const struct file *x, const char *what) {
  read_all(x, what);
  const float cs[] = {-1.0f, 100.0f, 250.25f, 1003.5f};
  const int ops[] = {EXA_QUERY_EQ, EXA_QUERY_LT, EXA_QUERY_GE};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i)
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; ++k) check_query(x, ops[k], cs[i], what);
}

static void expect_current(const struct file *x, const char *what) {
  int present = -1, current = -1;
  CHECK_OK(exa_index_inq(x->ncid, x->f, &present, &current, NULL, NULL));
  if (present != 1 || current != 1)
    fprintf(stderr, "[rank %d] %s: index present %d current %d\n", mpi_test_rank, what, present, current);
  CHECK(present == 1 && current == 1);
}

/* Rank 0's size of the file, on every rank. */
static long long file_size(const char *path) {
  long long n = -1;
  struct stat s;
  if (mpi_test_rank == 0 && stat(path, &s) == 0) n = (long long)s.st_size;
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  CHECK(n > 0);
  return n;
}

/* Crash runs (tool.query_index_reuse, one rank): EXA_REUSE_CRASH=K kills
 * the writer (SIGKILL) at the Kth I/O event of the update of round
 * CRASH_ROUND, a commit that writes into released space (0: no kill; prints
 * that update's events); EXA_REUSE_CRASH=check then opens what it left: a
 * valid generation whose every value equals the model (the round's puts all
 * returned before the update; its appended records may be uncounted), whose
 * queries equal a scan, and that the next writer can take over (it drops
 * the index the killed writer left open and builds it again). The script
 * runs `exacdf verify` on each. */
#define CRASH_ROUND 3

static void crash_rounds(struct file *x, int nx, int last) {
  for (int k = 0; k <= last; ++k) {
    put_rows(x, nx, nrows, STEP, 0.0f);
    put_rows(x, nx, (MPI_Offset)(k * 13) % nrows, 1, 1000.0f + (float)k);
    if (nx > 0 && k < last) CHECK_OK(exa_index_create(x->ncid, x->f, "update"));
  }
}

static int crash_main(const char *mode) {
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("crash.exa"));
  struct file x;
  if (strcmp(mode, "check") != 0) {
    const long long kill_at = atoll(mode);
    define(path, &x);
    put_rows(&x, 1, 0, ROWS0, 0.0f);
    CHECK_OK(exa_index_create(x.ncid, x.f, EDGES));
    crash_rounds(&x, 1, CRASH_ROUND);
    CHECK_OK(ncmpi_sync(x.ncid));
    const long long size0 = file_size(path), events0 = exa_debug_io_events();
    if (kill_at > 0) exa_debug_kill_at(kill_at);
    CHECK_OK(exa_index_create(x.ncid, x.f, "update"));
    if (mpi_test_rank == 0) printf("events %lld\n", exa_debug_io_events() - events0);
    CHECK(kill_at == 0); /* (else it should have been killed) */
    CHECK(file_size(path) == size0); /* the update wrote into released space only */
    CHECK_OK(ncmpi_close(x.ncid));
    return mpi_test_finish();
  }
  put_rows(&x, 0, 0, ROWS0, 0.0f); /* the model alone */
  crash_rounds(&x, 0, CRASH_ROUND);
  const MPI_Offset all = nrows, before = all - STEP;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &x.ncid));
  lookup(&x);
  int dimids[2];
  MPI_Offset len = -1;
  CHECK_OK(ncmpi_inq_vardimid(x.ncid, x.f, dimids));
  CHECK_OK(ncmpi_inq_dimlen(x.ncid, dimids[0], &len));
  CHECK(len == all || len == before);
  nrows = len;
  all_queries(&x, "after the kill");
  CHECK_OK(ncmpi_close(x.ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &x.ncid));
  lookup(&x);
  CHECK_OK(exa_index_create(x.ncid, x.f, EDGES));
  expect_current(&x, "rebuilt after the kill");
  all_queries(&x, "rebuilt after the kill");
  CHECK_OK(ncmpi_close(x.ncid));
  return mpi_test_finish();
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const char *crash = getenv("EXA_REUSE_CRASH");
  if (crash != NULL) return crash_main(crash);
  char reuse[1200], plain[1200];
  snprintf(reuse, sizeof reuse, "%s", mpi_test_path("reuse.exa"));
  snprintf(plain, sizeof plain, "%s", mpi_test_path("plain.exa"));
  unsetenv("EXACDF_QUERY_SIDECAR");
  struct file xs[2];
  define(reuse, &xs[0]);
  define(plain, &xs[1]);
  put_rows(xs, 2, 0, ROWS0, 0.0f);
  CHECK_OK(exa_index_create(xs[0].ncid, xs[0].f, EDGES));
  expect_current(&xs[0], "built");
  all_queries(&xs[0], "built");

  /* Rounds of appended records, an overwrite and an update (one index
   * commit: the overwritten chunk's piece and the last chunk's are made
   * again, the header block and the table are written anew). */
  long long cost[ROUNDS];
  for (int k = 0; k < ROUNDS; ++k) {
    char what[64];
    snprintf(what, sizeof what, "round %d", k);
    put_rows(xs, 2, nrows, STEP, 0.0f);
    put_rows(xs, 2, (MPI_Offset)(k * 13) % nrows, 1, 1000.0f + (float)k);
    CHECK_OK(exa_index_create(xs[0].ncid, xs[0].f, "update"));
    expect_current(&xs[0], what);
    all_queries(&xs[0], what);
    CHECK_OK(ncmpi_sync(xs[0].ncid));
    CHECK_OK(ncmpi_sync(xs[1].ncid));
    cost[k] = file_size(reuse) - file_size(plain);
    if (mpi_test_rank == 0) printf("%s: the index costs the file %lld bytes\n", what, cost[k]);
  }
  /* The cost stops growing: the second half of the rounds may add at most
   * about one commit's header block and record blocks (under 8 KiB here).
   * Without reuse every commit moved the records and wrote the whole table
   * (546 entries, 2 pages): 209,888 bytes over rounds 5-9 at 2 ranks (the
   * cost 83,072 bytes after round 0, 459,688 after round 9); with reuse and
   * kept pages, 0 (41,512 bytes after every round at 1, 2 and 4 ranks). */
  const long long grown = cost[ROUNDS - 1] - cost[ROUNDS / 2 - 1];
  if (mpi_test_rank == 0) printf("rounds %d-%d: %lld bytes\n", ROUNDS / 2, ROUNDS - 1, grown);
  CHECK(grown <= 8192);
  CHECK_OK(ncmpi_close(xs[0].ncid));
  CHECK_OK(ncmpi_close(xs[1].ncid));
  /* The last commit kept page 0 of the table (flag 16), wrote the page of
   * the index block, and the close kept it so. */
  CHECK(superblock_flag_set(reuse, 16u));

  /* Reopened: the index is current and answers as the scan does (page 0
   * read where an older commit wrote it). */
  both_choices = 1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, reuse, NC_NOWRITE, MPI_INFO_NULL, &xs[0].ncid));
  lookup(&xs[0]);
  expect_current(&xs[0], "reopened");
  all_queries(&xs[0], "reopened");
  both_choices = 0;
  CHECK_OK(ncmpi_close(xs[0].ncid));

  /* A writer that reopens (its list of released space starts empty) and
   * goes on: its commits are as exact. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, reuse, NC_WRITE, MPI_INFO_NULL, &xs[0].ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, plain, NC_WRITE, MPI_INFO_NULL, &xs[1].ncid));
  lookup(&xs[0]);
  lookup(&xs[1]);
  for (int k = 0; k < 3; ++k) {
    put_rows(xs, 2, nrows, 2, 0.0f);
    put_rows(xs, 2, 5 + k, 1, 2000.0f);
    CHECK_OK(exa_index_create(xs[0].ncid, xs[0].f, "update"));
    all_queries(&xs[0], "reopened writer");
  }
  CHECK_OK(ncmpi_close(xs[0].ncid));
  CHECK_OK(ncmpi_close(xs[1].ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, reuse, NC_NOWRITE, MPI_INFO_NULL, &xs[0].ncid));
  lookup(&xs[0]);
  expect_current(&xs[0], "reopened at the end");
  all_queries(&xs[0], "reopened at the end");
  CHECK_OK(ncmpi_close(xs[0].ncid));
  return mpi_test_finish();
}
