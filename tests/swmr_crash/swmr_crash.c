/*
 * SWMR writer killed by SIGKILL (issue 19): run_swmr_crash.sh runs the
 * writer of a scenario once to the end (the reference: after each step it
 * logs "step generation io_events"), then once per kill point k = 1, 2, ...
 * with EXACDF_DEBUG_KILL_AT=k (the process kills itself before its kth
 * write, sync or size change), each on a file of its own, until a run
 * finishes. Then `check` opens every file and requires:
 *  - the generation in the file is one the reference logged, at least the
 *    one of the last step whose commit returned before the kill (a commit
 *    that returned is durable) and at most the one of the step in progress;
 *  - the file's content equals the state after one step of that generation:
 *    dimensions, variables, attributes, and every value f(var, record, i).
 * Scenarios:
 *  records  -- records appended and committed by sync; a redef adding a
 *              record variable with an attribute and a global attribute.
 *  records_full -- then a redef changing and deleting attributes and
 *              adding a fixed-size variable, written in place (bench/).
 *  compact  -- no record variables: compact variables written and
 *              committed, a redef adding one more with an attribute.
 *  sections -- records in sections (docs/format.md): 3 records, a redef
 *              adding a record variable with fill values (its old records
 *              filled, not copied), one of its old records written, a
 *              second such redef; every variable read in one call across
 *              the sections, old records exactly the fill value.
 *  reopen   -- compact variables under a refresh bound of 1 µs: two
 *              commits and a close, then the writer opens the file again
 *              (its reusable space rebuilt from the file) and commits into
 *              the space of the first generations, adds a variable by a
 *              redef, commits and closes.
 * Usage: swmr_crash write SCENARIO FILE [LOG]
 *        swmr_crash check SCENARIO LOG K:FILE ...
 *        (K = 0: not killed, the whole run; K = -1: killed at an unknown point)
 */
#include <exacdf.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X 4      /* elements per record (records) and per variable (compact) */
#define MAXSTEP 16

static int rank;

static int f(int var, int rec, int i) { return 100000 * var + 100 * rec + i + 1; }

static void die(const char *what, int err) {
  fprintf(stderr, "swmr_crash: %s: %s\n", what, ncmpi_strerror(err));
  MPI_Abort(MPI_COMM_WORLD, 2);
}
#define OK(call)                      \
  do {                                \
    int e_ = (call);                  \
    if (e_ != NC_NOERR) die(#call, e_); \
  } while (0)

/* Puts record `rec` of varid (values f(var, rec, .)), this rank's share. */
static void put_record(int ncid, int varid, int var, int rec) {
  int nprocs, vals[X];
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Offset n = 0;
  for (int i = rank; i < X; i += nprocs) vals[n++] = f(var, rec, i);
  MPI_Offset start[2] = {rec, rank < X ? rank : 0}, count[2] = {1, n}, stride[2] = {1, nprocs};
  OK(ncmpi_put_vars_int_all(ncid, varid, start, count, stride, vals));
}

/* Puts the whole fixed-size variable varid with f(var, step, .). */
static void put_fixed(int ncid, int varid, int var, int step) {
  int vals[X];
  for (int i = 0; i < X; i++) vals[i] = f(var, step, i);
  MPI_Offset start[1] = {0}, count[1] = {rank == 0 ? X : 0};
  OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
}

static FILE *log_out;
static void log_step(int ncid, int step) {
  long long gen = 0;
  int damaged = 0;
  if (step < 0) return;
  if (ncid >= 0) OK(exa_inq_generation(ncid, &gen, &damaged));
  if (log_out) fprintf(log_out, "%d %lld %lld\n", step, gen, exa_debug_io_events());
}

/* Closes (a commit if anything is pending) and logs the generation the
 * file then has, whose state is the one after `step`. */
static void close_and_log(int ncid, const char *path, int step) {
  OK(ncmpi_close(ncid));
  if (!log_out) return;
  const long long events = exa_debug_io_events();
  long long gen = 0;
  int damaged = 0;
  OK(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  OK(exa_inq_generation(ncid, &gen, &damaged));
  OK(ncmpi_close(ncid));
  fprintf(log_out, "%d %lld %lld\n", step, gen, events);
}

/* ---- the records scenario: steps 0..5 (full: 0..8) ---- */
static void write_records(const char *path, int full) {
  int ncid, d[2], a, b, c, dy, stage;
  OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL,
                  &ncid));
  OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  OK(ncmpi_def_dim(ncid, "x", X, &d[1]));
  OK(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &a));
  OK(ncmpi_put_att_text(ncid, a, "units", 1, "m"));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 0);
  put_record(ncid, a, 0, 0);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 1);
  put_record(ncid, a, 0, 1);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 2);
  OK(ncmpi_redef(ncid));
  log_step(ncid, 3);
  OK(ncmpi_def_var(ncid, "b", NC_INT, 2, d, &b));
  stage = 7;
  OK(ncmpi_put_att_int(ncid, b, "origin", NC_INT, 1, &stage));
  stage = 1;
  OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "stage", NC_INT, 1, &stage));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 4);
  put_record(ncid, a, 0, 2);
  put_record(ncid, b, 1, 2);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 5);
  if (!full) {
    close_and_log(ncid, path, 5);
    return;
  }
  OK(ncmpi_redef(ncid));
  log_step(ncid, 6);
  stage = 2;
  OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "stage", NC_INT, 1, &stage));
  OK(ncmpi_del_att(ncid, a, "units"));
  OK(ncmpi_def_dim(ncid, "y", X, &dy));
  OK(ncmpi_def_var(ncid, "c", NC_INT, 1, &dy, &c));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 7);
  put_fixed(ncid, c, 2, 8);
  put_record(ncid, a, 0, 3);
  put_record(ncid, b, 1, 3);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 8);
  close_and_log(ncid, path, 8);
}

