/*
 * mpiio_count.c -- a tiny PMPI interposition library that counts the MPI-IO
 * data-transfer calls a process makes, whatever library makes them.
 *
 * Build:  mpicc -shared -fPIC -O2 bench/mpiio_count.c -o libmpiio_count.so
 * Use:    mpiexec -x LD_PRELOAD=/path/libmpiio_count.so ...   (or export LD_PRELOAD)
 *
 * Open MPI's libmpi defines every MPI_File_* as a weak symbol over the strong
 * PMPI_File_* (check: `nm -D libmpi.so.40 | grep File_write_all` shows W and T),
 * so a definition of MPI_File_write_all in a preloaded object interposes for
 * every caller -- the benchmark, libexacdf and libpnetcdf alike -- and we
 * forward to PMPI_File_write_all.  The MPI-IO implementation (OMPIO/ROMIO)
 * does not call the MPI_File_* entry points internally, so nothing is counted
 * twice.  (Open MPI's Fortran bindings also call the PMPI_ or C symbols; no
 * Fortran code is involved here.)
 *
 * Counted: MPI_File_{write,read}{,_all,_at,_at_all,_shared,_ordered},
 * the split-collective _begin forms (the _end is not counted again), and the
 * nonblocking MPI_File_{iwrite,iread}{,_all,_at,_at_all,_shared}.  One call
 * counts once on the rank that made it (a collective counts once per rank).
 *
 * Results:
 *  - int mpiio_count_get(long long out[MPIIO_COUNT_N]) -- the counters so far,
 *    for a program that finds it with dlsym(RTLD_DEFAULT, "mpiio_count_get");
 *    returns MPIIO_COUNT_N.  Order: write_indep, write_coll, read_indep,
 *    read_coll, write_nb, read_nb (nb = iwrite/iread, also in the first four).
 *  - at MPI_Finalize, if MPIIO_COUNT_REPORT is set: "stderr" prints one line
 *    per rank to stderr; any other value is a path prefix, each rank appends a
 *    line to <prefix>.<rank>.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W_INDEP, W_COLL, R_INDEP, R_COLL, W_NB, R_NB, MPIIO_COUNT_N };
static long long counts[MPIIO_COUNT_N];

int mpiio_count_get(long long out[MPIIO_COUNT_N]) {
  memcpy(out, counts, sizeof counts);
  return MPIIO_COUNT_N;
}

/* ---- writes ---------------------------------------------------------------- */
#define WR_PLAIN(NAME, K)                                                               \
  int MPI_File_##NAME(MPI_File fh, const void *buf, int count, MPI_Datatype type,       \
                      MPI_Status *st) {                                                 \
    counts[K]++;                                                                        \
    return PMPI_File_##NAME(fh, buf, count, type, st);                                  \
  }
#define WR_AT(NAME, K)                                                                  \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset off, const void *buf, int count,          \
                      MPI_Datatype type, MPI_Status *st) {                              \
    counts[K]++;                                                                        \
    return PMPI_File_##NAME(fh, off, buf, count, type, st);                             \
  }
#define WR_IPLAIN(NAME, K)                                                              \
  int MPI_File_##NAME(MPI_File fh, const void *buf, int count, MPI_Datatype type,       \
                      MPI_Request *rq) {                                                \
    counts[K]++;                                                                        \
    counts[W_NB]++;                                                                     \
    return PMPI_File_##NAME(fh, buf, count, type, rq);                                  \
  }
#define WR_IAT(NAME, K)                                                                 \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset off, const void *buf, int count,          \
                      MPI_Datatype type, MPI_Request *rq) {                             \
    counts[K]++;                                                                        \
    counts[W_NB]++;                                                                     \
    return PMPI_File_##NAME(fh, off, buf, count, type, rq);                             \
  }
