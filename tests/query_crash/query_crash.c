/* The index sidecar's header rewrite under kill -9 (issue 20): a writer
 * whose puts mark index chunks stale is killed at every I/O event of the
 * header rewrites that follow (the query's, the close's), and every file
 * must still have a usable index afterwards -- the old header or the new
 * one, never a torn one -- so that an "update" rebuilds only the chunks
 * whose values changed (not the whole index) and queries stay exact.
 *   query_crash setup FILE         a CDF-5 file with an indexed float variable
 *   query_crash write FILE [K]     puts into chunks 2 and 5 around a query;
 *                                  killed at its Kth I/O event from the first
 *                                  query on (none: prints the events made)
 *   query_crash check FILE         the checks above
 * run_query_crash.sh runs the sweep. One rank. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exacdf.h>

#define CHUNK 512
#define NCHUNKS 8
#define N (CHUNK * NCHUNKS)
#define MARK 1e6f

static int failures = 0;
#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                           \
    }                                                                       \
  } while (0)
#define OK(call)                                                                         \
  do {                                                                                   \
    int err_ = (call);                                                                   \
    if (err_ != NC_NOERR) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                      \
    }                                                                                    \
  } while (0)

static float values[N];

static void put_one(int ncid, int varid, MPI_Offset at, float v) {
  MPI_Offset count = 1;
  OK(ncmpi_put_vara_float_all(ncid, varid, &at, &count, &v));
}

static MPI_Offset query_gt(int ncid, int varid, float c) {
  int qid;
  MPI_Offset nhits = -1;
  OK(exa_query_create(ncid, varid, EXA_QUERY_GT, NC_FLOAT, &c, &qid));
  OK(exa_query_eval(ncid, qid, NULL, NULL, &nhits));
  OK(exa_query_free(qid));
  return nhits;
}

static int setup(const char *path) {
  int ncid, dim, e;
  OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  OK(ncmpi_def_dim(ncid, "n", N, &dim));
  OK(ncmpi_def_var(ncid, "e", NC_FLOAT, 1, &dim, &e));
  OK(ncmpi_enddef(ncid));
  for (int i = 0; i < N; ++i) values[i] = (float)(i % 1000);
  OK(ncmpi_put_var_float_all(ncid, e, values));
  OK(exa_index_create(ncid, e, "bins=8;chunk=512"));
  OK(ncmpi_close(ncid));
  return 0;
}

static int write_run(const char *path, long long kill_at) {
  int ncid, e, present = 0, current = 0;
  OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  OK(ncmpi_inq_varid(ncid, "e", &e));
  OK(exa_index_inq(ncid, e, &present, &current, NULL, NULL));
  EXPECT(present == 1 && current == 1);
  put_one(ncid, e, 2 * CHUNK + 7, MARK);
  long long events0 = exa_debug_io_events();
  if (kill_at > 0) exa_debug_kill_at(kill_at);
  EXPECT(query_gt(ncid, e, 2000.0f) == 1); /* the query writes the stale mark into the header */
  put_one(ncid, e, 5 * CHUNK + 9, MARK);
  OK(ncmpi_close(ncid)); /* and the close the last one */
  printf("events %lld\n", exa_debug_io_events() - events0);
  if (kill_at > 0) {
    fprintf(stderr, "not killed at event %lld\n", kill_at);
    return 3;
  }
  return failures ? 1 : 0;
}

static int check(const char *path) {
  int ncid, e, present = 0, current = 0;
  OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  OK(ncmpi_inq_varid(ncid, "e", &e));
  OK(ncmpi_get_var_float_all(ncid, e, values));
  MPI_Offset changed = 0, want = 0;
  for (int c = 0; c < NCHUNKS; ++c) {
    int any = 0;
    for (int i = c * CHUNK; i < (c + 1) * CHUNK; ++i) any |= values[i] != (float)(i % 1000);
    changed += any;
  }
  for (int i = 0; i < N; ++i) want += values[i] > 2000.0f;
  OK(exa_index_inq(ncid, e, &present, &current, NULL, NULL));
  EXPECT(present == 1); /* a torn header would make it absent: a full rebuild */
  EXPECT(query_gt(ncid, e, 2000.0f) == want);
  OK(exa_index_create(ncid, e, "update"));
  MPI_Offset nchunks = -1, nstale = -1, rebuilt = -1, kept = -1;
  OK(exa_index_inq_chunks(ncid, e, &nchunks, &nstale, &rebuilt, &kept));
  if (rebuilt != changed) fprintf(stderr, "%s: update rebuilt %lld chunks, %lld changed\n", path, (long long)rebuilt, (long long)changed);
  EXPECT(nchunks == NCHUNKS && nstale == 0 && rebuilt == changed && kept == NCHUNKS - changed);
  EXPECT(query_gt(ncid, e, 2000.0f) == want);
  OK(ncmpi_close(ncid));
  printf("%s: %s header, %lld chunks changed\n", path, current ? "new" : "old", (long long)changed);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  if (argc >= 3 && strcmp(argv[1], "setup") == 0) rc = setup(argv[2]);
  else if (argc >= 3 && strcmp(argv[1], "write") == 0) rc = write_run(argv[2], argc > 3 ? atoll(argv[3]) : 0);
  else if (argc >= 3 && strcmp(argv[1], "check") == 0) rc = check(argv[2]);
  else fprintf(stderr, "usage: query_crash setup|write|check FILE [K]\n");
  MPI_Finalize();
  return rc;
}