/* ---- the compact scenario: steps 0..6 ---- */
static void write_compact(const char *path) {
  int ncid, d, p, q, r, v;
  OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL,
                  &ncid));
  OK(ncmpi_def_dim(ncid, "n", X, &d));
  OK(ncmpi_def_var(ncid, "p", NC_INT, 1, &d, &p));
  OK(ncmpi_def_var(ncid, "/g/q", NC_INT, 1, &d, &q));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 0);
  put_fixed(ncid, p, 0, 1);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 1);
  put_fixed(ncid, q, 1, 2);
  put_fixed(ncid, p, 0, 2);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 2);
  OK(ncmpi_redef(ncid));
  log_step(ncid, 3);
  OK(ncmpi_def_var(ncid, "/g/r", NC_INT, 1, &d, &r));
  v = 3;
  OK(ncmpi_put_att_int(ncid, r, "kind", NC_INT, 1, &v));
  OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "stage", NC_INT, 1, &v));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 4);
  put_fixed(ncid, r, 2, 5);
  put_fixed(ncid, p, 0, 5);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 5);
  close_and_log(ncid, path, 5);
}

/* ---- the reopen scenario: steps 0..9 ---- */
static void write_reopen(const char *path) {
  int ncid, d, p, q, r, v;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_swmr_refresh_bound", "0.000001");
  OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &ncid));
  OK(ncmpi_def_dim(ncid, "n", X, &d));
  OK(ncmpi_def_var(ncid, "p", NC_INT, 1, &d, &p));
  OK(ncmpi_def_var(ncid, "/g/q", NC_INT, 1, &d, &q));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 0);
  put_fixed(ncid, p, 0, 1);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 1);
  put_fixed(ncid, p, 0, 2);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 2);
  close_and_log(ncid, path, 3);
  OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | EXA_SWMR_WRITE, info, &ncid));
  log_step(ncid, 4);
  OK(ncmpi_inq_varid(ncid, "p", &p));
  OK(ncmpi_inq_varid(ncid, "/g/q", &q));
  put_fixed(ncid, q, 1, 5);
  put_fixed(ncid, p, 0, 5);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 5);
  OK(ncmpi_redef(ncid));
  log_step(ncid, 6);
  OK(ncmpi_def_var(ncid, "/g/r", NC_INT, 1, &d, &r));
  v = 7;
  OK(ncmpi_put_att_int(ncid, r, "kind", NC_INT, 1, &v));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 7);
  put_fixed(ncid, r, 2, 8);
  put_fixed(ncid, p, 0, 8);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 8);
  MPI_Info_free(&info);
  close_and_log(ncid, path, 9);
}