WR_PLAIN(write, W_INDEP)
WR_PLAIN(write_all, W_COLL)
WR_PLAIN(write_shared, W_INDEP)
WR_PLAIN(write_ordered, W_COLL)
WR_AT(write_at, W_INDEP)
WR_AT(write_at_all, W_COLL)
WR_IPLAIN(iwrite, W_INDEP)
WR_IPLAIN(iwrite_all, W_COLL)
WR_IPLAIN(iwrite_shared, W_INDEP)
WR_IAT(iwrite_at, W_INDEP)
WR_IAT(iwrite_at_all, W_COLL)

int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type) {
  counts[W_COLL]++;
  return PMPI_File_write_all_begin(fh, buf, count, type);
}
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset off, const void *buf, int count,
                                MPI_Datatype type) {
  counts[W_COLL]++;
  return PMPI_File_write_at_all_begin(fh, off, buf, count, type);
}
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type) {
  counts[W_COLL]++;
  return PMPI_File_write_ordered_begin(fh, buf, count, type);
}

/* ---- reads ----------------------------------------------------------------- */
#define RD_PLAIN(NAME, K)                                                               \
  int MPI_File_##NAME(MPI_File fh, void *buf, int count, MPI_Datatype type,             \
                      MPI_Status *st) {                                                 \
    counts[K]++;                                                                        \
    return PMPI_File_##NAME(fh, buf, count, type, st);                                  \
  }
#define RD_AT(NAME, K)                                                                  \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset off, void *buf, int count,                \
                      MPI_Datatype type, MPI_Status *st) {                              \
    counts[K]++;                                                                        \
    return PMPI_File_##NAME(fh, off, buf, count, type, st);                             \
  }
#define RD_IPLAIN(NAME, K)                                                              \
  int MPI_File_##NAME(MPI_File fh, void *buf, int count, MPI_Datatype type,             \
                      MPI_Request *rq) {                                                \
    counts[K]++;                                                                        \
    counts[R_NB]++;                                                                     \
    return PMPI_File_##NAME(fh, buf, count, type, rq);                                  \
  }
#define RD_IAT(NAME, K)                                                                 \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset off, void *buf, int count,                \
                      MPI_Datatype type, MPI_Request *rq) {                             \
    counts[K]++;                                                                        \
    counts[R_NB]++;                                                                     \
    return PMPI_File_##NAME(fh, off, buf, count, type, rq);                             \
  }
RD_PLAIN(read, R_INDEP)
RD_PLAIN(read_all, R_COLL)
RD_PLAIN(read_shared, R_INDEP)
RD_PLAIN(read_ordered, R_COLL)
RD_AT(read_at, R_INDEP)
RD_AT(read_at_all, R_COLL)
RD_IPLAIN(iread, R_INDEP)
RD_IPLAIN(iread_all, R_COLL)
RD_IPLAIN(iread_shared, R_INDEP)
RD_IAT(iread_at, R_INDEP)
RD_IAT(iread_at_all, R_COLL)

int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype type) {
  counts[R_COLL]++;
  return PMPI_File_read_all_begin(fh, buf, count, type);
}
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset off, void *buf, int count,
                               MPI_Datatype type) {
  counts[R_COLL]++;
  return PMPI_File_read_at_all_begin(fh, off, buf, count, type);
}
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype type) {
  counts[R_COLL]++;
  return PMPI_File_read_ordered_begin(fh, buf, count, type);
}

/* ---- report ---------------------------------------------------------------- */
int MPI_Finalize(void) {
  const char *rep = getenv("MPIIO_COUNT_REPORT");
  if (rep && *rep) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char line[256];
    snprintf(line, sizeof line,
             "MPIIO_COUNT rank=%d write_indep=%lld write_coll=%lld read_indep=%lld "
             "read_coll=%lld write_nb=%lld read_nb=%lld\n",
             rank, counts[W_INDEP], counts[W_COLL], counts[R_INDEP], counts[R_COLL],
             counts[W_NB], counts[R_NB]);
    if (strcmp(rep, "stderr") == 0) {
      fputs(line, stderr);
    } else {
      char path[4096];
      snprintf(path, sizeof path, "%s.%d", rep, rank);
      FILE *f = fopen(path, "a");
      if (f) {
        fputs(line, f);
        fclose(f);
      }
    }
  }
  return PMPI_Finalize();
}
