/*
 * Record sections (issue 19; docs/format.md, "Record sections"): a redef of a
 * partitioned file that adds record variables keeps the records already
 * written where they are instead of copying them.
 * 1. The same writes into a file whose redefs split the records (hint
 *    exa_redef_records=split) and into one whose redefs copy them
 *    (=copy): records before and after three redefs (two adding record
 *    variables with fill values, one adding only an attribute), old records
 *    of the new variables written after their redef, a whole rewrite whose
 *    records every rank strides across the sections. Both files read back
 *    the expected values by record, in one vara over every section, by
 *    strided vars, iget + wait_all and varn, before and after a reopen.
 *    The split redef writes less than half the old records' bytes, the copy
 *    one at least them (ncmpi_inq_put_size, summed over the ranks).
 * 2. A split file reopened by a writer without SWMR (copy by default) keeps
 *    its sections: one more record variable, the values still right.
 * 3. vard of a record variable in sections reads its record 0 (more in
 *    test_vard_sections.c).
 * 4. With 2 or more ranks, readers on their own communicator (as another
 *    job) follow an SWMR writer whose redefs add record variables: every
 *    value they see is f, or the fill value in a new variable's old records,
 *    read with vara and with get_vard.
 * 5. Space reuse after redefs: an SWMR writer with a refresh bound (1 µs:
 *    every commit takes longer, so what is reused does not depend on timing)
 *    changing an 8 KiB attribute in REDEFS redefs of a file with records
 *    writes the new blocks and index table where older generations' were:
 *    the file stops growing; without a bound every redef appends them. A
 *    reader refreshing between redefs sees each one's attribute, the
 *    records stay intact.
 * exacdf only. No timing assertions; the readers' loop is bounded.
 */
#include <exacdf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_test.h"

static int rank, nprocs;

#define W 256   /* elements of a's records: the records a redef would copy */
#define N 4     /* elements of the later variables' records */
#define NV 3    /* a, b, c */
#define NREC 12 /* records at the end of part 1 */
#define NREC1 32 /* records before the first redef (part 1 only) */
#define MAXREC 48

static int f(int var, int rec, int i) { return 100000 * var + 100 * rec + i + 1; }

static const char *names[NV] = {"a", "b", "c"};
static int width(int var) { return var == 0 ? W : N; }

/* What each variable's record holds: 1 written (f), 0 the fill value. */
static int written[NV][MAXREC];
static int nvars_now, nrec_now;

static void expect_written(int var, int rec) {
  written[var][rec] = 1;
  if (rec + 1 > nrec_now) nrec_now = rec + 1;
}

static int want(int var, int rec, int i) { return written[var][rec] ? f(var, rec, i) : NC_FILL_INT; }

/* Rank 0 writes records [from, to) of var (the others take part with nothing). */
static void put_records(int ncid, int var, int from, int to) {
  int varid, *vals = malloc(sizeof(int) * (size_t)(W * (to - from) + 1));
  CHECK_OK(ncmpi_inq_varid(ncid, names[var], &varid));
  for (int r = from; r < to; r++)
    for (int i = 0; i < width(var); i++) vals[(r - from) * width(var) + i] = f(var, r, i);
  MPI_Offset start[2] = {from, 0}, count[2] = {rank == 0 ? to - from : 0, width(var)};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
  for (int r = from; r < to; r++) expect_written(var, r);
  free(vals);
}

/* Every rank writes records rank, rank + P, ... of [0, nrec) of var: one put
 * whose records lie in every section. */
static void rewrite_strided(int ncid, int var, int nrec) {
  int varid, *vals = malloc(sizeof(int) * (size_t)(W * nrec + 1));
  CHECK_OK(ncmpi_inq_varid(ncid, names[var], &varid));
  MPI_Offset n = 0;
  for (int r = rank; r < nrec; r += nprocs, n++)
    for (int i = 0; i < width(var); i++) vals[n * width(var) + i] = written[var][r] ? f(var, r, i) : NC_FILL_INT;
  MPI_Offset start[2] = {rank < nrec ? rank : 0, 0}, count[2] = {n, width(var)}, stride[2] = {nprocs, 1};
  CHECK_OK(ncmpi_put_vars_int_all(ncid, varid, start, count, stride, vals));
  free(vals);
}

/* Old records of a new variable, written after its redef by one iput of
 * records `first`, first + 2, ... (count of them) and wait_all. */