/* ---- the sections scenario: steps 0..7 ---- */
static void def_filled(int ncid, const char *name, int tag, int *varid) {
  int d[2];
  OK(ncmpi_inq_dimid(ncid, "time", &d[0]));
  OK(ncmpi_inq_dimid(ncid, "x", &d[1]));
  OK(ncmpi_def_var(ncid, name, NC_INT, 2, d, varid));
  OK(ncmpi_def_var_fill(ncid, *varid, 0, NULL));
  OK(ncmpi_put_att_int(ncid, *varid, "tag", NC_INT, 1, &tag));
}

static void write_sections(const char *path) {
  int ncid, d[2], a, b, c;
  OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, MPI_INFO_NULL,
                  &ncid));
  OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  OK(ncmpi_def_dim(ncid, "x", X, &d[1]));
  OK(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &a));
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 0);
  for (int rec = 0; rec < 3; rec++) put_record(ncid, a, 0, rec);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 1);
  OK(ncmpi_redef(ncid));
  log_step(ncid, 2);
  def_filled(ncid, "b", 1, &b);
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 3);
  put_record(ncid, a, 0, 3);
  put_record(ncid, b, 1, 3);
  put_record(ncid, b, 1, 0); /* an old record of the new variable */
  OK(ncmpi_sync(ncid));
  log_step(ncid, 4);
  OK(ncmpi_redef(ncid));
  log_step(ncid, 5);
  def_filled(ncid, "c", 2, &c);
  OK(ncmpi_enddef(ncid));
  log_step(ncid, 6);
  put_record(ncid, a, 0, 4);
  put_record(ncid, b, 1, 4);
  put_record(ncid, c, 2, 4);
  put_record(ncid, c, 2, 1);
  OK(ncmpi_sync(ncid));
  log_step(ncid, 7);
  close_and_log(ncid, path, 7);
}

/* ---- the states ---- */

/* Whether the file matches the state after `step`; why not in `why`. */
static char why[256];
#define WANT(cond, ...)                             \
  do {                                              \
    if (!(cond)) {                                  \
      snprintf(why, sizeof why, __VA_ARGS__);       \
      return 0;                                     \
    }                                               \
  } while (0)

static int att_int(int ncid, int varid, const char *name, int *value) {
  MPI_Offset len = 0;
  nc_type type;
  if (ncmpi_inq_att(ncid, varid, name, &type, &len) != NC_NOERR) return 0;
  if (type != NC_INT || len != 1) return -1;
  return ncmpi_get_att_int(ncid, varid, name, value) == NC_NOERR ? 1 : -1;
}

/* Values of a record variable: records [from, nrec) are f(var, rec, .). */
static int records_are(int ncid, const char *name, int var, int from, int nrec) {
  int varid;
  WANT(ncmpi_inq_varid(ncid, name, &varid) == NC_NOERR, "no variable %s", name);
  for (int rec = from; rec < nrec; rec++) {
    int got[X];
    MPI_Offset start[2] = {rec, 0}, count[2] = {1, X};
    WANT(ncmpi_get_vara_int_all(ncid, varid, start, count, got) == NC_NOERR, "read %s[%d]", name, rec);
    for (int i = 0; i < X; i++)
      WANT(got[i] == f(var, rec, i), "%s[%d][%d] = %d, want %d", name, rec, i, got[i], f(var, rec, i));
  }
  return 1;
}

/* A fixed-size variable holds f(var, at, .) (at < 0: the fill value;
 * either_fill: the fill value is accepted too, for data written in place). */
