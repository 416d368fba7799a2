/*
 * vpic_io.c -- a VPIC-IO-like write kernel (docs/shared workloads.md: 8 variables per
 * particle, x y z ux uy uz energy as float32 and id as int32, several time steps with
 * computation in between), written with the ncmpi_* API only, so the same binary runs
 * with and without a connector stack (EXACDF_CONNECTORS=async, cache, ...).
 *
 *   vpic_io PATH PARTICLES_PER_RANK [STEPS=5] [COMPUTE=none|sleep|arith] [COMPUTE_S=0] [read]
 *
 * The file: dimensions step (STEPS, fixed: h5bench's VPIC-IO writes one fixed dataset
 * per step) and particle (PARTICLES_PER_RANK x ranks), one [step][particle] variable per
 * quantity, CDF-5. Each step every rank writes its contiguous slice
 * of the 8 variables with blocking collective puts (ncmpi_put_vara_*_all), as VPIC-IO
 * does with one H5Dwrite per variable. Between steps (after every step but the last)
 * the program computes for COMPUTE_S seconds: "sleep" sleeps, "arith" advances the
 * particles (real floating-point work on the arrays, repeated until COMPUTE_S passed).
 * The values depend on (rank, step, particle) only, so two runs with the same
 * arguments write byte-identical files whatever the connector stack.
 * VPIC_NONBLOCKING=1 in the environment: each step is 8 iputs and one ncmpi_wait_all instead.
 * VPIC_INDEPENDENT=1: independent data mode (ncmpi_begin_indep_data after the define), each
 * step 8 independent blocking puts (ncmpi_put_vara_*), ncmpi_end_indep_data before the close
 * (timed with the close).
 * "read" (optional last argument): after the close the file is opened again and every
 * step read back and checked (collective gets), timed separately.
 *
 * Rank 0 prints one line (times: max over ranks; MPI_Init_thread asks for
 * MPI_THREAD_MULTIPLE so a background connector may use MPI from its threads):
 *   RESULT bench=vpic_io ranks=R particles_per_rank=N steps=S compute=C compute_s=X
 *          bytes=B t_total=.. t_compute=.. t_io=.. t_close=.. t_write=.. t_durable=.. step_io=a,b,c,d,e t_read=..
 * t_total: create to close returned; t_compute: the compute phases; t_io = t_total -
 * t_compute (the I/O time the application saw, create and close included); step_io:
 * the time each step's puts took as the application saw them; step_cpu: the CPU time
 * of the program's thread in each step's puts (CLOCK_THREAD_CPUTIME_ID: copies and page
 * faults, not the time the thread waited or was preempted; rank 0's); t_close: the close;
 * t_write: the first put to the close returned, the compute phases excluded (the
 * application-visible write time; create and define excluded); t_durable: the first put to
 * the data durable on the target, the compute phases excluded: after the close every rank
 * waits at a barrier, then rank 0 waits until no cache log of the target is left in
 * VPIC_WAIT_LOGS (a directory; close=detach's helper removes the logs once it has replayed
 * and synced them; unset: no wait) and fsyncs the file (native on a page-cached disk: the
 * write-back), then a barrier; max over ranks. -1 when VPIC_DURABLE is not 1.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    int err_ = (call);                                                                 \
    if (err_ != NC_NOERR) {                                                            \
      fprintf(stderr, "vpic_io %s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
    }                                                                                  \
  } while (0)

enum { kFloats = 7, kVars = 8 };
static const char* const kNames[kVars] = {"x", "y", "z", "ux", "uy", "uz", "energy", "id"};

typedef struct {
  float* f[kFloats]; /* x y z ux uy uz energy */
  int* id;
  MPI_Offset n;
} particles;

static double max_over_ranks(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void* alloc_or_die(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "vpic_io: out of memory (%zu bytes)\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* The value of quantity q of particle i (global index) at a step: cheap, exact in float. */
static float value_of(int q, MPI_Offset i, int step) {
  return (float)((i % 100003) * 0.25 + q * 1000.0 + step * 0.5);
}

static void fill_step(particles* p, MPI_Offset first, int step) {
  for (int q = 0; q < kFloats; ++q)
    for (MPI_Offset k = 0; k < p->n; ++k) p->f[q][k] = value_of(q, first + k, step);
  for (MPI_Offset k = 0; k < p->n; ++k) p->id[k] = (int)((first + k) % 2147483647);
}

/* Real arithmetic: a particle push on a scratch copy (so the written values stay
 * those of fill_step) repeated until `seconds` passed. */
static double arith_phase(const particles* p, float* scratch, double seconds) {
  double t0 = MPI_Wtime();
  double sink = 0;
  const float dt = 1e-3f;
  do {
    for (MPI_Offset k = 0; k < p->n; ++k) {
      float x = p->f[0][k] + dt * p->f[3][k];
      float ux = p->f[3][k] * 0.999f + dt * sinf(x);
      scratch[k] = x * ux + sqrtf(fabsf(p->f[6][k]) + 1.0f);
    }
    sink += scratch[p->n / 2];
  } while (MPI_Wtime() - t0 < seconds);
  return sink;
}

static void compute_phase(const char* mode, const particles* p, float* scratch, double seconds) {
  if (seconds <= 0 || strcmp(mode, "none") == 0) return;
  if (strcmp(mode, "sleep") == 0) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
  } else {
    volatile double keep = arith_phase(p, scratch, seconds);
    (void)keep;
  }
}

static void define_file(int ncid, int steps, MPI_Offset nglobal, int varids[kVars]) {
  int dims[2];
  CHECK(ncmpi_def_dim(ncid, "step", steps, &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "particle", nglobal, &dims[1]));
  for (int q = 0; q < kVars; ++q)
    CHECK(ncmpi_def_var(ncid, kNames[q], q < kFloats ? NC_FLOAT : NC_INT, 2, dims, &varids[q]));
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "kernel", 7, "vpic_io"));
  CHECK(ncmpi_enddef(ncid));
}