static void iput_old_records(int ncid, int var, int first, int count) {
  int varid, req, st, vals[MAXREC * N];
  CHECK_OK(ncmpi_inq_varid(ncid, names[var], &varid));
  for (int k = 0; k < count; k++)
    for (int i = 0; i < N; i++) vals[k * N + i] = f(var, first + 2 * k, i);
  MPI_Offset start[2] = {first, 0}, cnt[2] = {rank == 0 ? count : 0, N}, stride[2] = {2, 1};
  CHECK_OK(ncmpi_iput_vars_int(ncid, varid, start, cnt, stride, vals, &req));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &st));
  CHECK_OK(st);
  for (int k = 0; k < count; k++) expect_written(var, first + 2 * k);
}

static void def_record_var(int ncid, int var) {
  int d[2], v;
  CHECK_OK(ncmpi_inq_dimid(ncid, "time", &d[0]));
  CHECK_OK(ncmpi_inq_dimid(ncid, var == 0 ? "w" : "n", &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, names[var], NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_def_var_fill(ncid, v, 0, NULL));
  CHECK_OK(ncmpi_put_att_int(ncid, v, "index", NC_INT, 1, &var));
  nvars_now = var + 1;
}

/* Every way of reading: by record, all records in one vara, strided vars,
 * one iget per record and wait_all, and a varn of three pieces. */
static void check_values(int ncid) {
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK(nrec == nrec_now);
  int *got = malloc(sizeof(int) * (size_t)(W * MAXREC));
  for (int var = 0; var < nvars_now; var++) {
    int varid, att = -1;
    const int w = width(var);
    CHECK_OK(ncmpi_inq_varid(ncid, names[var], &varid));
    CHECK_OK(ncmpi_get_att_int(ncid, varid, "index", &att));
    CHECK(att == var);
    int bad = 0;
    for (int r = 0; r < nrec; r++) {
      MPI_Offset start[2] = {r, 0}, count[2] = {1, w};
      CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, start, count, got));
      for (int i = 0; i < w; i++) bad += got[i] != want(var, r, i);
    }
    CHECK(bad == 0);
    /* one call over every section */
    MPI_Offset start[2] = {0, 0}, count[2] = {nrec, w};
    memset(got, 0, sizeof(int) * (size_t)(W * MAXREC));
    CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, start, count, got));
    bad = 0;
    for (int r = 0; r < nrec; r++)
      for (int i = 0; i < w; i++) bad += got[r * w + i] != want(var, r, i);
    CHECK(bad == 0);
    /* strided: records 1, 4, 7, ..., every other element */
    MPI_Offset sstart[2] = {1, 1}, scount[2] = {(nrec - 1 + 2) / 3, w / 2}, sstride[2] = {3, 2};
    CHECK_OK(ncmpi_get_vars_int_all(ncid, varid, sstart, scount, sstride, got));
    bad = 0;
    for (int k = 0; k < scount[0]; k++)
      for (int j = 0; j < scount[1]; j++) bad += got[k * scount[1] + j] != want(var, 1 + 3 * k, 1 + 2 * j);
    CHECK(bad == 0);
    /* nonblocking: one iget per record, one wait_all */
    int reqs[MAXREC], sts[MAXREC];
    for (int r = 0; r < nrec; r++) {
      MPI_Offset st1[2] = {r, 0}, ct1[2] = {1, w};
      CHECK_OK(ncmpi_iget_vara_int(ncid, varid, st1, ct1, got + r * w, &reqs[r]));
    }
    CHECK_OK(ncmpi_wait_all(ncid, (int)nrec, reqs, sts));
    bad = 0;
    for (int r = 0; r < nrec; r++) {
      CHECK_OK(sts[r]);
      for (int i = 0; i < w; i++) bad += got[r * w + i] != want(var, r, i);
    }
    CHECK(bad == 0);
    /* varn: the first record, the last two, and records 2..4 */
    MPI_Offset s0[2] = {0, 0}, c0[2] = {1, w}, s1[2] = {nrec - 2, 0}, c1[2] = {2, w}, s2[2] = {2, 0}, c2[2] = {3, w};
    MPI_Offset *starts[3] = {s0, s1, s2}, *counts[3] = {c0, c1, c2};
    CHECK_OK(ncmpi_get_varn_int_all(ncid, varid, 3, starts, counts, got));
    const int recs[6] = {0, (int)nrec - 2, (int)nrec - 1, 2, 3, 4};
    bad = 0;
    for (int k = 0; k < 6; k++)
      for (int i = 0; i < w; i++) bad += got[k * w + i] != want(var, recs[k], i);
    CHECK(bad == 0);
  }
  free(got);
}