static int fixed_is(int ncid, const char *name, int var, int at, int either_fill) {
  int varid, got[X];
  WANT(ncmpi_inq_varid(ncid, name, &varid) == NC_NOERR, "no variable %s", name);
  WANT(ncmpi_get_var_int_all(ncid, varid, got) == NC_NOERR, "read %s", name);
  for (int i = 0; i < X; i++) {
    /* never written: the fill value (compact) or 0 (a hole: no fill by default) */
    const int unwritten = got[i] == NC_FILL_INT || got[i] == 0;
    const int want = at < 0 ? NC_FILL_INT : f(var, at, i);
    WANT(at < 0 ? unwritten : got[i] == want || (either_fill && unwritten), "%s[%d] = %d, want %d", name, i,
         got[i], want);
  }
  return 1;
}

static int records_state(int ncid, int step) {
  static const int nrec_at[] = {0, 1, 2, 2, 2, 3, 3, 3, 4, 4};
  const int nvars = step >= 7 ? 3 : step >= 4 ? 2 : 1;
  const int stage = step >= 7 ? 2 : step >= 4 ? 1 : 0;
  int n = 0, v = 0;
  MPI_Offset len = 0;
  WANT(ncmpi_inq_nvars(ncid, &n) == NC_NOERR && n == nvars, "nvars %d, want %d", n, nvars);
  WANT(ncmpi_inq_ndims(ncid, &n) == NC_NOERR && n == (step >= 7 ? 3 : 2), "ndims %d", n);
  WANT(ncmpi_inq_dimlen(ncid, 0, &len) == NC_NOERR && len == nrec_at[step], "numrecs %lld, want %d",
       (long long)len, nrec_at[step]);
  WANT(ncmpi_inq_natts(ncid, &n) == NC_NOERR && n == (stage > 0), "global natts %d", n);
  if (stage > 0) WANT(att_int(ncid, NC_GLOBAL, "stage", &v) == 1 && v == stage, "stage %d, want %d", v, stage);
  int a;
  WANT(ncmpi_inq_varid(ncid, "a", &a) == NC_NOERR, "no a");
  WANT(ncmpi_inq_varnatts(ncid, a, &n) == NC_NOERR && n == (step >= 7 ? 0 : 1), "a natts %d", n);
  if (step < 7) {
    char units[4] = {0};
    WANT(ncmpi_get_att_text(ncid, a, "units", units) == NC_NOERR && strcmp(units, "m") == 0, "a:units");
  }
  if (!records_are(ncid, "a", 0, 0, nrec_at[step])) return 0;
  if (nvars >= 2) {
    int b;
    WANT(ncmpi_inq_varid(ncid, "b", &b) == NC_NOERR, "no b");
    WANT(att_int(ncid, b, "origin", &v) == 1 && v == 7, "b:origin");
    if (!records_are(ncid, "b", 1, 2, nrec_at[step])) return 0;  /* b's records 0, 1 never written */
  }
  if (nvars >= 3) return fixed_is(ncid, "c", 2, 8, step < 8); /* c is written in place at step 8 */
  return 1;
}

/* Whether record `rec` of variable `var` (0 a, 1 b, 2 c) holds f after `step` (else the fill value). */
static int sections_written(int var, int rec, int step) {
  if (var == 0) return 1;
  if (var == 1) return (rec == 0 || rec == 3) ? step >= 4 : rec == 4 ? step >= 7 : 0;
  return (rec == 1 || rec == 4) && step >= 7;
}

