/*
 * Seed 001's SWMR experiment, scaled: one writer appends 1-D data (one
 * record of `size` bytes per append, APPENDS appends per size) while
 * READERS readers follow and read each new record.
 *
 *   swmr : writer EXA_SWMR_WRITE (partitioned), put + ncmpi_sync per append;
 *          readers EXA_SWMR_READ, exa_refresh, read the new records. No locks.
 *   lock : the baseline: writer and readers exclude each other with flock on
 *          a lock file; the writer (file kept open, not SWMR) appends under
 *          LOCK_EX (put + ncmpi_sync: data and the new superblock on disk),
 *          a reader under LOCK_SH opens the file, reads the new records,
 *          closes (a plain reader must reopen to see new records).
 *   off  : the writer alone, no SWMR (put + ncmpi_sync per append): the
 *          writer's throughput without SWMR.
 *
 * Rank 0 writes; ranks 1.. read, each on MPI_COMM_SELF (as separate jobs would).
 * Prints one JSON object per (mode, size) on rank 0.
 *   timer: as swmr, but the writer never syncs: exa_swmr_commit_interval
 *          (INTERVAL seconds, default 0.005) commits at its puts.
 * Each record also stores when it was put (variable t); a reader's lag is
 * when it first saw the record minus that (p50 and p99 over all readers).
 * Usage: mpiexec -n 4 swmr_bench DIR [APPENDS] [MAXSIZE] [INTERVAL]
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

/* Wall-clock seconds (the same clock in every process of the node). */
static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
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

static void put(int ncid, int rec, MPI_Offset size, signed char *buf) {
  memset(buf, rec & 0x7f, (size_t)size);
  MPI_Offset start[2] = {rec, 0}, count[2] = {1, size};
  ERR(ncmpi_put_vara_schar_all(ncid, 0, start, count, buf));
  const double t = wall();
  ERR(ncmpi_put_vara_double_all(ncid, 1, start, count, &t));
}

/* Reads records [from, to) and checks their bytes; returns to. Each
 * record's lag (now minus when it was put) goes to lags[]. */
