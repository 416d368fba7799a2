/*
 * SWMR space reuse across a writer's reopen (issue 19): the list of
 * released space lives in the writer's memory, so a writer that opens a
 * file rebuilds it -- everything between 4096 and the end in use that
 * neither the opened generation nor its predecessor references, reusable
 * 2 refresh bounds after the open. A writer that closes and reopens
 * SESSIONS times, committing compact rewrites (and every 10th session a
 * redef changing an attribute) in each, keeps the file at the size it had
 * after STEADY sessions; without the rebuild every session appended at
 * least its first commit's blocks. A reader refreshing along the way sees
 * every checked commit's values, and the last state reopens whole. Then
 * records in sections (a redef split them) through reopens and redefs
 * whose metadata may go into the rebuilt space: every record intact.
 * The bound is 1 µs: every commit takes longer, so which space is reused
 * does not depend on timing. exacdf only.
 */
#include <exacdf.h>
#include <string.h>
#include <sys/stat.h>

#include "mpi_test.h"

static int rank, nprocs;

#define N 1024 /* ints of /c/a: a 4 KiB compact variable */
#define SESSIONS 100
#define STEADY 20 /* the size after this many sessions is the bound */

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

static void put_a(int ncid, int commit) {
  int varid, vals[N];
  const MPI_Offset share = (N + nprocs - 1) / nprocs, lo = rank * share < N ? rank * share : N;
  const MPI_Offset hi = lo + share < N ? lo + share : N;
  for (MPI_Offset i = lo; i < hi; i++) vals[i - lo] = f(commit, (int)i);
  MPI_Offset start[1] = {lo}, count[1] = {hi - lo};
  CHECK_OK(ncmpi_inq_varid(ncid, "/c/a", &varid));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
}

static int a_is(int ncid, int commit) {
  int varid, got[N], same = 1;
  CHECK_OK(ncmpi_inq_varid(ncid, "/c/a", &varid));
  CHECK_OK(ncmpi_get_var_int_all(ncid, varid, got));
  for (int i = 0; i < N; i++) same &= got[i] == f(commit, i);
  return same;
}

static int session_att(int ncid) {
  int varid, v = -1;
  CHECK_OK(ncmpi_inq_varid(ncid, "/c/a", &varid));
  CHECK_OK(ncmpi_get_att_int(ncid, varid, "session", &v));
  return v;
}

/* ---- records in sections under reopens: every record stays intact ---- */
#define W 64 /* ints per record */
#define RSESSIONS 12

static int g(int var, int rec, int i) { return 100000 * var + 100 * rec + i; }

static void put_rec(int ncid, const char *name, int var, int rec) {
  int varid, vals[W];
  for (int i = 0; i < W; i++) vals[i] = g(var, rec, i);
  MPI_Offset start[2] = {rec, 0}, count[2] = {rec % nprocs == rank ? 1 : 0, W};
  CHECK_OK(ncmpi_inq_varid(ncid, name, &varid));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
}

/* Every record of a (all) and b (from `b_from` on) holds g; b's older
 * records the fill value. */
static void records_intact(int ncid, int nrec, int b_from) {
  static int got[RSESSIONS * 2 + 8][W];
  const char *names[2] = {"a", "b"};
  for (int var = 0; var < 2; var++) {
    int varid, bad = 0;
    CHECK_OK(ncmpi_inq_varid(ncid, names[var], &varid));
    MPI_Offset start[2] = {0, 0}, count[2] = {nrec, W};
    CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, start, count, &got[0][0]));
    for (int rec = 0; rec < nrec; rec++)
      for (int i = 0; i < W; i++)
        bad += got[rec][i] != (var == 1 && rec < b_from ? NC_FILL_INT : g(var, rec, i));
    CHECK(bad == 0);
  }
}