static int sections_state(int ncid, int step) {
  static const int nrec_at[] = {0, 3, 3, 3, 4, 4, 4, 5};
  const int nvars = step >= 6 ? 3 : step >= 3 ? 2 : 1;
  static const char *names[] = {"a", "b", "c"};
  int n = 0;
  MPI_Offset len = 0;
  WANT(ncmpi_inq_nvars(ncid, &n) == NC_NOERR && n == nvars, "nvars %d, want %d", n, nvars);
  WANT(ncmpi_inq_dimlen(ncid, 0, &len) == NC_NOERR && len == nrec_at[step], "numrecs %lld, want %d",
       (long long)len, nrec_at[step]);
  for (int var = 0; var < nvars; var++) {
    int varid, tag = -1, got[8 * X];
    WANT(ncmpi_inq_varid(ncid, names[var], &varid) == NC_NOERR, "no variable %s", names[var]);
    if (var > 0) WANT(att_int(ncid, varid, "tag", &tag) == 1 && tag == var, "%s:tag", names[var]);
    if (len == 0) continue;
    MPI_Offset start[2] = {0, 0}, count[2] = {len, X}; /* one read across the sections */
    WANT(ncmpi_get_vara_int_all(ncid, varid, start, count, got) == NC_NOERR, "read %s", names[var]);
    for (int rec = 0; rec < len; rec++)
      for (int i = 0; i < X; i++) {
        const int want = sections_written(var, rec, step) ? f(var, rec, i) : NC_FILL_INT;
        /* an old record the next step writes in place (b's 0 in step 4, c's 1 in step 7): a
         * generation counts it already, so a kill may leave either value (as for fixed-size data) */
        const int in_place = (var == 1 && rec == 0 && step == 3) || (var == 2 && rec == 1 && step == 6);
        WANT(got[rec * X + i] == want || (in_place && got[rec * X + i] == f(var, rec, i)), "%s[%d][%d] = %d, want %d",
             names[var], rec, i, got[rec * X + i], want);
      }
  }
  return 1;
}

static int compact_state(int ncid, int step) {
  const int nvars = step >= 4 ? 3 : 2;
  int n = 0, v = 0;
  WANT(ncmpi_inq_nvars(ncid, &n) == NC_NOERR && n == nvars, "nvars %d, want %d", n, nvars);
  WANT(ncmpi_inq_natts(ncid, &n) == NC_NOERR && n == (step >= 4), "global natts %d", n);
  if (step >= 4) WANT(att_int(ncid, NC_GLOBAL, "stage", &v) == 1 && v == 3, "stage %d", v);
  const int p_at = step >= 5 ? 5 : step >= 2 ? 2 : step >= 1 ? 1 : -1;
  if (!fixed_is(ncid, "p", 0, p_at, 0)) return 0;
  if (!fixed_is(ncid, "/g/q", 1, step >= 2 ? 2 : -1, 0)) return 0;
  if (nvars >= 3) {
    int r;
    WANT(ncmpi_inq_varid(ncid, "/g/r", &r) == NC_NOERR, "no /g/r");
    WANT(att_int(ncid, r, "kind", &v) == 1 && v == 3, "/g/r:kind");
    if (!fixed_is(ncid, "/g/r", 2, step >= 5 ? 5 : -1, 0)) return 0;
  }
  return 1;
}

static int reopen_state(int ncid, int step) {
  const int nvars = step >= 7 ? 3 : 2;
  int n = 0, v = 0;
  WANT(ncmpi_inq_nvars(ncid, &n) == NC_NOERR && n == nvars, "nvars %d, want %d", n, nvars);
  const int p_at = step >= 8 ? 8 : step >= 5 ? 5 : step >= 2 ? 2 : step >= 1 ? 1 : -1;
  if (!fixed_is(ncid, "p", 0, p_at, 0)) return 0;
  if (!fixed_is(ncid, "/g/q", 1, step >= 5 ? 5 : -1, 0)) return 0;
  if (nvars >= 3) {
    int r;
    WANT(ncmpi_inq_varid(ncid, "/g/r", &r) == NC_NOERR, "no /g/r");
    WANT(att_int(ncid, r, "kind", &v) == 1 && v == 7, "/g/r:kind");
    if (!fixed_is(ncid, "/g/r", 2, step >= 8 ? 8 : -1, 0)) return 0;
  }
  return 1;
}

struct logged {
  int step;
  long long gen, events;
};

