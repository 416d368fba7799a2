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
 * Round 6 adds, per pair, the poll gap the reader really had: from the start
 * of its previous poll to the start of the poll that saw the record (from the
 * reader's start for its first poll), split into the previous poll's own work
 * (refresh and reads), the sleep's overshoot past POLL and the run-queue
 * delay in the gap; and
 *   actual bound = commit interval + that gap + that poll's refresh + sync
 * (a reader that polls sees a visible commit within its gap plus its refresh,
 * so a pair over it is over for a reason other than polling or scheduling:
 * "missed" pairs, a poll begun after the commit was visible that did not see
 * it, are counted too). Timer rows give how late each timer commit began
 * after its interval ran out (the timer starts at the end of the first put
 * after a commit), how much of that was inside the put that made it, the
 * writer's run-queue delay during that put, and how many commits were late
 * inside their put by more than that delay + 0.5 ms.
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
/* This process's run-queue delay so far (seconds), from a file kept open:
 * one pread per poll. */
static int schedstat_fd = -1;
static double runq_now(void) {
  char b[128];
  if (schedstat_fd < 0) schedstat_fd = open("/proc/self/schedstat", O_RDONLY);
  ssize_t n = schedstat_fd < 0 ? -1 : pread(schedstat_fd, b, sizeof b - 1, 0);
  if (n <= 0) return 0;
  b[n] = 0;
  unsigned long long run = 0, waited = 0;
  if (sscanf(b, "%llu %llu", &run, &waited) != 2) return 0;
  return 1e-9 * (double)waited;
}

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

/* The q-quantile of v[0..n) by nearest rank (the ceil(q n)-th smallest;
 * sorts v); 0 when empty. (Until round 6 the index was floor(q (n - 1)),
 * which for the 2 commits of a timer row gave the smaller as "p99".) */
static double quantile(double *v, int n, double q) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  size_t k = (size_t)(q * n);
  if ((double)k < q * n) k++; /* ceil */
  return v[k > 0 ? k - 1 : 0];
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
  /* timer commits (round 6): when the interval ran out (the timer starts at
   * the end of the first put after the previous commit) and when the put call
   * in which the commit was made began; 0 for other commits */
  double due, call_began;
  double call_runq; /* the writer's run-queue delay during that put call */
} Commit;
/* timer mode: whether the timer runs, since when, and when the current put
 * call began (the writer's calls are timed around each put) */
static int timer_armed;
static double timer_started, call_began, call_runq0;
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
  const double now = wall();
  exa_debug_last_commit(&gen, &began, &written, &synced);
  if (gen == last_gen) {
    /* timer mode: the first put after a commit starts the timer as it ends */
    if (call_began > 0 && !timer_armed) {
      timer_armed = 1;
      timer_started = now;
    }
    return;
  }
  last_gen = gen;
  Commit c = {began, visible_override > 0 ? visible_override : written, synced_override > 0 ? synced_override : synced,
              0, 0, 0};
  if (call_began > 0 && timer_armed) { /* a timer commit inside this put */
    c.due = timer_started + atof(interval);
    c.call_began = call_began;
    c.call_runq = runq_now() - call_runq0;
  }
  timer_armed = 0;
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

/* A reader's log of its polls (round 6): per poll when it began (before the
 * refresh), when the refresh returned (= "first seen" of what it found), when
 * its reads were done (the sleep, if any, starts then) and the reader's
 * run-queue delay so far at its start. first_poll[r]: the poll that first saw
 * record r. The poll gap around a commit is start[k] - start[k - 1] for the
 * poll k that saw it: a reader that runs sees a commit within that gap plus
 * poll k's refresh, whatever the nominal POLL. */
