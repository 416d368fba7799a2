/*
 * SWMR space reuse (issue 19, docs/format.md "SWMR", refresh bound): a
 * writer that agreed a refresh bound with its readers writes space an older
 * generation referenced again once 2 bounds (and 2 generations) have passed,
 * so a writer rewriting compact variables commit after commit keeps the file
 * at a bounded size; without a bound every commit appends. A reader that
 * refreshes before it reads sees every commit's values; the file reopens to
 * the last one and its older generations' blocks were really overwritten.
 * The bound here is 1 µs: every commit (several syncs) takes longer, so which
 * space is reused does not depend on timing. exacdf only.
 */
#include <exacdf.h>
#include <sys/stat.h>

#include "mpi_test.h"

static int rank, nprocs;

#define N 1024 /* ints of /c/a: a 4 KiB compact variable */
#define COMMITS 120
#define STEADY 20 /* the size after this many commits is the bound */

static int f(int commit, int i) { return 1000 * commit + i; }

static long long file_size(const char *path) {
  long long size = 0;
  if (rank == 0) {
    struct stat st;
    size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
  }
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return size;
}

static void put_a(int ncid, int varid, int commit) {
  int vals[N];
  const MPI_Offset share = (N + nprocs - 1) / nprocs, lo = rank * share < N ? rank * share : N;
  const MPI_Offset hi = lo + share < N ? lo + share : N;
  for (MPI_Offset i = lo; i < hi; i++) vals[i - lo] = f(commit, (int)i);
  MPI_Offset start[1] = {lo}, count[1] = {hi - lo};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
}

static int a_is(int ncid, int commit) {
  int varid, got[N], same = 1;
  CHECK_OK(ncmpi_inq_varid(ncid, "/c/a", &varid));
  CHECK_OK(ncmpi_get_var_int_all(ncid, varid, got));
  for (int i = 0; i < N; i++) same &= got[i] == f(commit, i);
  return same;
}

/* COMMITS commits of /c/a; *steady: the file's size after STEADY. */
static long long run(const char *path, const char *bound, long long *steady) {
  MPI_Info info;
  int w, r, d, a, b, one = 1;
  MPI_Info_create(&info);
  if (bound) MPI_Info_set(info, "exa_swmr_refresh_bound", bound);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  CHECK_OK(ncmpi_def_dim(w, "/c/n", N, &d));
  CHECK_OK(ncmpi_def_var(w, "/c/a", NC_INT, 1, &d, &a));
  CHECK_OK(ncmpi_def_var(w, "/d/b", NC_INT, 0, NULL, &b));
  CHECK_OK(ncmpi_enddef(w));
  /* /d/b's block is never rewritten: it stays where the enddef put it */
  CHECK_OK(ncmpi_begin_indep_data(w));
  if (rank == 0) CHECK_OK(ncmpi_put_var_int(w, b, &one));
  CHECK_OK(ncmpi_end_indep_data(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  for (int c = 1; c <= COMMITS; c++) {
    put_a(w, a, c);
    CHECK_OK(ncmpi_sync(w));
    if (c == STEADY) *steady = file_size(path);
    if (c % 10 == 0 || c <= 4) {
      CHECK_OK(exa_refresh(r));
      CHECK(a_is(r, c));
    }
  }
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
  MPI_Info_free(&info);
  const long long size = file_size(path);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &r));
  CHECK(a_is(r, COMMITS));
  int got = 0;
  CHECK_OK(ncmpi_inq_varid(r, "/d/b", &b));
  CHECK_OK(ncmpi_get_var_int_all(r, b, &got));
  CHECK(got == 1);
  CHECK_OK(ncmpi_close(r));
  return size;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  long long steady_reuse = 0, steady_grow = 0;
  const long long reuse = run(mpi_test_path("swmr_space_reuse.nc"), "0.000001", &steady_reuse);
  const long long grow = run(mpi_test_path("swmr_space_grow.nc"), NULL, &steady_grow);
  if (rank == 0)
    printf("swmr space: %d commits of a 4 KiB compact variable: %lld bytes with a refresh bound (%lld after %d), "
           "%lld without\n", COMMITS, reuse, steady_reuse, STEADY, grow);
  /* with the bound the file stops growing; without it every commit appends the block */
  CHECK(reuse > 0 && reuse <= steady_reuse);
  CHECK(reuse < 8 * N * 4);
  CHECK(grow >= steady_grow + (COMMITS - STEADY) * N * 4);
  return mpi_test_finish();
}
