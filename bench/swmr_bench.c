/*
 * Seed 001's SWMR experiment, scaled: one writer appends 1-D data (one
 * record of `size` bytes per append, APPENDS appends per size) while 3
 * readers follow and read each new record.
 *
 *   swmr : writer EXA_SWMR_WRITE (partitioned), put + ncmpi_sync per append;
 *          readers EXA_SWMR_READ, exa_refresh, read the new records. No locks.
 *   timer: as swmr, but the writer never syncs: exa_swmr_commit_interval
 *          (INTERVAL seconds, default 0.005) commits at its puts.
 *   lock : the baseline: writer and readers exclude each other with flock on
 *          a lock file; the writer (file kept open, not SWMR) appends under
 *          LOCK_EX (put + ncmpi_sync: data and the new superblock on disk),
 *          a reader under LOCK_SH opens the file, reads the new records,
 *          closes (a plain reader must reopen to see new records).
 *   off  : the writer alone, no SWMR (put + ncmpi_sync per append): the
 *          writer's throughput without SWMR.
 *
 * Rank 0 writes; ranks 1.. read, each on MPI_COMM_SELF (as separate jobs would).
 * Every reader polls the same way in swmr, timer and lock: a poll that finds
 * nothing new is followed by a sleep of POLL seconds (0: spin, no sleep).
 *
 * The lag (issue 19): each record stores when it was put (variable t; the
 * writer keeps the same time). The writer also keeps, per commit, when it
 * began (before the data sync), when its superblock was written (visible to
 * readers on this node; lock: when the writer released the lock) and when it
 * was synced (exa_debug_last_commit), and which commit first counted each
 * record. A reader notes when it first saw each record. Per (reader, record):
 *   lag     = first seen - put
 *   bound   = commit interval (timer: INTERVAL; swmr, lock: 0, a commit per
 *             append) + POLL + that commit's sync time (synced - began;
 *             lock: from the commit at the data's put to the sync's end)
 *   detect  = first seen - superblock written (the reader's own delay)
 * and the fraction of (reader, record) pairs whose lag is within their bound.
 * CPU and run-queue delay (/proc/self/schedstat: time runnable but waiting for
 * a core) of the writer and of the readers (summed) over the row show how
 * much of the lag is scheduling.
 * Prints one JSON object per (mode, size) on rank 0.
 * Usage: mpiexec -n 4 swmr_bench DIR [APPENDS] [MAXSIZE] [INTERVAL] [POLL]
 */
#include <exacdf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static int rank, nprocs, appends = 100;
static char dir[1024];
static const char *interval = "0.005"; /* timer mode: exa_swmr_commit_interval */
static double poll_s = 0.001;          /* readers' sleep after a poll that found nothing */

/* Wall-clock seconds (the same clock in every process of the node). */
static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* This process's main thread: seconds on a core and seconds runnable but
 * waiting for one (the scheduler's run-queue delay). */
static void sched_times(double *cpu, double *wait) {
  unsigned long long run = 0, waited = 0;
  FILE *f = fopen("/proc/self/schedstat", "r");
  if (f == NULL || fscanf(f, "%llu %llu", &run, &waited) != 2) run = waited = 0;
  if (f != NULL) fclose(f);
  *cpu = 1e-9 * (double)run;
  *wait = 1e-9 * (double)waited;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) (sorts v); 0 when empty. */
static double quantile(double *v, int n, double q) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[(size_t)(q * (n - 1))];
}