static long long put_bytes(int ncid) {
  MPI_Offset mine = 0;
  long long all = 0, m = 0;
  CHECK_OK(ncmpi_inq_put_size(ncid, &mine));
  m = (long long)mine;
  MPI_Allreduce(&m, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Part 1: the scenario in one mode; returns what the first redef wrote. */
static long long layout(const char *path, const char *mode) {
  memset(written, 0, sizeof written);
  nrec_now = 0;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_redef_records", mode);
  int ncid, d[2], g = 1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "w", W, &d[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &d[1]));
  def_record_var(ncid, 0);
  CHECK_OK(ncmpi_enddef(ncid));
  put_records(ncid, 0, 0, NREC1);
  CHECK_OK(ncmpi_sync(ncid));
  /* redef 1: b, and a fixed-size variable; b's NREC1 old records are fill values */
  const long long before = put_bytes(ncid);
  CHECK_OK(ncmpi_redef(ncid));
  def_record_var(ncid, 1);
  int fx;
  CHECK_OK(ncmpi_def_var(ncid, "fixed", NC_INT, 1, &d[1], &fx));
  CHECK_OK(ncmpi_enddef(ncid));
  const long long redef_bytes = put_bytes(ncid) - before;
  check_values(ncid);
  iput_old_records(ncid, 1, 1, 3); /* b's records 1, 3, 5: in the old records */
  put_records(ncid, 0, NREC1, NREC1 + 3);
  put_records(ncid, 1, NREC1, NREC1 + 3);
  int fvals[N] = {7, 8, 9, 10};
  MPI_Offset fs[1] = {0}, fc[1] = {rank == 0 ? N : 0};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, fx, fs, fc, fvals));
  CHECK_OK(ncmpi_sync(ncid));
  check_values(ncid);
  /* redef 2: c */
  CHECK_OK(ncmpi_redef(ncid));
  def_record_var(ncid, 2);
  CHECK_OK(ncmpi_enddef(ncid));
  check_values(ncid);
  iput_old_records(ncid, 2, 0, 1);
  iput_old_records(ncid, 2, NREC1 + 1, 1);
  for (int var = 0; var < NV; var++) put_records(ncid, var, NREC1 + 3, NREC1 + 5);
  /* redef 3: an attribute only; the current section closes all the same */
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "stage", NC_INT, 1, &g));
  CHECK_OK(ncmpi_enddef(ncid));
  for (int var = 0; var < NV; var++) put_records(ncid, var, NREC1 + 5, NREC1 + 6);
  for (int var = 0; var < NV; var++) rewrite_strided(ncid, var, nrec_now);
  check_values(ncid);
  int got[N];
  CHECK_OK(ncmpi_get_var_int_all(ncid, fx, got));
  CHECK(got[0] == 7 && got[3] == 10);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_values(ncid);
  CHECK_OK(ncmpi_close(ncid));
  return redef_bytes;
}

/* Part 2 and 3: reopened without SWMR or hints, the sections stay. */
static void reopen_and_add(const char *path) {
  int ncid, d[2], v;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  /* vard of a record variable in sections: record 0, in the oldest section */
  int a;
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &a));
  int buf[W], bad = 0;
  MPI_Datatype t;
  MPI_Type_contiguous(W, MPI_INT, &t);
  MPI_Type_commit(&t);
  CHECK_OK(ncmpi_get_vard_all(ncid, a, t, buf, 1, t));
  for (int i = 0; i < W; i++) bad += buf[i] != want(0, 0, i);
  CHECK(bad == 0);
  MPI_Type_free(&t);
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_inq_dimid(ncid, "time", &d[0]));
  CHECK_OK(ncmpi_inq_dimid(ncid, "n", &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, "e", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  check_values(ncid);
  MPI_Offset start[2] = {3, 0}, count[2] = {rank == 0 ? 1 : 0, N};
  int vals[N] = {41, 42, 43, 44}, got[N] = {0};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, v, start, count, vals));
  count[0] = 1;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, start, count, got));
  CHECK(got[0] == 41 && got[3] == 44);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_values(ncid);
  CHECK_OK(ncmpi_inq_varid(ncid, "e", &v));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, start, count, got));
  CHECK(got[1] == 42);
  CHECK_OK(ncmpi_close(ncid));
}

/* ---- part 4: readers follow an SWMR writer across redefs ---- */

#define G 16     /* commits */
#define EVERY 4  /* a redef adding v<k> every EVERY commits */