static double *lags;
static int nlags;
static int read_new(int ncid, int from, int to, MPI_Offset size, signed char *buf) {
  const double seen = wall();
  for (int r = from; r < to; r++) {
    MPI_Offset start[2] = {r, 0}, count[2] = {1, size};
    double put_at = 0;
    ERR(ncmpi_get_vara_double_all(ncid, 1, start, count, &put_at));
    /* A timer commit at the data's put counts the record before its time is
     * put (t is put after the data): take it at a later refresh. */
    if (put_at <= 0 || put_at > 1e30) return r;
    lags[nlags++] = seen - put_at;
    ERR(ncmpi_get_vara_schar_all(ncid, 0, start, count, buf));
    if (buf[0] != (r & 0x7f) || buf[size - 1] != (r & 0x7f)) {
      fprintf(stderr, "rank %d: torn record %d\n", rank, r);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  return to;
}

static void run(const char *mode, MPI_Offset size) {
  char path[1200], lockpath[1300];
  snprintf(path, sizeof path, "%s/swmr_bench_%s.nc", dir, mode);
  snprintf(lockpath, sizeof lockpath, "%s.lock", path);
  const int timer = strcmp(mode, "timer") == 0;
  const int swmr = strcmp(mode, "swmr") == 0 || timer, lock = strcmp(mode, "lock") == 0;
  nlags = 0;
  signed char *buf = malloc((size_t)size);
  double wtime = 0, rlat = 0, bytes = 0;
  long long nrefresh = 0;
  if (rank == 0) create(path, EXA_FORMAT_PARTITIONED | (swmr ? EXA_SWMR_WRITE : 0), size);
  MPI_Barrier(MPI_COMM_WORLD);
  const int readers = strcmp(mode, "off") != 0;
  if (rank == 0) {
    int lfd = open(lockpath, O_CREAT | O_RDWR, 0644), ncid = -1;
    MPI_Offset put0 = 0, put1 = 0;
    double t0 = MPI_Wtime();
    MPI_Info info;
    MPI_Info_create(&info);
    if (timer) MPI_Info_set(info, "exa_swmr_commit_interval", interval);
    ERR(ncmpi_open(MPI_COMM_SELF, path, NC_WRITE | (swmr ? EXA_SWMR_WRITE : 0), info, &ncid));
    MPI_Info_free(&info);
    ERR(ncmpi_inq_put_size(ncid, &put0));
    for (int rec = 0; rec < appends; rec++) {
      if (lock) {
        flock(lfd, LOCK_EX);
        put(ncid, rec, size, buf);
        ERR(ncmpi_sync(ncid));
        flock(lfd, LOCK_UN);
      } else if (timer) {
        put(ncid, rec, size, buf); /* committed by the timer */
      } else {
        put(ncid, rec, size, buf);
        ERR(ncmpi_sync(ncid));
      }
    }
    if (timer) ERR(ncmpi_sync(ncid)); /* the last records */
    ERR(ncmpi_inq_put_size(ncid, &put1));
    ERR(ncmpi_close(ncid));
    wtime = MPI_Wtime() - t0;
    bytes = (double)(put1 - put0) / appends;
    close(lfd);
  } else if (readers && rank <= 3) {
    int lfd = open(lockpath, O_CREAT | O_RDWR, 0644), ncid = -1, seen = 0;
    MPI_Offset n = 0;
    if (swmr) ERR(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE | EXA_SWMR_READ, MPI_INFO_NULL, &ncid));
    while (seen < appends) {
      double t = MPI_Wtime();
      if (swmr) {
        ERR(exa_refresh(ncid));
        ERR(ncmpi_inq_dimlen(ncid, 0, &n));
      } else {
        flock(lfd, LOCK_SH);
        ERR(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
        ERR(ncmpi_inq_dimlen(ncid, 0, &n));
      }
      rlat += MPI_Wtime() - t;
      nrefresh++;
      seen = read_new(ncid, seen, (int)n, size, buf);
      if (!swmr) {
        ERR(ncmpi_close(ncid));
        flock(lfd, LOCK_UN);
      }
      if (seen < appends) usleep(200);
    }
    if (swmr) ERR(ncmpi_close(ncid));
    close(lfd);
  }
  /* lag percentiles over every record every reader saw */
  int total = 0;
  MPI_Reduce(&nlags, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  int *counts = malloc(sizeof(int) * (size_t)nprocs), *displs = malloc(sizeof(int) * (size_t)nprocs);
  MPI_Gather(&nlags, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double *all = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
  if (rank == 0)
    for (int i = 0, at = 0; i < nprocs; i++) {
      displs[i] = at;
      at += counts[i];
    }
  MPI_Gatherv(lags, nlags, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double p50 = 0, p99 = 0;
  if (rank == 0 && total > 0) {
    qsort(all, (size_t)total, sizeof(double), cmp_double);
    p50 = all[(size_t)(0.50 * (total - 1))];
    p99 = all[(size_t)(0.99 * (total - 1))];
  }
  free(all);
  free(counts);
  free(displs);
  double lat_sum = 0, nref_sum = 0, nref = (double)nrefresh;
  MPI_Reduce(&rlat, &lat_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&nref, &nref_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("{\"mode\": \"%s\", \"size\": %lld, \"appends\": %d, \"writer_s\": %.6f, \"writer_MBps\": %.3f, "
           "\"refresh_ms\": %.4f, \"refreshes\": %.0f, \"bytes_per_commit\": %.0f, \"lag_p50_ms\": %.3f, "
           "\"lag_p99_ms\": %.3f%s%s}\n",
           mode, (long long)size, appends, wtime, size * (double)appends / wtime / 1e6,
           nref_sum > 0 ? 1e3 * lat_sum / nref_sum : 0.0, nref_sum, bytes, 1e3 * p50, 1e3 * p99,
           timer ? ", \"commit_interval_s\": " : "", timer ? interval : "");
  fflush(stdout);
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
  lags = malloc(sizeof(double) * (size_t)appends);
  for (MPI_Offset size = 1024; size <= maxsize; size *= 16) {
    run("off", size);
    run("swmr", size);
    run("timer", size);
    run("lock", size);
  }
  MPI_Finalize();
  return 0;
}