#define MAX_POLLS 200000
typedef struct {
  double start, end, done, runq;
  int slept; /* found nothing: slept POLL after `done` */
} Poll;
static Poll *polls;
static int npolls, *first_poll;
static double reader_began; /* when the reader began, before its open (its first poll's gap starts there) */

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
    first_poll[r] = npolls - 1;
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
  timer_armed = 0;
  call_began = 0;
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
      call_runq0 = runq_now();
      call_began = wall();
      put_data(ncid, rec, size, buf);
      note_commit(rec, 0, 0);
      call_runq0 = runq_now();
      call_began = wall();
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
    call_began = 0; /* not a put: no timer */
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
  reader_began = wall(); /* the open is part of a reader's first gap */
  if (swmr) ERR(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &ncid));
  npolls = 0;
  while (seen < appends) {
    const double q = runq_now();
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
    Poll *p = &polls[npolls < MAX_POLLS ? npolls : MAX_POLLS - 1];
    p->start = t;
    p->end = now;
    p->runq = q;
    if (npolls < MAX_POLLS) npolls++;
    seen = read_new(ncid, seen, (int)n, size, buf, now);
    if (!swmr) {
      ERR(ncmpi_close(ncid));
      flock(lfd, LOCK_UN);
    }
    p->done = wall();
    p->slept = seen == before;
    if (seen == before) sleep_s(poll_s);
  }
  if (swmr) ERR(ncmpi_close(ncid));
  close(lfd);
}

/* A reader's poll gap around each record it saw (GAP_FIELDS per record, -1
 * when not a reader or not seen): the gap from the previous poll's start to
 * the start of the poll that saw it, that poll's refresh, the previous poll's
 * own work (refresh and reads), the time from its end to the next poll's
 * start (the sleep when it found nothing), the run-queue delay in the gap,
 * the previous poll's start, and whether it slept. */
#define GAP_FIELDS 7
static void poll_gaps(double *g) {
  for (int r = 0; r < appends; r++) {
    double *o = g + (size_t)r * GAP_FIELDS;
    for (int i = 0; i < GAP_FIELDS; i++) o[i] = -1;
    if (first_seen[r] < 0) continue;
    const int k = first_poll[r];
    const Poll *p = &polls[k];
    o[1] = p->end - p->start;
    if (k == 0) { /* seen at the reader's first poll: the gap runs from the reader's start */
      o[0] = o[3] = p->start - reader_began;
      o[2] = o[4] = o[6] = 0;
      o[5] = reader_began;
      continue;
    }
    const Poll *b = &polls[k - 1];
    o[0] = p->start - b->start;
    o[2] = b->done - b->start;
    o[3] = p->start - b->done;
    o[4] = p->runq - b->runq;
    o[5] = b->start;
    o[6] = b->slept;
  }
}

static double median_of(double *v, int n) { return quantile(v, n, 0.5); }

/* Rank 0: the row's lag figures from the writer's log and every reader's
 * first-seen times (all[reader * appends + record], < 0: not a reader). */