#define ERR(call)                                                              \
  do {                                                                         \
    int e_ = (call);                                                           \
    if (e_ != NC_NOERR) {                                                      \
      fprintf(stderr, "rank %d line %d: %s\n", rank, __LINE__, ncmpi_strerror(e_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

static void create(const char *path, int cmode, MPI_Offset size) {
  int ncid, d[2], v;
  ERR(ncmpi_create(MPI_COMM_SELF, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  ERR(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  ERR(ncmpi_def_dim(ncid, "n", size, &d[1]));
  ERR(ncmpi_def_var(ncid, "data", NC_BYTE, 2, d, &v));
  ERR(ncmpi_def_var(ncid, "t", NC_DOUBLE, 1, d, &v)); /* when each record was put */
  ERR(ncmpi_enddef(ncid));
  ERR(ncmpi_close(ncid));
}

/* The writer's log: per record when it was put and the commit that first
 * counted it; per commit its times. */
typedef struct {
  double began, visible, synced;
} Commit;
static double *put_at;
static int *commit_of;
static Commit *commits;
static int ncommits, assigned; /* records [0, assigned) have their commit */
static long long last_gen;

/* After a writer call: when it made a new commit, that commit counts every
 * record whose t was put and has none yet ([assigned, upto)). */
static void note_commit(int upto, double visible_override, double synced_override) {
  long long gen = 0;
  double began = 0, written = 0, synced = 0;
  exa_debug_last_commit(&gen, &began, &written, &synced);
  if (gen == last_gen) return;
  last_gen = gen;
  Commit c = {began, visible_override > 0 ? visible_override : written, synced_override > 0 ? synced_override : synced};
  commits[ncommits] = c;
  for (; assigned < upto; assigned++) commit_of[assigned] = ncommits;
  ncommits++;
}

static void put_data(int ncid, int rec, MPI_Offset size, signed char *buf) {
  memset(buf, rec & 0x7f, (size_t)size);
  MPI_Offset start[2] = {rec, 0}, count[2] = {1, size};
  ERR(ncmpi_put_vara_schar_all(ncid, 0, start, count, buf));
}

static void put_time(int ncid, int rec) {
  MPI_Offset start[2] = {rec, 0}, count[2] = {1, 1};
  put_at[rec] = wall();
  ERR(ncmpi_put_vara_double_all(ncid, 1, start, count, &put_at[rec]));
}

/* Reads records [from, to), notes when they were first seen (`seen`) and
 * checks their bytes; returns the first record not taken (its t is not
 * written yet: a timer commit at the data's put counts the record before its
 * time is put; taken at a later poll). */
static double *first_seen;
static int read_new(int ncid, int from, int to, MPI_Offset size, signed char *buf, double seen) {
  for (int r = from; r < to; r++) {
    MPI_Offset start[2] = {r, 0}, count[2] = {1, size};
    double t = 0;
    ERR(ncmpi_get_vara_double_all(ncid, 1, start, count, &t));
    if (t <= 0 || t > 1e30) return r;
    first_seen[r] = seen;
    ERR(ncmpi_get_vara_schar_all(ncid, 0, start, count, buf));
    if (buf[0] != (r & 0x7f) || buf[size - 1] != (r & 0x7f)) {
      fprintf(stderr, "rank %d: torn record %d\n", rank, r);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  return to;
}

static void writer(const char *path, const char *lockpath, const char *mode, MPI_Offset size, signed char *buf,
                   double *wtime, double *bytes) {
  const int timer = strcmp(mode, "timer") == 0, lock = strcmp(mode, "lock") == 0;
  const int swmr = timer || strcmp(mode, "swmr") == 0;
  int lfd = open(lockpath, O_CREAT | O_RDWR, 0644), ncid = -1;
  MPI_Offset put0 = 0, put1 = 0;
  MPI_Info info;
  MPI_Info_create(&info);
  if (timer) MPI_Info_set(info, "exa_swmr_commit_interval", interval);
  const double t0 = MPI_Wtime();
  ERR(ncmpi_open(MPI_COMM_SELF, path, NC_WRITE | (swmr ? EXA_SWMR_WRITE : 0), info, &ncid));
  MPI_Info_free(&info);
  ERR(ncmpi_inq_put_size(ncid, &put0));
  exa_debug_last_commit(&last_gen, NULL, NULL, NULL);
  ncommits = assigned = 0;
  for (int rec = 0; rec < appends; rec++) {
    if (lock) {
      flock(lfd, LOCK_EX);
      put_data(ncid, rec, size, buf);
      put_time(ncid, rec);
      ERR(ncmpi_sync(ncid));
      const double synced = wall();
      flock(lfd, LOCK_UN);
      /* Without SWMR the commit is made at the data's put; the record is
       * whole on disk when the sync returns, and readers see it once the
       * lock is free. */
      note_commit(rec + 1, wall(), synced);
    } else if (timer) {             /* committed by the timer, inside a put */
      put_data(ncid, rec, size, buf);
      note_commit(rec, 0, 0);
      put_time(ncid, rec);
      note_commit(rec + 1, 0, 0);
    } else {
      put_data(ncid, rec, size, buf);
      put_time(ncid, rec);
      ERR(ncmpi_sync(ncid));
      note_commit(rec + 1, 0, 0);
    }
  }
  if (timer) {
    ERR(ncmpi_sync(ncid)); /* the last records */
    note_commit(appends, 0, 0);
  }
  ERR(ncmpi_inq_put_size(ncid, &put1));
  ERR(ncmpi_close(ncid));
  *wtime = MPI_Wtime() - t0;
  *bytes = (double)(put1 - put0) / appends;
  close(lfd);
  if (assigned != appends) {
    fprintf(stderr, "writer: %d of %d records have no commit\n", appends - assigned, appends);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

static void reader(const char *path, const char *lockpath, int swmr, MPI_Offset size, signed char *buf,
                   double *rlat, long long *nrefresh) {
  int lfd = open(lockpath, O_CREAT | O_RDWR, 0644), ncid = -1, seen = 0;
  MPI_Offset n = 0;
  if (swmr) ERR(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &ncid));
  while (seen < appends) {
    const double t = wall();
    if (swmr) {
      ERR(exa_refresh(ncid));
      ERR(ncmpi_inq_dimlen(ncid, 0, &n));
    } else {
      flock(lfd, LOCK_SH);
      ERR(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
      ERR(ncmpi_inq_dimlen(ncid, 0, &n));
    }
    const double now = wall();
    *rlat += now - t;
    (*nrefresh)++;
    const int before = seen;
    seen = read_new(ncid, seen, (int)n, size, buf, now);
    if (!swmr) {
      ERR(ncmpi_close(ncid));
      flock(lfd, LOCK_UN);
    }
    if (seen == before) sleep_s(poll_s);
  }
  if (swmr) ERR(ncmpi_close(ncid));
  close(lfd);
}

/* Rank 0: the row's lag figures from the writer's log and every reader's
 * first-seen times (all[reader * appends + record], < 0: not a reader). */
static void report(const char *mode, MPI_Offset size, double wtime, double bytes, const double *all,
                   double lat_sum, double nref_sum, const double *sched) {
  const int timer = strcmp(mode, "timer") == 0;
  const double ival = timer ? atof(interval) : 0;
  const int cap = nprocs * appends;
  double *lag = malloc(sizeof(double) * (size_t)cap), *bound = malloc(sizeof(double) * (size_t)cap);
  double *detect = malloc(sizeof(double) * (size_t)cap), *excess = malloc(sizeof(double) * (size_t)cap);
  double *wait = malloc(sizeof(double) * (size_t)cap), *sync = malloc(sizeof(double) * (size_t)(ncommits + 1));
  int n = 0, within = 0;
  for (int i = 0; i < cap; i++) {
    const int r = i % appends;
    if (all[i] < 0) continue;
    const Commit *c = &commits[commit_of[r]];
    lag[n] = all[i] - put_at[r];
    bound[n] = ival + poll_s + (c->synced - c->began);
    detect[n] = all[i] - c->visible;
    wait[n] = c->began - put_at[r];
    excess[n] = lag[n] - bound[n];
    within += lag[n] <= bound[n];
    n++;
  }
  for (int k = 0; k < ncommits; k++) sync[k] = commits[k].synced - commits[k].began;
  const double frac = n > 0 ? (double)within / n : 0;
  printf("{\"mode\": \"%s\", \"size\": %lld, \"appends\": %d, \"poll_ms\": %.3f, \"commit_interval_ms\": %.3f, "
         "\"writer_s\": %.6f, \"ms_per_append\": %.4f, \"writer_MBps\": %.3f, \"commits\": %d, "
         "\"bytes_per_append\": %.0f, \"refresh_ms\": %.4f, \"refreshes\": %.0f, "
         "\"sync_ms_p50\": %.3f, \"sync_ms_p99\": %.3f, \"bound_ms_p50\": %.3f, \"bound_ms_p99\": %.3f, "
         "\"lag_ms_p50\": %.3f, \"lag_ms_p99\": %.3f, \"within_bound\": %.4f, \"pairs\": %d, "
         "\"excess_ms_p99\": %.3f, \"detect_ms_p50\": %.3f, \"detect_ms_p99\": %.3f, "
         "\"wait_for_commit_ms_p99\": %.3f, \"writer_cpu_s\": %.4f, \"writer_runq_ms\": %.3f, "
         "\"readers_cpu_s\": %.4f, \"readers_runq_ms\": %.3f}\n",
         mode, (long long)size, appends, 1e3 * poll_s, 1e3 * ival, wtime, 1e3 * wtime / appends,
         size * (double)appends / wtime / 1e6, ncommits, bytes, nref_sum > 0 ? 1e3 * lat_sum / nref_sum : 0.0,
         nref_sum, 1e3 * quantile(sync, ncommits, 0.5), 1e3 * quantile(sync, ncommits, 0.99),
         1e3 * quantile(bound, n, 0.5), 1e3 * quantile(bound, n, 0.99), 1e3 * quantile(lag, n, 0.5),
         1e3 * quantile(lag, n, 0.99), frac, n, 1e3 * quantile(excess, n, 0.99), 1e3 * quantile(detect, n, 0.5),
         1e3 * quantile(detect, n, 0.99), 1e3 * quantile(wait, n, 0.99), sched[0], 1e3 * sched[1], sched[2],
         1e3 * sched[3]);
  fflush(stdout);
  free(lag);
  free(bound);
  free(detect);
  free(excess);
  free(wait);
  free(sync);
}

static void run(const char *mode, MPI_Offset size) {
  char path[1200], lockpath[1300];
  snprintf(path, sizeof path, "%s/swmr_bench_%s.nc", dir, mode);
  snprintf(lockpath, sizeof lockpath, "%s.lock", path);
  const int swmr = strcmp(mode, "swmr") == 0 || strcmp(mode, "timer") == 0;
  signed char *buf = malloc((size_t)size);
  double wtime = 0, rlat = 0, bytes = 0, cpu0, wait0, cpu1, wait1;
  long long nrefresh = 0;
  for (int r = 0; r < appends; r++) first_seen[r] = -1;
  if (rank == 0) create(path, EXA_FORMAT_PARTITIONED | (swmr ? EXA_SWMR_WRITE : 0), size);
  MPI_Barrier(MPI_COMM_WORLD);
  const int readers = strcmp(mode, "off") != 0;
  sched_times(&cpu0, &wait0);
  if (rank == 0)
    writer(path, lockpath, mode, size, buf, &wtime, &bytes);
  else if (readers && rank <= 3)
    reader(path, lockpath, swmr, size, buf, &rlat, &nrefresh);
  sched_times(&cpu1, &wait1);
  /* per rank: cpu, run-queue wait; rank 0's are the writer's, the rest summed */
  double mine[2] = {cpu1 - cpu0, wait1 - wait0}, sums[2] = {0, 0}, sched[4] = {mine[0], mine[1], 0, 0};
  if (rank == 0 || !readers || rank > 3) mine[0] = mine[1] = 0;
  MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  sched[2] = sums[0];
  sched[3] = sums[1];
  double *all = rank == 0 ? malloc(sizeof(double) * (size_t)(nprocs * appends)) : NULL;
  MPI_Gather(first_seen, appends, MPI_DOUBLE, all, appends, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double lat_sum = 0, nref_sum = 0, nref = (double)nrefresh;
  MPI_Reduce(&rlat, &lat_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&nref, &nref_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    report(mode, size, wtime, bytes, all, lat_sum, nref_sum, sched);
    free(all);
  }
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
  if (argc > 2) appends = atoi(argv[2]);
  MPI_Offset maxsize = argc > 3 ? atoll(argv[3]) : 4 << 20;
  if (argc > 4) interval = argv[4];
  if (argc > 5) poll_s = atof(argv[5]);
  put_at = malloc(sizeof(double) * (size_t)appends);
  commit_of = malloc(sizeof(int) * (size_t)appends);
  commits = malloc(sizeof(Commit) * (size_t)(appends + 2));
  first_seen = malloc(sizeof(double) * (size_t)appends);
  for (MPI_Offset size = 1024; size <= maxsize; size *= 16) {
    run("off", size);
    run("swmr", size);
    run("timer", size);
    run("lock", size);
  }
  MPI_Finalize();
  return 0;
}