static void writer_commit(int ncid, MPI_Comm comm, int g) {
  int r, p, nv = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  CHECK_OK(ncmpi_inq_nvars(ncid, &nv));
  for (int var = 0; var < nv; var++) {
    int vals[N];
    MPI_Offset n = 0;
    for (int i = r; i < N; i += p) vals[n++] = f(var, g - 1, i);
    MPI_Offset start[2] = {g - 1, r < N ? r : 0}, count[2] = {1, n}, stride[2] = {1, p};
    CHECK_OK(ncmpi_put_vars_int_all(ncid, var, start, count, stride, vals));
  }
  if (g % EVERY == 0) {
    int d[2], v;
    char name[16];
    snprintf(name, sizeof name, "v%d", g / EVERY);
    CHECK_OK(ncmpi_redef(ncid));
    CHECK_OK(ncmpi_inq_dimid(ncid, "time", &d[0]));
    CHECK_OK(ncmpi_inq_dimid(ncid, "n", &d[1]));
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 2, d, &v));
    CHECK_OK(ncmpi_def_var_fill(ncid, v, 0, NULL));
    CHECK_OK(ncmpi_enddef(ncid));
    /* record 0 of the new variable, after the enddef that committed it */
    int vals[N];
    for (int i = 0; i < N; i++) vals[i] = f(v, 0, i);
    MPI_Offset start[2] = {0, 0}, count[2] = {r == 0 ? 1 : 0, N};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, start, count, vals));
  }
  CHECK_OK(ncmpi_sync(ncid));
}

/* Values of records [0, nrec) of variable var that are not what a reader may see. */
static int reader_bad(int var, MPI_Offset nrec, const int *got) {
  int bad = 0;
  for (MPI_Offset rec = 0; rec < nrec; rec++)
    for (int i = 0; i < N; i++) {
      const int v = got[rec * N + i], fv = f(var, (int)rec, i);
      const int old = var > 0 && rec < EVERY * var;
      bad += old ? !(v == NC_FILL_INT || (rec == 0 && v == fv)) : v != fv;
    }
  return bad;
}

/* Variable k (added when EVERY * k records were there): its records below
 * that are the fill value, record 0 f or the fill value (written after the
 * enddef), the others f. Returns numrecs. */
static MPI_Offset reader_check(int ncid) {
  MPI_Offset nrec = 0;
  int nv = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK_OK(ncmpi_inq_nvars(ncid, &nv));
  CHECK(nv == 1 + (int)(nrec / EVERY) || nv == (int)(nrec / EVERY)); /* the redef commits after the sync */
  for (int var = 0; var < nv; var++) {
    int got[MAXREC * N], bad = 0;
    MPI_Offset start[2] = {0, 0}, count[2] = {nrec, N};
    if (nrec == 0) continue;
    CHECK_OK(ncmpi_get_vara_int_all(ncid, var, start, count, got));
    bad += reader_bad(var, nrec, got);
    /* the same records through get_vard: one row per record, recsize apart
     * from the variable's offset, wherever the sections keep them */
    MPI_Offset recsize = 0;
    CHECK_OK(ncmpi_inq_recsize(ncid, &recsize));
    MPI_Datatype row, rows;
    MPI_Type_contiguous(N, MPI_INT, &row);
    MPI_Type_create_hvector((int)nrec, 1, (MPI_Aint)recsize, row, &rows);
    MPI_Type_commit(&rows);
    MPI_Type_free(&row);
    memset(got, 0, sizeof got);
    CHECK_OK(ncmpi_get_vard_all(ncid, var, rows, got, nrec * N, MPI_INT));
    bad += reader_bad(var, nrec, got);
    MPI_Type_free(&rows);
    CHECK(bad == 0);
  }
  return nrec;
}