static int check_file(const char *scenario, const struct logged *log, int nlog, long long k, const char *path) {
  /* the steps complete before the kill, and the one in progress */
  int done = -1, doing = nlog - 1; /* k < 0: killed at an unknown point (several ranks) */
  if (k > 0) {
    for (int i = 0; i < nlog; i++)
      if (log[i].events < k) done = i;
    doing = done + 1 < nlog ? done + 1 : nlog - 1;
  } else if (k == 0) {
    done = nlog - 1;
  }
  int ncid, err = ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (err != NC_NOERR) {
    if (done < 0) return 1; /* killed before the first commit returned: may be no file yet */
    fprintf(stderr, "%s (kill %lld): open: %s, but step %d had committed\n", path, k, ncmpi_strerror(err), done);
    return 0;
  }
  long long gen = 0;
  int damaged = 0, ok = 0;
  if (exa_inq_generation(ncid, &gen, &damaged) != NC_NOERR) gen = -1;
  const long long lo = done >= 0 ? log[done].gen : 0, hi = log[doing].gen;
  if (gen < lo || gen > hi) {
    snprintf(why, sizeof why, "generation %lld outside [%lld, %lld]", gen, lo, hi);
  } else {
    for (int i = 0; i < nlog && !ok; i++) {
      if (log[i].gen != gen) continue;
      ok = strncmp(scenario, "records", 7) == 0   ? records_state(ncid, log[i].step)
           : strcmp(scenario, "sections") == 0    ? sections_state(ncid, log[i].step)
           : strcmp(scenario, "reopen") == 0      ? reopen_state(ncid, log[i].step)
                                                  : compact_state(ncid, log[i].step);
    }
    if (!ok && why[0] == 0) snprintf(why, sizeof why, "generation %lld was never logged", gen);
  }
  if (ncmpi_close(ncid) != NC_NOERR) ok = 0;
  if (ok && rank == 0) printf("opened %s\n", path); /* for exacdf verify */
  if (!ok) fprintf(stderr, "%s (kill %lld): generation %lld: %s\n", path, k, gen, why);
  return ok;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc >= 4 && strcmp(argv[1], "write") == 0) {
    if (argc >= 5 && rank == 0) log_out = fopen(argv[4], "w");
    if (strcmp(argv[2], "records") == 0) write_records(argv[3], 0);
    else if (strcmp(argv[2], "records_full") == 0) write_records(argv[3], 1);
    else if (strcmp(argv[2], "compact") == 0) write_compact(argv[3]);
    else if (strcmp(argv[2], "sections") == 0) write_sections(argv[3]);
    else if (strcmp(argv[2], "reopen") == 0) write_reopen(argv[3]);
    else die("unknown scenario", NC_EINVAL);
    if (log_out) fclose(log_out);
    MPI_Finalize();
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "check") == 0) {
    struct logged log[MAXSTEP];
    int nlog = 0;
    FILE *in = fopen(argv[3], "r");
    if (!in) die("no reference log", NC_EINVAL);
    while (nlog < MAXSTEP && fscanf(in, "%d %lld %lld", &log[nlog].step, &log[nlog].gen, &log[nlog].events) == 3)
      nlog++;
    fclose(in);
    if (nlog == 0) die("empty reference log", NC_EINVAL);
    int bad = 0, files = 0;
    for (int a = 4; a < argc; a++) {
      char *colon = strchr(argv[a], ':');
      if (!colon) die("argument is not K:FILE", NC_EINVAL);
      *colon = 0;
      why[0] = 0;
      if (!check_file(argv[2], log, nlog, atoll(argv[a]), colon + 1)) bad++;
      files++;
    }
    if (rank == 0) printf("swmr_crash %s: %d files checked, %d wrong\n", argv[2], files, bad);
    MPI_Finalize();
    return bad ? 1 : 0;
  }
  if (rank == 0) fputs("usage: swmr_crash write SCENARIO FILE [LOG] | check SCENARIO LOG K:FILE ...\n", stderr);
  MPI_Finalize();
  return 2;
}
