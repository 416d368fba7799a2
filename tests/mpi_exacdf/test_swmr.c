/*
 * Single writer, multiple readers (include/exacdf_swmr.h, issue 19).
 *
 * 1. Interleaved (every rank is both): a writer appends records and, every
 *    few commits, redefines (a new record variable and a global attribute);
 *    a reader handle on the same file stays on its generation, reading the
 *    same values, until exa_refresh, which moves it to the newest one.
 * 2. Concurrent (2 or more ranks): the lower half of the ranks writes, the
 *    upper half reads on its own communicator (as another job would),
 *    refreshing while the writer commits: every value seen is
 *    f(variable, record) (or, in the variable the last redef added, not
 *    written yet: its earlier records are written after the enddef that
 *    committed it), the metadata in view agrees with the records,
 *    generations only increase.
 * 3. Classic files: an SWMR writer counts records at sync and flush, each
 *    numrecs ordered (no unordered commit); a reader refreshes to it; redef
 *    is refused; modes checked.
 * 4. A writer whose commit with a redef (new variable + attribute) fails at
 *    each of its writes in turn reopens to a generation it committed.
 * 5. The refresh bound: a reader past it gets NC_ECANTREAD until it refreshes.
 * exacdf only. No timing assertions: the reader's loop is bounded by a count.
 */
#include <exacdf.h>
#include <unistd.h>

#include "mpi_test.h"

static int rank, nprocs;

#define X 8
#define STAGE 5 /* a redef every STAGE commits */

static int f(int var, int rec, int i) { return 100000 * var + 100 * rec + i; }

/* Writes record `rec` of variable `varid` (its f values), the ranks of comm
 * splitting the elements. */
static int put_record(int ncid, MPI_Comm comm, int varid, int var, int rec) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int vals[X];
  MPI_Offset n = 0;
  for (int i = r; i < X; i += p) vals[n++] = f(var, rec, i);
  MPI_Offset start[2] = {rec, r < X ? r : 0}, count[2] = {1, n}, stride[2] = {1, p};
  return ncmpi_put_vars_int_all(ncid, varid, start, count, stride, vals);
}

static void create_writer(const char *path, MPI_Comm comm, int cmode, int *ncid) {
  int d[2], v;
  CHECK_OK(ncmpi_create(comm, path, NC_CLOBBER | EXA_SWMR_WRITE | cmode, MPI_INFO_NULL, ncid));
  CHECK_OK(ncmpi_def_dim(*ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(*ncid, "x", X, &d[1]));
  CHECK_OK(ncmpi_def_var(*ncid, "v0", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_enddef(*ncid));
}

/* Commit g (1-based) of the partitioned writer: record g - 1 of every
 * variable; every STAGE commits a redef adds variable v<g/STAGE> and sets
 * the global attribute "stage"; then ncmpi_sync. */
static void writer_commit(int ncid, MPI_Comm comm, int g) {
  int nvars = 0;
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  for (int var = 0; var < nvars; var++) CHECK_OK(put_record(ncid, comm, var, var, g - 1));
  if (g % STAGE == 0) {
    int d[2], v, stage = g / STAGE;
    char name[16];
    snprintf(name, sizeof name, "v%d", stage);
    CHECK_OK(ncmpi_redef(ncid));
    CHECK_OK(ncmpi_inq_dimid(ncid, "time", &d[0]));
    CHECK_OK(ncmpi_inq_dimid(ncid, "x", &d[1]));
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 2, d, &v));
    CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "stage", NC_INT, 1, &stage));
    CHECK_OK(ncmpi_enddef(ncid));
    /* the new variable's earlier records, written now (f holds for every record) */
    for (int rec = 0; rec < g; rec++) CHECK_OK(put_record(ncid, comm, v, stage, rec));
  }
  CHECK_OK(ncmpi_sync(ncid));
}

