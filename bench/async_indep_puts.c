/*
 * async_indep_puts.c -- independent puts to disjoint variables of one file,
 * for the async connector's concurrent writes (issue 17: "operations on
 * disjoint regions run concurrently"). Per rank, STEPS steps of NVARS
 * independent puts of BYTES bytes each (float32, one row of a fixed-size
 * [STEPS][nprocs * n] variable per put), in independent data mode; between
 * steps an optional computation of COMPUTE_MS (sleep). The stack comes from
 * EXACDF_CONNECTORS (e.g. async{concurrent=on} / async{concurrent=off} / unset).
 *
 *   async_indep_puts PATH [NVARS=8] [BYTES=1048576] [STEPS=5] [COMPUTE_MS=0]
 *
 * One RESULT line (the slowest rank's times, seconds):
 *   put = the program's time inside the puts, total = create to close,
 *   put_cpu = CPU time of the program's thread inside the puts (rank 0;
 *     CLOCK_THREAD_CPUTIME_ID: copies, page faults, writes made at the call --
 *     not time spent waiting for a core, so it does not grow with the load),
 *   overlap = the fraction of the computation phases (sleep, in 1 ms slices)
 *     during which this rank's writes were still in flight (exa_async_wait
 *     with no wait reports queued operations at each slice; the mean over
 *     ranks; 0 without async: nothing is in flight while the program computes),
 *   drain = end_indep_data + close (the writes still queued complete there),
 *   peak = exa_debug_concurrent_writes (the most writes in flight at once),
 *   cpu = user + system CPU seconds of every thread, summed over the ranks.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define CHECK_NC(call)                                                                   \
  do {                                                                                   \
    int e_ = (call);                                                                     \
    if (e_ != NC_NOERR) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(e_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps `ms` in 1 ms slices; adds to *busy the slices that began with
 * operations of `ncid` still queued, to *all every slice's length. */
static void compute_phase(int ncid, int ms, double *busy, double *all) {
  const double end = MPI_Wtime() + ms * 1e-3;
  for (double now = MPI_Wtime(); now < end;) {
    int pending = 0;
    if (exa_async_wait(ncid, 0, &pending) != NC_NOERR) pending = 0;
    double left = end - now;
    struct timespec ts = {0, (long)((left < 1e-3 ? left : 1e-3) * 1e9)};
    nanosleep(&ts, NULL);
    const double later = MPI_Wtime();
    if (pending > 0) *busy += later - now;
    *all += later - now;
    now = later;
  }
}

static double max_of(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: %s PATH [NVARS] [BYTES] [STEPS] [COMPUTE_MS]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *path = argv[1];
  const int nvars = argc > 2 ? atoi(argv[2]) : 8;
  const long bytes = argc > 3 ? atol(argv[3]) : 1048576;
  const int steps = argc > 4 ? atoi(argv[4]) : 5;
  const int compute_ms = argc > 5 ? atoi(argv[5]) : 0;
  const MPI_Offset n = bytes / 4;
  float *buf = malloc((size_t)n * sizeof(float));
  for (MPI_Offset i = 0; i < n; ++i) buf[i] = (float)(rank * 1000 + i % 977);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  int ncid, dims[2];
  CHECK_NC(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_NC(ncmpi_def_dim(ncid, "step", steps, &dims[0]));
  CHECK_NC(ncmpi_def_dim(ncid, "x", n * nprocs, &dims[1]));
  int *varids = malloc((size_t)nvars * sizeof(int));
  for (int v = 0; v < nvars; ++v) {
    char name[32];
    snprintf(name, sizeof name, "v%d", v);
    CHECK_NC(ncmpi_def_var(ncid, name, NC_FLOAT, 2, dims, &varids[v]));
  }
  CHECK_NC(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
  CHECK_NC(ncmpi_enddef(ncid));
  CHECK_NC(ncmpi_begin_indep_data(ncid));
  exa_debug_concurrent_writes(1);
  double put = 0, put_cpu = 0, busy = 0, all = 0;
  for (int s = 0; s < steps; ++s) {
    MPI_Offset start[2] = {s, n * rank}, count[2] = {1, n};
    const double p0 = MPI_Wtime(), c0 = thread_cpu();
    for (int v = 0; v < nvars; ++v) {
      buf[0] = (float)(s * 100 + v);
      CHECK_NC(ncmpi_put_vara_float(ncid, varids[v], start, count, buf));
    }
    put += MPI_Wtime() - p0;
    put_cpu += thread_cpu() - c0;
    if (compute_ms > 0 && s + 1 < steps) compute_phase(ncid, compute_ms, &busy, &all);
  }
  const double d0 = MPI_Wtime();
  CHECK_NC(ncmpi_end_indep_data(ncid));
  CHECK_NC(ncmpi_close(ncid));
  const double t1 = MPI_Wtime();
  const int peak = exa_debug_concurrent_writes(0);
  int peak_max = 0;
  MPI_Allreduce(&peak, &peak_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const double put_max = max_of(put), drain = max_of(t1 - d0), total = max_of(t1 - t0);
  double overlap = all > 0 ? busy / all : 0, overlap_sum = 0;
  MPI_Allreduce(&overlap, &overlap_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec * 1e-6, cpu_sum = 0;
  MPI_Allreduce(&cpu, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    const char *stack = getenv("EXACDF_CONNECTORS");
    printf("RESULT bench=async_indep_puts stack=%s ranks=%d nvars=%d bytes=%ld steps=%d compute_ms=%d "
           "put=%.6f put_cpu=%.6f overlap=%.4f drain=%.6f total=%.6f peak=%d cpu=%.4f\n",
           stack && *stack ? stack : "native", nprocs, nvars, bytes, steps, compute_ms, put_max, put_cpu,
           overlap_sum / nprocs, drain, total, peak_max, cpu_sum);
  }
  free(varids);
  free(buf);
  MPI_Finalize();
  return 0;
}
