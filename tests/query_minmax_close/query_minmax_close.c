/* Min/max kept beyond the close (issue 20: "per chunk of each variable, min and
 * max always"): puts into variables nobody queries, closed, and a new process
 * that reopens the file skips chunks by the min/max the close kept, without
 * re-scanning: a partitioned file keeps them inside (index blocks of the
 * close's commit; by default, or with EXACDF_QUERY_MINMAX=put/always), a
 * classic one in sidecars (EXACDF_QUERY_MINMAX=put/always set explicitly, or
 * a sidecar already there). Also a writer killed by SIGKILL at every I/O event
 * of its close: the file's records are the old ones or the new ones.
 *   query_minmax_close write FILE FMT         FMT part|cdf5: a float and an int
 *                                             variable, each rank puts whole chunks
 *   query_minmax_close rewrite FILE FMT [K]   reopens for writing and puts chunks 2
 *                                             and 5 anew (values + 100); killed at its
 *                                             Kth I/O event from the puts on (none:
 *                                             prints the events made)
 *   query_minmax_close check FILE FMT B [R]   a new process: each variable has 8
 *                                             chunks, B bounded (R: B or R, and the
 *                                             bounds then say which), and queries
 *                                             equal a brute-force scan, testing only
 *                                             the values of chunks the bounds do not
 *                                             decide
 * run_query_minmax_close.sh runs the sequence (np 1, 2, 4). Environment as
 * the script sets it: EXACDF_QUERY_MINMAX_CHUNK=512. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exacdf.h>

#define CHUNK 512
#define NCHUNKS 8
#define N (CHUNK * NCHUNKS)

static int failures = 0, rank = 0, nprocs = 1;
#define EXPECT(cond)                                                                          \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", rank, __FILE__, __LINE__, #cond); \
      ++failures;                                                                             \
    }                                                                                         \
  } while (0)
#define OK(call)                                                                                        \
  do {                                                                                                  \
    int err_ = (call);                                                                                  \
    if (err_ != NC_NOERR) {                                                                             \
      fprintf(stderr, "[rank %d] %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                                     \
    }                                                                                                   \
  } while (0)

static float fv[N];
static int iv[N];
static double got[N];

/* Chunk c of "e" holds [c, c + 0.511] (+100 where rewritten), of "k" [10c, 10c + 6]. */
static void fill(int rewritten) {
  for (int i = 0; i < N; ++i) {
    const int c = i / CHUNK;
    const int again = rewritten && (c == 2 || c == 5);
    fv[i] = (float)c + (float)(i % CHUNK) / 1000.0f + (again ? 100.0f : 0.0f);
    iv[i] = 10 * c + (i % CHUNK) % 7 + (again ? 100 : 0);
  }
}

static int open_mode(const char *fmt) { return strcmp(fmt, "part") == 0 ? EXA_FORMAT_PARTITIONED : NC_64BIT_DATA; }

/* This rank's whole chunks [c0, c1) of both variables, one put each. */
static void put_chunks(int ncid, int c0, int c1) {
  if (c1 <= c0) {
    MPI_Offset s = 0, n = 0;
    OK(ncmpi_put_vara_float_all(ncid, 0, &s, &n, fv));
    OK(ncmpi_put_vara_int_all(ncid, 1, &s, &n, iv));
    return;
  }
  MPI_Offset start = (MPI_Offset)c0 * CHUNK, count = (MPI_Offset)(c1 - c0) * CHUNK;
  OK(ncmpi_put_vara_float_all(ncid, 0, &start, &count, fv + start));
  OK(ncmpi_put_vara_int_all(ncid, 1, &start, &count, iv + start));
}

static int write_file(const char *path, const char *fmt) {
  int ncid, dim, v;
  OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | open_mode(fmt), MPI_INFO_NULL, &ncid));
  OK(ncmpi_def_dim(ncid, "n", N, &dim));
  OK(ncmpi_def_var(ncid, "e", NC_FLOAT, 1, &dim, &v));
  OK(ncmpi_def_var(ncid, "k", NC_INT, 1, &dim, &v));
  OK(ncmpi_enddef(ncid));
  fill(0);
  put_chunks(ncid, NCHUNKS * rank / nprocs, NCHUNKS * (rank + 1) / nprocs);
  OK(ncmpi_close(ncid)); /* no query, no index call */
  return failures ? 1 : 0;
}