/* What a reader sees must be one whole generation: the stage attribute, the
 * variables it implies and, in every variable, records [0, numrecs) with
 * their f values (a variable added at stage s holds every record < s*STAGE
 * when its stage is in view). Returns numrecs. */
static MPI_Offset check_view(int ncid, MPI_Offset *seen_sum) {
  MPI_Offset nrec = 0;
  int nvars = 0, stage = 0, err;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  err = ncmpi_get_att_int(ncid, NC_GLOBAL, "stage", &stage);
  CHECK(err == NC_NOERR || err == NC_ENOTATT);
  if (err == NC_ENOTATT) stage = 0;
  CHECK(nvars == 1 + stage);
  CHECK(nrec >= stage * STAGE);
  MPI_Offset sum = 0;
  for (int var = 0; var < nvars; var++) {
    char name[16];
    int varid;
    snprintf(name, sizeof name, "v%d", var);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &varid));
    for (MPI_Offset rec = 0; rec < nrec; rec++) {
      int got[X];
      MPI_Offset start[2] = {rec, 0}, count[2] = {1, X};
      CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, start, count, got));
      for (int i = 0; i < X; i++) {
        /* The newest variable's earlier records are written after the
         * enddef that committed it: not yet written (0) or f, nothing else. */
        CHECK(got[i] == f(var, (int)rec, i) || (var == stage && var > 0 && got[i] == 0));
        if (getenv("SWMR_DEBUG") && got[i] != f(var, (int)rec, i)) printf("var %d rec %lld i %d got %d nrec %lld stage %d\n", var, (long long)rec, i, got[i], (long long)nrec, stage);
        sum += got[i];
      }
    }
  }
  if (seen_sum) *seen_sum = sum;
  return nrec;
}

static void interleaved(void) {
  const char *path = mpi_test_path("swmr_interleaved.nc");
  int w, r;
  const int commits = 3 * STAGE + 2;
  create_writer(path, MPI_COMM_WORLD, EXA_FORMAT_PARTITIONED, &w);
  writer_commit(w, MPI_COMM_WORLD, 1);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  long long gen = 0, prev = 0, beat = 0;
  CHECK_OK(exa_inq_generation(r, &prev, NULL));
  CHECK_OK(exa_inq_heartbeat(r, &beat));
  CHECK(beat > 0);
  CHECK(check_view(r, NULL) == 1);
  for (int g = 2; g <= commits; g++) {
    MPI_Offset sum_before = 0, sum_after = 0;
    MPI_Offset before = check_view(r, &sum_before);
    writer_commit(w, MPI_COMM_WORLD, g);
    /* pinned: the same generation, the same values */
    CHECK_OK(exa_inq_generation(r, &gen, NULL));
    CHECK(gen == prev);
    CHECK(check_view(r, &sum_after) == before);
    CHECK(sum_after == sum_before);
    /* refreshed: the newest generation (ncmpi_sync refreshes too) */
    CHECK_OK(g % 2 ? exa_refresh(r) : ncmpi_sync(r));
    CHECK_OK(exa_inq_generation(r, &gen, NULL));
    CHECK(gen > prev);
    prev = gen;
    CHECK(check_view(r, NULL) == g);
  }
  /* nothing newer: refresh keeps the view */
  CHECK_OK(exa_refresh(r));
  CHECK_OK(exa_inq_generation(r, &gen, NULL));
  CHECK(gen == prev);
  /* a sync of an SWMR writer with nothing to commit still commits (heartbeat) */
  CHECK_OK(ncmpi_sync(w));
  CHECK_OK(exa_refresh(r));
  CHECK_OK(exa_inq_generation(r, &gen, NULL));
  CHECK(gen == prev + 1);
  CHECK_ERR(exa_refresh(w), NC_EPERM); /* not a reader */
  CHECK_OK(ncmpi_close(w));
  CHECK_OK(ncmpi_close(r));
}