static void report(const char *mode, MPI_Offset size, double wtime, double bytes, const double *all,
                   const double *gaps, double lat_sum, double nref_sum, const double *sched) {
  const int timer = strcmp(mode, "timer") == 0;
  const double ival = timer ? atof(interval) : 0;
  const int cap = nprocs * appends;
  double *lag = malloc(sizeof(double) * (size_t)cap), *bound = malloc(sizeof(double) * (size_t)cap);
  double *detect = malloc(sizeof(double) * (size_t)cap), *excess = malloc(sizeof(double) * (size_t)cap);
  double *wait = malloc(sizeof(double) * (size_t)cap), *sync = malloc(sizeof(double) * (size_t)(ncommits + 1));
  /* round 6: the bound with the poll gap each reader really had */
  double *abound = malloc(sizeof(double) * (size_t)cap), *gap = malloc(sizeof(double) * (size_t)cap);
  double *work = malloc(sizeof(double) * (size_t)cap), *over = malloc(sizeof(double) * (size_t)cap);
  double *rq = malloc(sizeof(double) * (size_t)cap);
  double *o_gap = malloc(sizeof(double) * (size_t)cap), *o_work = malloc(sizeof(double) * (size_t)cap);
  double *o_over = malloc(sizeof(double) * (size_t)cap), *o_rq = malloc(sizeof(double) * (size_t)cap);
  double *o_detect = malloc(sizeof(double) * (size_t)cap), *o_ref = malloc(sizeof(double) * (size_t)cap);
  int n = 0, within = 0, awithin = 0, nover = 0, nslept = 0, missed = 0, over_slept = 0;
  for (int i = 0; i < cap; i++) {
    const int r = i % appends;
    if (all[i] < 0) continue;
    const Commit *c = &commits[commit_of[r]];
    const double *g = gaps + (size_t)i * GAP_FIELDS;
    lag[n] = all[i] - put_at[r];
    bound[n] = ival + poll_s + (c->synced - c->began);
    detect[n] = all[i] - c->visible;
    wait[n] = c->began - put_at[r];
    excess[n] = lag[n] - bound[n];
    within += lag[n] <= bound[n];
    abound[n] = ival + g[0] + g[1] + (c->synced - c->began);
    awithin += lag[n] <= abound[n];
    gap[n] = g[0];
    work[n] = g[2];
    rq[n] = g[4];
    if (g[6] > 0) over[nslept++] = g[3] - poll_s; /* the sleep's overshoot */
    missed += g[2] > 0 && g[5] > c->visible + 1e-4; /* a poll begun after it was visible missed it */
    if (lag[n] > bound[n]) {
      o_gap[nover] = g[0];
      o_work[nover] = g[2];
      o_over[nover] = g[6] > 0 ? g[3] - poll_s : 0;
      o_rq[nover] = g[4];
      o_detect[nover] = detect[n];
      o_ref[nover] = g[1];
      over_slept += g[6] > 0;
      nover++;
    }
    n++;
  }
  for (int k = 0; k < ncommits; k++) sync[k] = commits[k].synced - commits[k].began;
  /* timer commits: how late after the interval ran out, split into before
   * the put call that made it (the writer outside the library) and inside it
   * (the put's own write, before its timer check) */
  double *late = malloc(sizeof(double) * (size_t)(ncommits + 1)), *late_in = malloc(sizeof(double) * (size_t)(ncommits + 1));
  double *late_rq = malloc(sizeof(double) * (size_t)(ncommits + 1));
  int nlate = 0, unexplained = 0;
  for (int k = 0; k < ncommits; k++) {
    if (commits[k].due <= 0) continue;
    late[nlate] = commits[k].began - commits[k].due;
    late_in[nlate] = commits[k].began - (commits[k].call_began > commits[k].due ? commits[k].call_began : commits[k].due);
    late_rq[nlate] = commits[k].call_runq;
    unexplained += late_in[nlate] > late_rq[nlate] + 0.5e-3; /* late in the put beyond waiting for a core */
    nlate++;
  }
  const double frac = n > 0 ? (double)within / n : 0;
  printf("{\"mode\": \"%s\", \"size\": %lld, \"appends\": %d, \"poll_ms\": %.3f, \"commit_interval_ms\": %.3f, "
         "\"writer_s\": %.6f, \"ms_per_append\": %.4f, \"writer_MBps\": %.3f, \"commits\": %d, "
         "\"bytes_per_append\": %.0f, \"refresh_ms\": %.4f, \"refreshes\": %.0f, "
         "\"sync_ms_p50\": %.3f, \"sync_ms_p99\": %.3f, \"bound_ms_p50\": %.3f, \"bound_ms_p99\": %.3f, "
         "\"lag_ms_p50\": %.3f, \"lag_ms_p99\": %.3f, \"within_bound\": %.4f, \"pairs\": %d, "
         "\"excess_ms_p99\": %.3f, \"detect_ms_p50\": %.3f, \"detect_ms_p99\": %.3f, "
         "\"wait_for_commit_ms_p99\": %.3f, \"writer_cpu_s\": %.4f, \"writer_runq_ms\": %.3f, "
         "\"readers_cpu_s\": %.4f, \"readers_runq_ms\": %.3f, "
         "\"actual_bound_ms_p99\": %.3f, \"within_actual_bound\": %.4f, \"gap_ms_p50\": %.3f, \"gap_ms_p99\": %.3f, "
         "\"prev_work_ms_p99\": %.3f, \"sleep_overshoot_ms_p50\": %.3f, \"sleep_overshoot_ms_p99\": %.3f, "
         "\"gap_runq_ms_p99\": %.3f, \"missed_pairs\": %d, \"over_pairs\": %d, \"over_slept\": %d, "
         "\"over_detect_ms_med\": %.3f, \"over_gap_ms_med\": %.3f, \"over_prev_work_ms_med\": %.3f, "
         "\"over_sleep_overshoot_ms_med\": %.3f, \"over_gap_runq_ms_med\": %.3f, \"over_refresh_ms_med\": %.3f, "
         "\"timer_commits\": %d, \"late_ms_p50\": %.3f, \"late_ms_max\": %.3f, \"late_in_put_ms_max\": %.3f, \"late_put_runq_ms_max\": %.3f, \"late_beyond_runq\": %d}\n",
         mode, (long long)size, appends, 1e3 * poll_s, 1e3 * ival, wtime, 1e3 * wtime / appends,
         size * (double)appends / wtime / 1e6, ncommits, bytes, nref_sum > 0 ? 1e3 * lat_sum / nref_sum : 0.0,
         nref_sum, 1e3 * quantile(sync, ncommits, 0.5), 1e3 * quantile(sync, ncommits, 0.99),
         1e3 * quantile(bound, n, 0.5), 1e3 * quantile(bound, n, 0.99), 1e3 * quantile(lag, n, 0.5),
         1e3 * quantile(lag, n, 0.99), frac, n, 1e3 * quantile(excess, n, 0.99), 1e3 * quantile(detect, n, 0.5),
         1e3 * quantile(detect, n, 0.99), 1e3 * quantile(wait, n, 0.99), sched[0], 1e3 * sched[1], sched[2],
         1e3 * sched[3], 1e3 * quantile(abound, n, 0.99), n > 0 ? (double)awithin / n : 0,
         1e3 * quantile(gap, n, 0.5), 1e3 * quantile(gap, n, 0.99), 1e3 * quantile(work, n, 0.99),
         1e3 * quantile(over, nslept, 0.5), 1e3 * quantile(over, nslept, 0.99), 1e3 * quantile(rq, n, 0.99), missed,
         nover, over_slept, 1e3 * median_of(o_detect, nover), 1e3 * median_of(o_gap, nover),
         1e3 * median_of(o_work, nover), 1e3 * median_of(o_over, nover), 1e3 * median_of(o_rq, nover),
         1e3 * median_of(o_ref, nover), nlate, 1e3 * quantile(late, nlate, 0.5), 1e3 * quantile(late, nlate, 1.0),
         1e3 * quantile(late_in, nlate, 1.0), 1e3 * quantile(late_rq, nlate, 1.0), unexplained);
  fflush(stdout);
  free(lag);
  free(bound);
  free(detect);
  free(excess);
  free(wait);
  free(sync);
  free(abound);
  free(gap);
  free(work);
  free(over);
  free(rq);
  free(o_gap);
  free(o_work);
  free(o_over);
  free(o_rq);
  free(o_detect);
  free(o_ref);
  free(late);
  free(late_in);
  free(late_rq);
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
  double *mygaps = malloc(sizeof(double) * (size_t)appends * GAP_FIELDS);
  double *gaps = rank == 0 ? malloc(sizeof(double) * (size_t)(nprocs * appends) * GAP_FIELDS) : NULL;
  poll_gaps(mygaps);
  MPI_Gather(mygaps, appends * GAP_FIELDS, MPI_DOUBLE, gaps, appends * GAP_FIELDS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free(mygaps);
  double lat_sum = 0, nref_sum = 0, nref = (double)nrefresh;
  MPI_Reduce(&rlat, &lat_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&nref, &nref_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    report(mode, size, wtime, bytes, all, gaps, lat_sum, nref_sum, sched);
    free(all);
    free(gaps);
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
  first_poll = malloc(sizeof(int) * (size_t)appends);
  polls = malloc(sizeof(Poll) * MAX_POLLS);
  for (MPI_Offset size = 1024; size <= maxsize; size *= 16) {
    run("off", size);
    run("swmr", size);
    run("timer", size);
    run("lock", size);
  }
  MPI_Finalize();
  return 0;
}
