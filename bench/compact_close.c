/*
 * compact_close.c -- issue 16 item 5: what ncmpi_close costs for a partitioned
 * file of many compact variables.
 *
 * Phase 1: each rank defines its share of NVARS variables (independent define
 * mode, PER_BLOCK variables of ELEMS ints per block "/b<k>/v<j>"), enddef, writes
 * every one of its variables once (independent puts), closes. Phase 2: reopen,
 * rank 0 changes one variable, close (--changes N: N times, a different
 * block each time). Prints per phase the max over ranks of
 * the define / enddef / put / close wall times, this process's CPU time of
 * the close, the metadata blocks and bytes the close wrote and the
 * metadata bytes it read (exa_debug_* counters, summed over ranks), and the
 * peak RSS (max over ranks) before the first close and after it.
 *
 *   mpicc -O2 bench/compact_close.c -Iinclude -Lbuild -lexacdf -Wl,-rpath,$PWD/build
 *   mpiexec -n 2 ./a.out --nvars 1000000 --per-block 16 --out /tmp/cc.nc
 */
#include <exacdf.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define ELEMS 4

/* Weak: the same program built against a library without this counter
 * (an earlier exacdf, for before/after pairs) prints -1. */
#pragma weak exa_debug_metadata_bytes_read
static long long meta_read(void) { return exa_debug_metadata_bytes_read ? exa_debug_metadata_bytes_read() : -1; }

static int rank, nprocs;

#define ERR(call)                                                                          \
  do {                                                                                     \
    int e_ = (call);                                                                       \
    if (e_ != NC_NOERR) {                                                                  \
      fprintf(stderr, "rank %d: %s:%d: %s\n", rank, __FILE__, __LINE__, ncmpi_strerror(e_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                        \
    }                                                                                      \
  } while (0)

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double max_all(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static long long sum_all(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static long maxrss_mib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long m = ru.ru_maxrss / 1024, all = 0;
  MPI_Allreduce(&m, &all, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  long long nvars = 1000000;
  int per_block = 16, keep = 0, changes = 1;
  const char *out = "compact_close.nc";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--nvars") && i + 1 < argc) nvars = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--per-block") && i + 1 < argc) per_block = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--keep")) keep = 1;
    else if (!strcmp(argv[i], "--changes") && i + 1 < argc) changes = atoi(argv[++i]);
  }
  const long long nblocks = (nvars + per_block - 1) / per_block;
  const long long b0 = nblocks * rank / nprocs, b1 = nblocks * (rank + 1) / nprocs;

  /* Phase 1: create, write every variable once, close. */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int ncid, dim, v, first = -1, nmine = 0;
  ERR(ncmpi_create(MPI_COMM_WORLD, out, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_INDEP_DEFINE, MPI_INFO_NULL,
                   &ncid));
  char name[64];
  for (long long b = b0; b < b1; b++) {
    snprintf(name, sizeof name, "/b%08lld/n", b);
    ERR(ncmpi_def_dim(ncid, name, ELEMS, &dim));
    for (int j = 0; j < per_block && b * per_block + j < nvars; j++) {
      snprintf(name, sizeof name, "/b%08lld/v%02d", b, j);
      ERR(ncmpi_def_var(ncid, name, NC_INT, 1, &dim, &v));
      if (first < 0) first = v;
      nmine++;
    }
  }
  double t1 = MPI_Wtime();
  ERR(ncmpi_enddef(ncid));
  double t2 = MPI_Wtime();
  ERR(ncmpi_begin_indep_data(ncid));
  int vals[ELEMS];
  for (int k = 0; k < nmine; k++) {
    for (int e = 0; e < ELEMS; e++) vals[e] = k * ELEMS + e;
    ERR(ncmpi_put_var_int(ncid, first + k, vals));
  }
  ERR(ncmpi_end_indep_data(ncid));
  double t3 = MPI_Wtime();
  long rss_before_close = maxrss_mib();
  long long blocks0 = exa_debug_blocks_written(), bytes0 = exa_debug_metadata_bytes_written(), read0 = meta_read();
  double c0 = cpu_now();
  ERR(ncmpi_close(ncid));
  double c1 = cpu_now();
  double t4 = MPI_Wtime();
  long long blocks = sum_all(exa_debug_blocks_written() - blocks0);
  long long bytes = sum_all(exa_debug_metadata_bytes_written() - bytes0);
  long long read = read0 < 0 ? -1 : sum_all(meta_read() - read0);
  double close_cpu = max_all(c1 - c0);
  double tdef = max_all(t1 - t0), tend = max_all(t2 - t1), tput = max_all(t3 - t2), tclose = max_all(t4 - t3);
  long rss = maxrss_mib();
  if (rank == 0)
    printf("RESULT phase=write_all ranks=%d nvars=%lld per_block=%d blocks=%lld define_s=%.3f enddef_s=%.3f "
           "put_s=%.3f close_s=%.3f close_cpu_s=%.3f close_blocks=%lld close_meta_bytes=%lld close_meta_read=%lld "
           "maxrss_before_close_mib=%ld maxrss_mib=%ld\n",
           nprocs, nvars, per_block, nblocks, tdef, tend, tput, tclose, close_cpu, blocks, bytes, read,
           rss_before_close, rss);

  /* Phase 2 (--changes times): reopen, change one variable, close. */
  for (int c = 0; c < changes; c++) {
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  ERR(ncmpi_open(MPI_COMM_WORLD, out, NC_WRITE, MPI_INFO_NULL, &ncid));
  t1 = MPI_Wtime();
  ERR(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    snprintf(name, sizeof name, "/b%08lld/v%02d", (nblocks / 2 + 997LL * c) % nblocks, 0);
    ERR(ncmpi_inq_varid(ncid, name, &v));
    for (int e = 0; e < ELEMS; e++) vals[e] = -1 - e;
    ERR(ncmpi_put_var_int(ncid, v, vals));
  }
  ERR(ncmpi_end_indep_data(ncid));
  t2 = MPI_Wtime();
  blocks0 = exa_debug_blocks_written();
  bytes0 = exa_debug_metadata_bytes_written();
  read0 = meta_read();
  c0 = cpu_now();
  ERR(ncmpi_close(ncid));
  c1 = cpu_now();
  t3 = MPI_Wtime();
  blocks = sum_all(exa_debug_blocks_written() - blocks0);
  bytes = sum_all(exa_debug_metadata_bytes_written() - bytes0);
  read = read0 < 0 ? -1 : sum_all(meta_read() - read0);
  close_cpu = max_all(c1 - c0);
  double topen = max_all(t1 - t0);
  tput = max_all(t2 - t1);
  tclose = max_all(t3 - t2);
  if (rank == 0)
    printf("RESULT phase=change_one ranks=%d nvars=%lld per_block=%d blocks=%lld open_s=%.3f put_s=%.3f "
           "close_s=%.3f close_cpu_s=%.3f close_blocks=%lld close_meta_bytes=%lld close_meta_read=%lld\n",
           nprocs, nvars, per_block, nblocks, topen, tput, tclose, close_cpu, blocks, bytes, read);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && !keep) unlink(out);
  MPI_Finalize();
  return 0;
}