/* VPIC_NONBLOCKING=1: each step is 8 iputs and one ncmpi_wait_all (the buffers are
 * refilled only after the wait), as PnetCDF programs that batch their writes do. */
static int nonblocking = 0;
/* VPIC_INDEPENDENT=1: independent blocking puts in independent data mode. */
static int independent = 0;

static void write_step(int ncid, const int varids[kVars], const particles* p, MPI_Offset first,
                       int step) {
  MPI_Offset start[2] = {step, first}, count[2] = {1, p->n};
  if (nonblocking) {
    int reqs[kVars], statuses[kVars];
    for (int q = 0; q < kFloats; ++q) CHECK(ncmpi_iput_vara_float(ncid, varids[q], start, count, p->f[q], &reqs[q]));
    CHECK(ncmpi_iput_vara_int(ncid, varids[kFloats], start, count, p->id, &reqs[kFloats]));
    CHECK(ncmpi_wait_all(ncid, kVars, reqs, statuses));
    for (int q = 0; q < kVars; ++q) CHECK(statuses[q]);
    return;
  }
  if (independent) {
    for (int q = 0; q < kFloats; ++q) CHECK(ncmpi_put_vara_float(ncid, varids[q], start, count, p->f[q]));
    CHECK(ncmpi_put_vara_int(ncid, varids[kFloats], start, count, p->id));
    return;
  }
  for (int q = 0; q < kFloats; ++q)
    CHECK(ncmpi_put_vara_float_all(ncid, varids[q], start, count, p->f[q]));
  CHECK(ncmpi_put_vara_int_all(ncid, varids[kFloats], start, count, p->id));
}