/* Writer ranks and reader ranks run at once; readers on their own communicator. */
static void concurrent(void) {
  if (nprocs < 2) return;
  const char *path = mpi_test_path("swmr_concurrent.nc");
  const int writer = rank < nprocs / 2;
  const int commits = 4 * STAGE;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, writer, rank, &comm);
  if (writer) {
    int w;
    create_writer(path, comm, EXA_FORMAT_PARTITIONED, &w);
    writer_commit(w, comm, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* the file exists: readers may open */
    for (int g = 2; g <= commits; g++) writer_commit(w, comm, g);
    CHECK_OK(ncmpi_close(w));
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    int r, refreshes = 0;
    CHECK_OK(ncmpi_open(comm, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
    long long gen = 0, prev = 0;
    MPI_Offset nrec = 0, prev_nrec = 0;
    /* bounded: a writer that died leaves the readers failing, not hanging */
    for (int it = 0; it < 20000 && nrec < commits; it++) {
      CHECK_OK(exa_refresh(r));
      refreshes++;
      CHECK_OK(exa_inq_generation(r, &gen, NULL));
      CHECK(gen >= prev);
      nrec = check_view(r, NULL);
      CHECK(nrec >= prev_nrec);
      if (gen == prev) usleep(2000);
      prev = gen;
      prev_nrec = nrec;
    }
    CHECK(nrec == commits);
    CHECK(refreshes >= 1);
    CHECK_OK(ncmpi_close(r));
  }
  MPI_Comm_free(&comm);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void classic(int cmode, const char *name) {
  const char *path = mpi_test_path(name);
  int w, r, v;
  create_writer(path, MPI_COMM_WORLD, cmode, &w);
  CHECK_OK(ncmpi_inq_varid(w, "v0", &v));
  CHECK_OK(put_record(w, MPI_COMM_WORLD, v, 0, 0));
  CHECK_OK(ncmpi_sync(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  CHECK(check_view(r, NULL) == 1);
  const long long unordered = exa_debug_unordered_commits();
  for (int rec = 1; rec < 6; rec++) {
    CHECK_OK(put_record(w, MPI_COMM_WORLD, v, 0, rec));
    CHECK_OK(exa_refresh(r));
    CHECK(check_view(r, NULL) == rec); /* not committed yet */
    CHECK_OK(rec % 2 ? ncmpi_flush(w) : ncmpi_sync(w));
    CHECK(check_view(r, NULL) == rec); /* pinned */
    CHECK_OK(exa_refresh(r));
    CHECK(check_view(r, NULL) == rec + 1);
  }
  CHECK(exa_debug_unordered_commits() == unordered);
  CHECK_ERR(ncmpi_redef(w), NC_ENOTSUPPORT);
  long long beat = -1;
  CHECK_OK(exa_inq_heartbeat(r, &beat));
  CHECK(beat == 0);
  CHECK_OK(ncmpi_close(w));
  CHECK_OK(ncmpi_close(r));
}

/* The refresh bound: a reader pinned within it reads its generation while the
 * writer commits more; one whose view is older gets a clear error (no data)
 * until it refreshes. */
static void refresh_bound(void) {
  const char *path = mpi_test_path("swmr_bound.nc");
  int w, r, v, got[X];
  create_writer(path, MPI_COMM_WORLD, EXA_FORMAT_PARTITIONED, &w);
  CHECK_OK(ncmpi_inq_varid(w, "v0", &v));
  CHECK_OK(put_record(w, MPI_COMM_WORLD, v, 0, 0));
  CHECK_OK(ncmpi_sync(w));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", "1");
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, info, &r));
  MPI_Info_free(&info);
  for (int rec = 1; rec < 20; rec++) {
    CHECK_OK(put_record(w, MPI_COMM_WORLD, v, 0, rec));
    CHECK_OK(ncmpi_sync(w));
  }
  MPI_Offset start[2] = {0, 0}, count[2] = {1, X};
  sleep(2); /* past the bound of 1 s, whatever the machine's speed */
  got[0] = -1;
  CHECK_ERR(ncmpi_get_vara_int_all(r, v, start, count, got), NC_ECANTREAD);
  CHECK(got[0] == -1);
  CHECK_OK(exa_refresh(r));
  CHECK(check_view(r, NULL) == 20);
  CHECK_OK(ncmpi_close(w));
  CHECK_OK(ncmpi_close(r));
}

static int any_failed(int err) {
  int mine = err != NC_NOERR, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

/* Commit STAGE (records, a redef adding v1 and "stage", v1's earlier records,
 * sync) with write n of `victim` failing: the file reopens to a generation the
 * writer committed -- the one before (STAGE - 1 records, no v1) or one of
 * the redef's (v1 and "stage" there, every value f or, in v1, not written). */
static void crash_redef(int victim) {
  const char *path = mpi_test_path("swmr_crash.nc");
  int steps = 0;
  for (int n = 1; n <= 64 && !steps; n++) {
    int w, err = NC_NOERR;
    create_writer(path, MPI_COMM_WORLD, EXA_FORMAT_PARTITIONED, &w);
    for (int g = 1; g < STAGE; g++) writer_commit(w, MPI_COMM_WORLD, g);
    exa_debug_fail_write(rank == victim ? n : 0);
    err = put_record(w, MPI_COMM_WORLD, 0, 0, STAGE - 1);
    int d[2], v = -1, stage = 1;
    if (!any_failed(err)) err = ncmpi_redef(w);
    if (!any_failed(err)) {
      CHECK_OK(ncmpi_inq_dimid(w, "time", &d[0]));
      CHECK_OK(ncmpi_inq_dimid(w, "x", &d[1]));
      CHECK_OK(ncmpi_def_var(w, "v1", NC_INT, 2, d, &v));
      CHECK_OK(ncmpi_put_att_int(w, NC_GLOBAL, "stage", NC_INT, 1, &stage));
      err = ncmpi_enddef(w);
    }
    for (int rec = 0; rec < STAGE && !any_failed(err); rec++) err = put_record(w, MPI_COMM_WORLD, v, 1, rec);
    if (!any_failed(err)) err = ncmpi_sync(w);
    exa_debug_fail_write(0);
    if (!any_failed(err)) {
      steps = n;
      CHECK_OK(ncmpi_close(w));
    } else {
      CHECK(err == NC_NOERR || err == NC_EWRITE);
      ncmpi_abort(w);
    }
    int r;
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &r));
    MPI_Offset nrec = check_view(r, NULL);
    int nvars = 0;
    CHECK_OK(ncmpi_inq_nvars(r, &nvars));
    CHECK((nrec == STAGE - 1 && nvars == 1) || (nrec == STAGE && nvars == 2) || (nrec == STAGE && nvars == 1));
    if (steps) CHECK(nrec == STAGE && nvars == 2);
    CHECK_OK(ncmpi_close(r));
  }
  CHECK(steps > 2);
}

static void modes(void) {
  const char *path = mpi_test_path("swmr_interleaved.nc");
  int ncid;
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | EXA_SWMR_READ, MPI_INFO_NULL, &ncid), NC_EINVAL_OMODE);
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_WRITE, MPI_INFO_NULL, &ncid), NC_EINVAL_OMODE);
  CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("swmr_bad.nc"), EXA_SWMR_READ, MPI_INFO_NULL, &ncid),
            NC_EINVAL_CMODE);
  /* the hint: a reader */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr", "read");
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  CHECK_OK(exa_refresh(ncid));
  CHECK_OK(ncmpi_close(ncid));
  MPI_Info_free(&info);
  /* a plain handle is no reader */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_ERR(exa_refresh(ncid), NC_EPERM);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  interleaved();
  concurrent();
  classic(0, "swmr_cdf1.nc");
  classic(NC_64BIT_DATA, "swmr_cdf5.nc");
  refresh_bound();
  crash_redef(0);
  if (nprocs > 1) crash_redef(nprocs - 1);
  modes();
  return mpi_test_finish();
}
