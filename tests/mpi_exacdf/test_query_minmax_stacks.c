/* Per-chunk min/max of puts through the async and cache connectors and of
 * mapped (varm) puts (issue 20). Each takes its values' range in the one
 * pass it makes over them -- async in its copy of the put, cache in the log
 * record's CRC pass (or the conversion it checks NC_ERANGE with), varm in
 * native's conversion of the gathered values -- and a put that a stack
 * deferred counts as written whole once the stack has written it (the query
 * engine settles them first). So the same puts give the same min/max as
 * through native alone: the same chunks bounded (exa_index_inq_minmax) and
 * the same values tested by queries whose constants lie below, inside and
 * at the top of each chunk's values, every answer equal to a scan of the
 * values read back. Three variables per file: floats put as floats (async
 * defers these), floats put from doubles (a conversion), floats put by
 * varm from a transposed buffer. CDF-5 (sidecars) and partitioned (index
 * blocks). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

#include "mpi_test.h"

#define COLS 8
#define CHUNK 512 /* EXACDF_QUERY_MINMAX_CHUNK: 64 rows */
#define CROWS (CHUNK / COLS)
#define NCHUNKS 8
#define ROWS (CROWS * NCHUNKS)
#define NVARS 3
#define NT (3 * NCHUNKS)

static float values[ROWS * COLS];

/* Chunk k holds [100 k, 100 k + 51.1]. */
static double value_at(MPI_Offset r, MPI_Offset c) {
  return 100.0 * (double)(r / CROWS) + (double)((r % CROWS) * COLS + c) / 10.0;
}

static long long sum_ll(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* Each rank its share of the rows of every chunk, one collective put per chunk. */
static void put_var(int ncid, int varid, int how) {
  static float f[CHUNK], ft[CHUNK];
  static double d[CHUNK];
  for (int k = 0; k < NCHUNKS; ++k) {
    const MPI_Offset lo = CROWS * mpi_test_rank / mpi_test_nprocs, hi = CROWS * (mpi_test_rank + 1) / mpi_test_nprocs;
    MPI_Offset start[2] = {(MPI_Offset)k * CROWS + lo, 0}, count[2] = {hi - lo, COLS};
    for (MPI_Offset r = 0; r < hi - lo; ++r)
      for (MPI_Offset c = 0; c < COLS; ++c) {
        const double v = value_at(start[0] + r, c);
        f[r * COLS + c] = (float)v;
        d[r * COLS + c] = v;
        ft[c * (hi - lo) + r] = (float)v; /* column-major: read back by imap */
      }
    if (how == 0) CHECK_OK(ncmpi_put_vara_float_all(ncid, varid, start, count, f));
    else if (how == 1) CHECK_OK(ncmpi_put_vara_double_all(ncid, varid, start, count, d));
    else {
      MPI_Offset imap[2] = {1, hi - lo};
      CHECK_OK(ncmpi_put_varm_float_all(ncid, varid, start, count, NULL, imap, ft));
    }
  }
}

/* `var > t` over the default split equals the scan of the values read back;
 * returns the values tested one by one, summed over the ranks. */
static long long check_gt(int ncid, int varid, double t, const char *what) {
  MPI_Offset start[2] = {0, 0}, count[2] = {ROWS, COLS};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, varid, start, count, values));
  const MPI_Offset n = ROWS * COLS;
  MPI_Offset lo = n * mpi_test_rank / mpi_test_nprocs, hi = n * (mpi_test_rank + 1) / mpi_test_nprocs, want = 0;
  for (MPI_Offset i = lo; i < hi; ++i) want += values[i] > t;
  long long before = exa_debug_query_values_tested();
  int qid;
  MPI_Offset nhits = -1;
  CHECK_OK(exa_query_create(ncid, varid, EXA_QUERY_GT, NC_DOUBLE, &t, &qid));
  CHECK_OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  long long tested = sum_ll(exa_debug_query_values_tested() - before);
  if (nhits != want)
    fprintf(stderr, "[rank %d] %s > %g: %lld hits, want %lld\n", mpi_test_rank, what, t, (long long)nhits, (long long)want);
  CHECK(nhits == want);
  CHECK_OK(exa_query_free(qid));
  return tested;
}

/* What a file's min/max says of each variable: its bounded chunks, then
 * the values tested for each constant. */
struct Seen {
  MPI_Offset nchunks[NVARS], nbounded[NVARS];
  long long tested[NVARS][NT];
};

