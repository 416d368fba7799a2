/*
 * query_bench.c -- VPIC-like queries (issue 20): float32 energy plus x, y, z
 * of N particles, `energy > t` at 0.1/1/10% selectivity, answered by a
 * full scan (no index) and by the bitmap index (equal-weight bins, and
 * bins whose edges hold the constants), at the ranks it is started with.
 *
 *   mpiexec -n P query_bench N DIST DIR REPS
 *   DIST: uniform | lognormal | smooth (a smooth field ordered in space)
 *
 * One JSON object per line on stdout (rank 0), read by bench/query_report.py:
 *   {"kind":"build", ...} index build time, MB/s of data indexed, size %
 *   {"kind":"query", "mode":"scan"|"index"|"index_edges", ...} median times
 *   of the count (exa_query_eval), the positions (eval + exa_query_hits)
 *   and the fetch of x, y, z at the hits (3 x exa_query_get).
 * Times are the slowest rank's, medians over REPS; the file is in the page
 * cache (written just before), as in every run of this machine.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exacdf.h>

#define DIE(...)                          \
  do {                                    \
    fprintf(stderr, __VA_ARGS__);         \
    fprintf(stderr, "\n");                \
    MPI_Abort(MPI_COMM_WORLD, 1);         \
  } while (0)
#define NC(call)                                                                         \
  do {                                                                                   \
    int e_ = (call);                                                                     \
    if (e_ != NC_NOERR) DIE("%s:%d: %s: %s", __FILE__, __LINE__, #call, ncmpi_strerror(e_)); \
  } while (0)

static int rank, nprocs;

/* A counter-based random number in [0, 1) for element i, stream s. */
static double urand(uint64_t i, uint64_t s) {
  uint64_t z = i * 0x9E3779B97F4A7C15ULL + s * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

static float energy_of(const char *dist, uint64_t i, uint64_t n) {
  if (strcmp(dist, "uniform") == 0) return (float)(2.5 * urand(i, 1));
  if (strcmp(dist, "lognormal") == 0) {
    double u1 = urand(i, 1), u2 = urand(i, 2);
    double g = sqrt(-2.0 * log(u1 + 1e-300)) * cos(6.283185307179586 * u2);
    return (float)exp(0.5 * g);
  }
  /* smooth: a bump over the particle order (space), little noise */
  double x = (double)i / (double)n;
  return (float)(2.5 * exp(-pow((x - 0.5) / 0.12, 2)) + 0.02 * urand(i, 1));
}

static double now(void) { return MPI_Wtime(); }
/* This process's CPU time (the machine is shared: wall time is noisy). */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double cpu_sum(double t) {
  double s = 0;
  MPI_Allreduce(&t, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}
static double load1(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}
static double slowest(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void write_file(const char *path, const char *dist, MPI_Offset n) {
  int ncid, dim, v[4];
  const char *names[4] = {"energy", "x", "y", "z"};
  NC(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  NC(ncmpi_def_dim(ncid, "particle", n, &dim));
  for (int k = 0; k < 4; ++k) NC(ncmpi_def_var(ncid, names[k], NC_FLOAT, 1, &dim, &v[k]));
  NC(ncmpi_enddef(ncid));
  MPI_Offset lo = n * rank / nprocs, hi = n * (rank + 1) / nprocs, cnt = hi - lo;
  float *buf = malloc(sizeof(float) * (size_t)(cnt + 1));
  for (int k = 0; k < 4; ++k) {
    for (MPI_Offset i = lo; i < hi; ++i)
      buf[i - lo] = k == 0 ? energy_of(dist, (uint64_t)i, (uint64_t)n) : (float)urand((uint64_t)i, 10 + (uint64_t)k);
    NC(ncmpi_put_vara_float_all(ncid, v[k], &lo, &cnt, buf));
  }
  free(buf);
  NC(ncmpi_close(ncid));
}

/* Thresholds for the selectivities from a sample of the energies. */
static void thresholds(const char *dist, MPI_Offset n, const double *sel, int nsel, float *t) {
  enum { M = 200000 };
  float *s = malloc(sizeof(float) * M);
  for (int j = 0; j < M; ++j) s[j] = energy_of(dist, (uint64_t)((double)n * urand((uint64_t)j, 99)), (uint64_t)n);
  double *d = malloc(sizeof(double) * M);
  for (int j = 0; j < M; ++j) d[j] = s[j];
  qsort(d, M, sizeof *d, cmp_double);
  for (int k = 0; k < nsel; ++k) t[k] = (float)d[(int)((1.0 - sel[k]) * M)];
  free(s);
  free(d);
}

static void measure(int ncid, const int *v, float t, int reps, const char *dist, const char *mode,
                    double sel, MPI_Offset n) {
  double *tc = malloc(sizeof(double) * (size_t)reps), *tp = malloc(sizeof(double) * (size_t)reps),
         *tf = malloc(sizeof(double) * (size_t)reps), *cc = malloc(sizeof(double) * (size_t)reps);
  long long total = 0;
  for (int r = 0; r < reps; ++r) {
    int qid;
    MPI_Offset nh = 0;
    NC(exa_query_create(ncid, v[0], EXA_QUERY_GT, NC_FLOAT, &t, &qid));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now(), c0 = cpu_now();
    NC(exa_query_eval(ncid, qid, NULL, NULL, &nh));
    double t1 = now(), c1 = cpu_now();
    MPI_Offset *pos = malloc(sizeof(MPI_Offset) * (size_t)(nh + 1));
    NC(exa_query_hits(ncid, qid, nh, pos));
    double t2 = now();
    float *xyz = malloc(sizeof(float) * (size_t)(nh + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = now();
    for (int k = 1; k < 4; ++k) NC(exa_query_get(ncid, qid, v[k], xyz, NC_FLOAT));
    double t4 = now();
    tc[r] = slowest(t1 - t0);
    tp[r] = slowest(t2 - t0);
    tf[r] = slowest(t4 - t3);
    cc[r] = cpu_sum(c1 - c0);
    long long mine = nh;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(pos);
    free(xyz);
    NC(exa_query_free(qid));
  }
  if (rank == 0)
    printf("{\"kind\":\"query\",\"dist\":\"%s\",\"ranks\":%d,\"n\":%lld,\"mode\":\"%s\",\"target\":%g,"
           "\"t\":%.9g,\"hits\":%lld,\"count_s\":%.6f,\"positions_s\":%.6f,\"fetch_xyz_s\":%.6f,"
           "\"count_cpu_s\":%.6f,\"load1\":%.2f}\n",
           dist, nprocs, (long long)n, mode, sel, (double)t, total, median(tc, reps), median(tp, reps),
           median(tf, reps), median(cc, reps), load1());
  fflush(stdout);
  free(tc);
  free(tp);
  free(tf);
  free(cc);
}

static void build(int ncid, int varid, const char *spec, int reps, const char *dist, const char *label,
                  MPI_Offset n) {
  double *tb = malloc(sizeof(double) * (size_t)reps), cpu = 0;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now(), c0 = cpu_now();
    NC(exa_index_create(ncid, varid, spec));
    tb[r] = slowest(now() - t0);
    cpu = cpu_sum(cpu_now() - c0);
  }
  MPI_Offset bytes = 0;
  int nbins = 0, current = 0;
  NC(exa_index_inq(ncid, varid, NULL, &current, &nbins, &bytes));
  if (!current) DIE("index not current after a build");
  double b = median(tb, reps);
  if (rank == 0)
    printf("{\"kind\":\"build\",\"dist\":\"%s\",\"ranks\":%d,\"n\":%lld,\"index\":\"%s\",\"bins\":%d,"
           "\"build_s\":%.6f,\"build_MBps\":%.1f,\"index_bytes\":%lld,\"index_pct\":%.2f,"
           "\"build_cpu_s\":%.6f,\"load1\":%.2f}\n",
           dist, nprocs, (long long)n, label, nbins, b, 4.0 * (double)n / b / 1e6, (long long)bytes,
           100.0 * (double)bytes / (4.0 * (double)n), cpu, load1());
  fflush(stdout);
  free(tb);
}

/* Rank 0 overwrites 1000 values in each of three chunks (the same values:
 * the chunks go stale all the same); a query then tests those chunks by
 * value; "update" rebuilds the three chunks only. */
static void update_after_puts(int ncid, int varid, const char *dist, MPI_Offset n) {
  float buf[1000];
  const MPI_Offset at[3] = {n / 7, n / 2, n - 2000};
  for (int k = 0; k < 3; ++k) {
    MPI_Offset start = at[k], count = rank == 0 ? 1000 : 0;
    NC(ncmpi_get_vara_float_all(ncid, varid, &start, &count, buf));
    NC(ncmpi_put_vara_float_all(ncid, varid, &start, &count, buf));
  }
  MPI_Offset nchunks = 0, nstale = 0, rebuilt = 0, kept = 0;
  NC(exa_index_inq_chunks(ncid, varid, &nchunks, &nstale, NULL, NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now(), c0 = cpu_now();
  NC(exa_index_create(ncid, varid, "update"));
  double tu = slowest(now() - t0), cu = cpu_sum(cpu_now() - c0);
  NC(exa_index_inq_chunks(ncid, varid, NULL, NULL, &rebuilt, &kept));
  if (rank == 0)
    printf("{\"kind\":\"update\",\"dist\":\"%s\",\"ranks\":%d,\"n\":%lld,\"chunks\":%lld,\"stale\":%lld,"
           "\"rebuilt\":%lld,\"kept\":%lld,\"update_s\":%.6f,\"update_cpu_s\":%.6f,\"load1\":%.2f}\n",
           dist, nprocs, (long long)n, (long long)nchunks, (long long)nstale, (long long)rebuilt, (long long)kept,
           tu, cu, load1());
  fflush(stdout);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 5) DIE("usage: query_bench N DIST DIR REPS");
  const MPI_Offset n = atoll(argv[1]);
  const char *dist = argv[2];
  const int reps = atoi(argv[4]);
  char path[4096];
  snprintf(path, sizeof path, "%s/query_%s_np%d.nc", argv[3], dist, nprocs);
  const double sel[3] = {0.001, 0.01, 0.1};
  float t[3];
  write_file(path, dist, n);
  thresholds(dist, n, sel, 3, t);

  int ncid, v[4];
  NC(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  NC(ncmpi_inq_varid(ncid, "energy", &v[0]));
  NC(ncmpi_inq_varid(ncid, "x", &v[1]));
  NC(ncmpi_inq_varid(ncid, "y", &v[2]));
  NC(ncmpi_inq_varid(ncid, "z", &v[3]));
  NC(exa_index_drop(ncid, v[0]));
  for (int k = 0; k < 3; ++k) measure(ncid, v, t[k], reps, dist, "scan", sel[k], n);
  build(ncid, v[0], "bins=64", reps, dist, "bins=64", n);
  for (int k = 0; k < 3; ++k) measure(ncid, v, t[k], reps, dist, "index", sel[k], n);
  /* The same index without the cost check (the index whenever it is usable). */
  setenv("EXACDF_QUERY_INDEX_SHARE", "1e30", 1);
  for (int k = 0; k < 3; ++k) measure(ncid, v, t[k], reps, dist, "index_nocheck", sel[k], n);
  unsetenv("EXACDF_QUERY_INDEX_SHARE");
  /* Edges just above the constants (energy > t is energy >= the next
   * float): each query a union of whole bins, no candidate checks. */
  char spec[256];
  snprintf(spec, sizeof spec, "edges=%a,%a,%a", (double)nextafterf(t[2], INFINITY),
           (double)nextafterf(t[1], INFINITY), (double)nextafterf(t[0], INFINITY));
  if (getenv("QUERY_BENCH_KEEP") == NULL) build(ncid, v[0], spec, 1, dist, "edges=t", n);
  for (int k = 0; k < 3; ++k) measure(ncid, v, t[k], reps, dist, "index_edges", sel[k], n);
  update_after_puts(ncid, v[0], dist, n);
  if (getenv("QUERY_BENCH_KEEP") == NULL) NC(exa_index_drop(ncid, v[0]));
  NC(ncmpi_close(ncid));
  if (rank == 0 && getenv("QUERY_BENCH_KEEP") == NULL) remove(path);
  MPI_Finalize();
  return 0;
}