static int rewrite(const char *path, long long kill_at) {
  int ncid;
  OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  fill(1);
  long long events0 = exa_debug_io_events();
  if (kill_at > 0) exa_debug_kill_at(kill_at);
  /* chunk 2 by the first rank, chunk 5 by the last (whole chunks) */
  if (rank == 0) put_chunks(ncid, 2, 3);
  else put_chunks(ncid, 0, 0);
  if (rank == nprocs - 1) put_chunks(ncid, 5, 6);
  else put_chunks(ncid, 0, 0);
  OK(ncmpi_close(ncid));
  if (rank == 0) printf("events %lld\n", exa_debug_io_events() - events0);
  if (kill_at > 0) {
    fprintf(stderr, "not killed at event %lld\n", kill_at);
    return 3;
  }
  return failures ? 1 : 0;
}

static long long sum_ll(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* `var > c` over the default split against the scan of the values read back;
 * returns the values tested one by one, summed over the ranks. */
static long long check_gt(int ncid, int varid, double c) {
  OK(ncmpi_get_var_double_all(ncid, varid, got));
  MPI_Offset lo = (MPI_Offset)N * rank / nprocs, hi = (MPI_Offset)N * (rank + 1) / nprocs, want = 0;
  for (MPI_Offset i = lo; i < hi; ++i) want += got[i] > c;
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1); /* the record whenever trusted */
  long long before = exa_debug_query_values_tested();
  int qid;
  MPI_Offset nhits = -1;
  OK(exa_query_create(ncid, varid, EXA_QUERY_GT, NC_DOUBLE, &c, &qid));
  OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  long long tested = sum_ll(exa_debug_query_values_tested() - before);
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  if (nhits != want) fprintf(stderr, "[rank %d] %lld hits, want %lld\n", rank, (long long)nhits, (long long)want);
  EXPECT(nhits == want);
  MPI_Offset *coords = malloc((size_t)(nhits > 0 ? nhits : 1) * sizeof *coords), k = 0;
  OK(exa_query_hits(ncid, qid, nhits, coords));
  for (MPI_Offset i = lo; i < hi && k < nhits; ++i)
    if (got[i] > c) EXPECT(coords[k++] == i);
  free(coords);
  OK(exa_query_free(qid));
  return tested;
}

static int check(const char *path, const char *fmt, long long bounded, long long or_bounded) {
  int ncid;
  (void)fmt;
  OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int rewritten = 0;
  long long bounded_seen = -1;
  for (int varid = 0; varid < 2; ++varid) {
    MPI_Offset n = -1, b = -1;
    OK(exa_index_inq_minmax(ncid, varid, &n, &b));
    if (b != bounded && b != or_bounded)
      fprintf(stderr, "[rank %d] %s var %d: %lld chunks, %lld bounded, want %lld (or %lld)\n", rank, path, varid,
              (long long)n, (long long)b, bounded, or_bounded);
    EXPECT(b == bounded || b == or_bounded);
    if (varid == 0) bounded_seen = (long long)b;
    EXPECT(n == (b > 0 ? NCHUNKS : 0));
    /* The values as they are: chunk 5's first value tells whether the rewrite is in. */
    OK(ncmpi_get_var_double_all(ncid, varid, got));
    rewritten = got[5 * CHUNK] >= 100.0;
    /* e > 5.3 (k > 53): chunks 0-4 below it, 5 across it, 6-7 above it
     * (rewritten: 2 and 5 above it). */
    const double c = varid == 0 ? 5.3 : 53.0;
    long long tested = check_gt(ncid, varid, c);
    /* With every chunk bounded only the chunk across the constant is tested
     * (none when rewritten); without bounds, every value. */
    const long long want = b == NCHUNKS ? (rewritten ? 0 : CHUNK) : b == 0 ? N : -1;
    if (want >= 0 && tested != want)
      fprintf(stderr, "[rank %d] %s var %d: %lld values tested, want %lld\n", rank, path, varid, tested, want);
    EXPECT(want < 0 || tested == want);
    if (b > 0 && b < NCHUNKS) EXPECT(tested < N);
  }
  OK(ncmpi_close(ncid));
  if (rank == 0) printf("%s: %s values, %lld chunks bounded\n", path, rewritten ? "new" : "old", bounded_seen);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int rc = 2;
  if (argc >= 4 && strcmp(argv[1], "write") == 0) rc = write_file(argv[2], argv[3]);
  else if (argc >= 4 && strcmp(argv[1], "rewrite") == 0) rc = rewrite(argv[2], argc > 4 ? atoll(argv[4]) : 0);
  else if (argc >= 5 && strcmp(argv[1], "check") == 0)
    rc = check(argv[2], argv[3], atoll(argv[4]), argc > 5 ? atoll(argv[5]) : atoll(argv[4]));
  else if (rank == 0) fprintf(stderr, "usage: query_minmax_close write|rewrite|check FILE FMT [...]\n");
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