static void run(const char *stack, int cmode, const char *name, struct Seen *out) {
  const char *path = mpi_test_path(name);
  if (mpi_test_rank == 0)
    for (int v = 0; v < NVARS; ++v) {
      char sidecar[4096];
      snprintf(sidecar, sizeof sidecar, "%s.exaidx.%d", path, v);
      unlink(sidecar);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Info info = MPI_INFO_NULL;
  if (stack != NULL) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_connectors", stack);
  }
  int ncid, dims[2], var[NVARS];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, info, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "rows", ROWS, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "cols", COLS, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "same", NC_FLOAT, 2, dims, &var[0]));
  CHECK_OK(ncmpi_def_var(ncid, "conv", NC_FLOAT, 2, dims, &var[1]));
  CHECK_OK(ncmpi_def_var(ncid, "mapped", NC_FLOAT, 2, dims, &var[2]));
  CHECK_OK(ncmpi_enddef(ncid));
  for (int v = 0; v < NVARS; ++v) put_var(ncid, var[v], v);
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1); /* the record whenever trusted */
  for (int v = 0; v < NVARS; ++v) {
    for (int k = 0; k < NCHUNKS; ++k) {
      const double at[3] = {100.0 * k - 0.5, 100.0 * k + 25.0, 100.0 * k + 51.1};
      for (int j = 0; j < 3; ++j) out->tested[v][3 * k + j] = check_gt(ncid, var[v], at[j], name);
    }
    CHECK_OK(exa_index_inq_minmax(ncid, var[v], &out->nchunks[v], &out->nbounded[v]));
  }
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  CHECK_OK(ncmpi_close(ncid));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

static void expect_same(const struct Seen *native, const struct Seen *s, const char *what) {
  static const char *vars[NVARS] = {"same", "conv", "mapped"};
  for (int v = 0; v < NVARS; ++v) {
    if (s->nchunks[v] != native->nchunks[v] || s->nbounded[v] != native->nbounded[v])
      fprintf(stderr, "[rank %d] %s %s: %lld chunks, %lld bounded; native %lld, %lld\n", mpi_test_rank, what, vars[v],
              (long long)s->nchunks[v], (long long)s->nbounded[v], (long long)native->nchunks[v],
              (long long)native->nbounded[v]);
    CHECK(s->nchunks[v] == native->nchunks[v] && s->nbounded[v] == native->nbounded[v]);
    for (int j = 0; j < NT; ++j) {
      if (s->tested[v][j] != native->tested[v][j])
        fprintf(stderr, "[rank %d] %s %s query %d: %lld values tested, native %lld\n", mpi_test_rank, what, vars[v], j,
                s->tested[v][j], native->tested[v][j]);
      CHECK(s->tested[v][j] == native->tested[v][j]);
    }
  }
}

static void run_format(int cmode, const char *tag) {
  char dir[1024], spec[1400], name[128];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("query_minmax_stacks_cache"));
  static struct Seen native, other;
  memset(&native, 0, sizeof native);
  snprintf(name, sizeof name, "query_minmax_stacks_native_%s.nc", tag);
  run(NULL, cmode, name, &native);
  /* Native alone: every chunk of every variable bounded, and a query tests
   * exactly the chunk its constant lies inside, none below every chunk's
   * values (at a chunk's top, its bound rounded outward may keep it). */
  for (int v = 0; v < NVARS; ++v) {
    CHECK(native.nchunks[v] == NCHUNKS && native.nbounded[v] == NCHUNKS);
    for (int k = 0; k < NCHUNKS; ++k) {
      CHECK(native.tested[v][3 * k] == 0);
      CHECK(native.tested[v][3 * k + 1] == CHUNK);
      CHECK(native.tested[v][3 * k + 2] <= CHUNK);
    }
  }
  const char *stacks[3] = {"async", NULL, NULL};
  snprintf(spec, sizeof spec, "cache{dir=%s;size=1M}", dir);
  stacks[1] = spec;
  static char both[1500];
  snprintf(both, sizeof both, "async,cache{dir=%s;size=1M}", dir);
  stacks[2] = both;
  for (int s = 0; s < 3; ++s) {
    memset(&other, 0, sizeof other);
    snprintf(name, sizeof name, "query_minmax_stacks_%d_%s.nc", s, tag);
    run(stacks[s], cmode, name, &other);
    expect_same(&native, &other, stacks[s]);
  }
}

int main(int argc, char **argv) {
  setenv("EXACDF_QUERY_MINMAX", "put", 1); /* every put keeps min/max */
  mpi_test_init(&argc, &argv);
  setenv("EXACDF_QUERY_MINMAX_CHUNK", "512", 1);
  MPI_Barrier(MPI_COMM_WORLD);
  run_format(NC_64BIT_DATA, "cdf5");
  run_format(EXA_FORMAT_PARTITIONED, "part");
  return mpi_test_finish();
}