/* Whether DIR holds a cache log (NAME ending in ".log"). */
static int has_logs(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  struct dirent* e;
  while (!found && (e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    found = n > 4 && strcmp(e->d_name + n - 4, ".log") == 0;
  }
  closedir(d);
  return found;
}

/* Rank 0: the logs in VPIC_WAIT_LOGS gone (at most 600 s), then an fsync of the file. */
static void wait_durable(const char* path) {
  const char* dir = getenv("VPIC_WAIT_LOGS");
  double t0 = MPI_Wtime();
  while (dir && *dir && has_logs(dir)) {
    if (MPI_Wtime() - t0 > 600) {
      fprintf(stderr, "vpic_io: the cache logs in %s are still there after 600 s\n", dir);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  int fd = open(path, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0) {
    fprintf(stderr, "vpic_io: cannot fsync %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  close(fd);
}

/* Reads every step back and checks it; returns the number of wrong values. */
static long long read_back(const char* path, particles* p, MPI_Offset first, int steps) {
  int ncid, varids[kVars];
  long long bad = 0;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  for (int q = 0; q < kVars; ++q) CHECK(ncmpi_inq_varid(ncid, kNames[q], &varids[q]));
  for (int step = 0; step < steps; ++step) {
    MPI_Offset start[2] = {step, first}, count[2] = {1, p->n};
    for (int q = 0; q < kFloats; ++q) {
      CHECK(ncmpi_get_vara_float_all(ncid, varids[q], start, count, p->f[q]));
      for (MPI_Offset k = 0; k < p->n; ++k) bad += p->f[q][k] != value_of(q, first + k, step);
    }
    CHECK(ncmpi_get_vara_int_all(ncid, varids[kFloats], start, count, p->id));
    for (MPI_Offset k = 0; k < p->n; ++k) bad += p->id[k] != (int)((first + k) % 2147483647);
  }
  CHECK(ncmpi_close(ncid));
  return bad;
}

int main(int argc, char** argv) {
  int provided, rank, nprocs;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3) {
    if (rank == 0)
      fprintf(stderr, "usage: %s PATH PARTICLES_PER_RANK [STEPS=5] [none|sleep|arith] [COMPUTE_S] [read]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }
  const char* path = argv[1];
  const char* nb = getenv("VPIC_NONBLOCKING");
  const char* durable_env = getenv("VPIC_DURABLE");
  const int durable = durable_env != NULL && strcmp(durable_env, "1") == 0;
  nonblocking = nb != NULL && strcmp(nb, "1") == 0;
  const char* ind = getenv("VPIC_INDEPENDENT");
  independent = !nonblocking && ind != NULL && strcmp(ind, "1") == 0;
  particles p;
  p.n = atoll(argv[2]);
  int steps = argc > 3 ? atoi(argv[3]) : 5;
  const char* mode = argc > 4 ? argv[4] : "none";
  double compute_s = argc > 5 ? atof(argv[5]) : 0;
  int do_read = argc > 6 && strcmp(argv[6], "read") == 0;
  if (p.n <= 0 || steps <= 0 ||
      (strcmp(mode, "none") && strcmp(mode, "sleep") && strcmp(mode, "arith"))) {
    if (rank == 0) fprintf(stderr, "vpic_io: bad arguments\n");
    MPI_Finalize();
    return 2;
  }
  for (int q = 0; q < kFloats; ++q) p.f[q] = alloc_or_die((size_t)p.n * sizeof(float));
  p.id = alloc_or_die((size_t)p.n * sizeof(int));
  float* scratch = alloc_or_die((size_t)p.n * sizeof(float));
  MPI_Offset first = (MPI_Offset)rank * p.n;
  double* step_io = alloc_or_die((size_t)steps * sizeof(double));
  double* step_cpu = alloc_or_die((size_t)steps * sizeof(double));

  int ncid, varids[kVars];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), t_compute = 0, t_first_put = 0;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  define_file(ncid, steps, p.n * nprocs, varids);
  if (independent) CHECK(ncmpi_begin_indep_data(ncid));
  for (int step = 0; step < steps; ++step) {
    fill_step(&p, first, step);
    double ts = MPI_Wtime(), cs = thread_cpu();
    if (step == 0) t_first_put = ts;
    write_step(ncid, varids, &p, first, step);
    step_io[step] = MPI_Wtime() - ts;
    step_cpu[step] = thread_cpu() - cs;
    if (step + 1 < steps) {
      double tc = MPI_Wtime();
      compute_phase(mode, &p, scratch, compute_s);
      t_compute += MPI_Wtime() - tc;
    }
  }
  double tclose = MPI_Wtime();
  if (independent) CHECK(ncmpi_end_indep_data(ncid));
  CHECK(ncmpi_close(ncid));
  double t_end = MPI_Wtime();
  double t_durable = -1;
  if (durable) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) wait_durable(path);
    MPI_Barrier(MPI_COMM_WORLD);
    t_durable = max_over_ranks(MPI_Wtime() - t_first_put - t_compute);
  }
  double t_write = max_over_ranks(t_end - t_first_put - t_compute);
  double t_total = max_over_ranks(t_end - t0);
  double t_close = max_over_ranks(t_end - tclose);
  t_compute = max_over_ranks(t_compute);
  for (int step = 0; step < steps; ++step) step_io[step] = max_over_ranks(step_io[step]);

  double t_read = 0;
  if (do_read) {
    MPI_Barrier(MPI_COMM_WORLD);
    double tr = MPI_Wtime();
    long long bad = read_back(path, &p, first, steps), allbad = 0;
    t_read = max_over_ranks(MPI_Wtime() - tr);
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (allbad) {
      if (rank == 0) fprintf(stderr, "vpic_io: %lld values read back differ\n", allbad);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (rank == 0) {
    long long bytes = (long long)steps * nprocs * p.n * kVars * 4;
    printf("RESULT bench=vpic_io ranks=%d particles_per_rank=%lld steps=%d compute=%s compute_s=%g "
           "bytes=%lld t_total=%.6f t_compute=%.6f t_io=%.6f t_close=%.6f t_write=%.6f t_durable=%.6f step_io=",
           nprocs, (long long)p.n, steps, mode, compute_s, bytes, t_total, t_compute,
           t_total - t_compute, t_close, t_write, t_durable);
    for (int step = 0; step < steps; ++step) printf("%s%.6f", step ? "," : "", step_io[step]);
    printf(" step_cpu=");
    for (int step = 0; step < steps; ++step) printf("%s%.6f", step ? "," : "", step_cpu[step]);
    printf(" t_read=%.6f thread_level=%d api=%s\n", t_read, provided, nonblocking ? "nonblocking" : independent ? "independent" : "blocking");
  }
  for (int q = 0; q < kFloats; ++q) free(p.f[q]);
  free(p.id);
  free(scratch);
  free(step_io);
  free(step_cpu);
  MPI_Finalize();
  return 0;
}