static void readers(void) {
  if (nprocs < 2) return;
  const char *path = mpi_test_path("swmr_sections_follow.nc");
  const int writer = rank < nprocs / 2;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, writer, rank, &comm);
  if (writer) {
    int w, d[2], v;
    CHECK_OK(ncmpi_create(comm, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL, &w));
    CHECK_OK(ncmpi_def_dim(w, "time", NC_UNLIMITED, &d[0]));
    CHECK_OK(ncmpi_def_dim(w, "n", N, &d[1]));
    CHECK_OK(ncmpi_def_var(w, "v0", NC_INT, 2, d, &v));
    CHECK_OK(ncmpi_enddef(w));
    writer_commit(w, comm, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* the file exists */
    for (int g = 2; g <= G; g++) writer_commit(w, comm, g);
    CHECK_OK(ncmpi_close(w));
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    int r;
    CHECK_OK(ncmpi_open(comm, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
    long long gen = 0, prev = 0;
    MPI_Offset nrec = 0;
    int views = 0;
    for (int it = 0; it < 20000 && nrec < G; it++) {
      CHECK_OK(exa_refresh(r));
      CHECK_OK(exa_inq_generation(r, &gen, NULL));
      CHECK(gen >= prev);
      if (gen != prev) views++;
      nrec = reader_check(r);
      if (gen == prev) usleep(2000);
      prev = gen;
    }
    CHECK(nrec == G);
    CHECK(views >= 1);
    CHECK_OK(ncmpi_close(r));
  }
  MPI_Comm_free(&comm);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- part 5: space released by redefs is reused ---- */

#define BIG 2048  /* ints of the global attribute "big": 8 KiB */
#define REDEFS 40
#define SETTLED 10

static long long size_of(const char *path) {
  long long size = 0;
  if (rank == 0) {
    struct stat st;
    size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
  }
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return size;
}

static int big_is(int ncid, int k) {
  static int got[BIG];
  int same = 1;
  CHECK_OK(ncmpi_get_att_int(ncid, NC_GLOBAL, "big", got));
  for (int i = 0; i < BIG; i++) same &= got[i] == f(9, k, i);
  return same;
}

static long long redefs(const char *path, const char *bound, long long *settled) {
  static int big[BIG];
  MPI_Info info;
  int w, r, d[2], v;
  MPI_Info_create(&info);
  if (bound) MPI_Info_set(info, "exa_swmr_refresh_bound", bound);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(w, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(w, "n", N, &d[1]));
  CHECK_OK(ncmpi_def_var(w, "v0", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_enddef(w));
  for (int rec = 0; rec < 3; rec++) {
    int vals[N];
    for (int i = 0; i < N; i++) vals[i] = f(0, rec, i);
    MPI_Offset start[2] = {rec, 0}, count[2] = {rank == 0 ? 1 : 0, N};
    CHECK_OK(ncmpi_put_vara_int_all(w, v, start, count, vals));
  }
  CHECK_OK(ncmpi_sync(w));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &r));
  for (int k = 1; k <= REDEFS; k++) {
    for (int i = 0; i < BIG; i++) big[i] = f(9, k, i);
    CHECK_OK(ncmpi_redef(w));
    CHECK_OK(ncmpi_put_att_int(w, NC_GLOBAL, "big", NC_INT, BIG, big));
    CHECK_OK(ncmpi_enddef(w));
    if (k == SETTLED) *settled = size_of(path);
    if (k % 8 == 0 || k <= 3) {
      CHECK_OK(exa_refresh(r));
      CHECK(big_is(r, k));
    }
  }
  CHECK_OK(ncmpi_close(r));
  CHECK_OK(ncmpi_close(w));
  const long long size = size_of(path);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &r));
  CHECK(big_is(r, REDEFS));
  int got[3 * N], bad = 0;
  MPI_Offset start[2] = {0, 0}, count[2] = {3, N};
  CHECK_OK(ncmpi_get_vara_int_all(r, 0, start, count, got));
  for (int rec = 0; rec < 3; rec++)
    for (int i = 0; i < N; i++) bad += got[rec * N + i] != f(0, rec, i);
  CHECK(bad == 0);
  CHECK_OK(ncmpi_close(r));
  return size;
}

static void redef_space(void) {
  long long settled_reuse = 0, settled_grow = 0;
  const long long reuse = redefs(mpi_test_path("swmr_sections_reuse.nc"), "0.000001", &settled_reuse);
  const long long grow = redefs(mpi_test_path("swmr_sections_grow.nc"), NULL, &settled_grow);
  if (rank == 0)
    printf("%d redefs of an 8 KiB attribute: %lld bytes with a refresh bound (%lld after %d), %lld without\n", REDEFS,
           reuse, settled_reuse, SETTLED, grow);
  CHECK(reuse > 0 && reuse <= settled_reuse);
  CHECK(grow >= settled_grow + (REDEFS - SETTLED) * BIG * 4);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  char split_path[1200];
  snprintf(split_path, sizeof split_path, "%s", mpi_test_path("swmr_sections_split.nc"));
  const long long copy_bytes = layout(mpi_test_path("swmr_sections_copy.nc"), "copy");
  const long long split_bytes = layout(split_path, "split");
  const long long old_records = (long long)NREC1 * W * 4;
  if (rank == 0) printf("first redef wrote %lld bytes (split), %lld (copy); old records %lld\n", split_bytes, copy_bytes, old_records);
  CHECK(copy_bytes >= old_records);
  CHECK(split_bytes < old_records / 2);
  reopen_and_add(split_path);
  readers();
  redef_space();
  return mpi_test_finish();
}