static void records_across_reopens(MPI_Info info) {
  const char *path = mpi_test_path("swmr_space_reopen_records.nc");
  int w, d[2], v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  CHECK_OK(ncmpi_def_dim(w, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(w, "w", W, &d[1]));
  CHECK_OK(ncmpi_def_var(w, "a", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_enddef(w));
  for (int rec = 0; rec < 3; rec++) put_rec(w, "a", 0, rec);
  CHECK_OK(ncmpi_sync(w));
  /* b's 3 old records in a closed section of their own, filled */
  CHECK_OK(ncmpi_redef(w));
  CHECK_OK(ncmpi_def_var(w, "b", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_def_var_fill(w, v, 0, NULL));
  CHECK_OK(ncmpi_enddef(w));
  CHECK_OK(ncmpi_close(w));
  int nrec = 3;
  for (int s = 1; s <= RSESSIONS; s++) {
    /* each session: a redef whose blocks and table may go into rebuilt space, and two records */
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | EXA_SWMR_WRITE, info, &w));
    CHECK_OK(ncmpi_redef(w));
    char note[600];
    memset(note, 'a' + s % 26, sizeof note);
    CHECK_OK(ncmpi_put_att_text(w, NC_GLOBAL, "note", (MPI_Offset)(sizeof note - 50 * (s % 3)), note));
    CHECK_OK(ncmpi_enddef(w));
    for (int k = 0; k < 2; k++, nrec++) {
      put_rec(w, "a", 0, nrec);
      put_rec(w, "b", 1, nrec);
      CHECK_OK(ncmpi_sync(w));
    }
    records_intact(w, nrec, 3);
    CHECK_OK(ncmpi_close(w));
  }
  int r;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &r));
  MPI_Offset len = 0;
  CHECK_OK(ncmpi_inq_dimlen(r, 0, &len));
  CHECK(len == nrec);
  records_intact(r, nrec, 3);
  CHECK_OK(ncmpi_close(r));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("swmr_space_reopen.nc");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", "0.000001");
  int w, r, d, a, b, one = 1, zero = 0;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  CHECK_OK(ncmpi_def_dim(w, "/c/n", N, &d));
  CHECK_OK(ncmpi_def_var(w, "/c/a", NC_INT, 1, &d, &a));
  CHECK_OK(ncmpi_put_att_int(w, a, "session", NC_INT, 1, &zero));
  CHECK_OK(ncmpi_def_var(w, "/d/b", NC_INT, 0, NULL, &b));
  CHECK_OK(ncmpi_enddef(w));
  CHECK_OK(ncmpi_begin_indep_data(w));
  if (rank == 0) CHECK_OK(ncmpi_put_var_int(w, b, &one));
  CHECK_OK(ncmpi_end_indep_data(w));
  put_a(w, 0);
  CHECK_OK(ncmpi_close(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  long long steady = 0;
  int commit = 0, last_redef = 0;
  for (int s = 1; s <= SESSIONS; s++) {
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | EXA_SWMR_WRITE, info, &w));
    put_a(w, ++commit);
    CHECK_OK(ncmpi_sync(w));
    if (s % 10 == 5) { /* a redef: the block of /c/a and the index table anew */
      CHECK_OK(ncmpi_redef(w));
      CHECK_OK(ncmpi_inq_varid(w, "/c/a", &a));
      CHECK_OK(ncmpi_put_att_int(w, a, "session", NC_INT, 1, &s));
      CHECK_OK(ncmpi_enddef(w));
      last_redef = s;
    }
    put_a(w, ++commit);
    CHECK_OK(ncmpi_close(w));
    if (s == STEADY) steady = file_size(path);
    if (s % 10 == 0 || s <= 3) {
      CHECK_OK(exa_refresh(r));
      CHECK(a_is(r, commit));
      CHECK(session_att(r) == last_redef);
    }
  }
  CHECK_OK(ncmpi_close(r));
  MPI_Info_free(&info);
  const long long size = file_size(path);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &r));
  CHECK(a_is(r, commit));
  CHECK(session_att(r) == last_redef);
  int got = 0;
  CHECK_OK(ncmpi_inq_varid(r, "/d/b", &b));
  CHECK_OK(ncmpi_get_var_int_all(r, b, &got));
  CHECK(got == 1);
  CHECK_OK(ncmpi_close(r));
  if (rank == 0)
    printf("swmr space across reopens: %d sessions of 2 commits of a 4 KiB compact variable: %lld bytes "
           "(%lld after %d)\n", SESSIONS, size, steady, STEADY);
  /* the file stops growing; without the rebuild each session appends >= 4 KiB */
  CHECK(size > 0 && size <= steady);
  CHECK(size < 16 * N * 4); /* measured: 49,152 bytes at np 1, 2, 4 */
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", "0.000001");
  records_across_reopens(info);
  MPI_Info_free(&info);
  return mpi_test_finish();
}
