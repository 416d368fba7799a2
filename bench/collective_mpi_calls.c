/*
 * collective_mpi_calls.c -- MPI calls per collective put/get, counted by
 * PMPI interposition in the program itself (link with -rdynamic so the
 * wrappers below also catch the calls libexacdf or libpnetcdf make).
 *
 * Build against either library (see bench/run_collective_mpi_calls.sh):
 *   mpicc -O2 -rdynamic bench/collective_mpi_calls.c -o calls -lpnetcdf
 * Run:   mpiexec -n 2 ./calls /tmp/dir
 * Prints, on rank 0, the MPI calls rank 0 made per call: put_vara_all and
 * get_vara_all of a fixed-size and of a record variable (each rank its own
 * part; the record puts append a record each time), independent put/get, and
 * an iput followed by ncmpi_wait_all.
 * Counted: the collectives, point-to-point, communicator duplication and the
 * MPI-IO calls a data call may make (a file open: a handle opened on first
 * use); local calls (datatypes) are not.
 *
 * First, the life of a small classic file phase by phase (rank 0's calls):
 * create, define (2 dims, 2 vars, an attribute), enddef, put_vara_all, close;
 * then open, inq_varid, get_vara_all, close; once with a fixed-size variable
 * only and once with a record variable too ("lifecycle" lines; "coll" is the
 * number of collective calls of the phase: every kind but p2p, independent
 * I/O, get_size and comm_free).
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALLREDUCE, BCAST, BARRIER, ALLGATHER, ALLTOALL, GATHER, P2P, COMMDUP, FILEOPEN, SETVIEW, FILEIO_COLL, FILEIO_INDEP,
       FILECLOSE, SETSIZE, FILESYNC, GETSIZE, COMMFREE, NKINDS };
static const char *kind_name[NKINDS] = {"allreduce", "bcast", "barrier", "allgather(v)", "alltoall(v)",
                                        "(all)gather/reduce", "p2p", "comm_dup", "file_open", "set_view", "io_all", "io_indep",
                                        "file_close", "set_size", "sync", "get_size", "comm_free"};
/* Kinds that are not collective calls (the lifecycle's "coll" leaves them out). */
static int local_kind(int k) { return k == P2P || k == FILEIO_INDEP || k == GETSIZE || k == COMMFREE; }
static long long counts[NKINDS];

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
  counts[ALLREDUCE]++;
  return PMPI_Allreduce(s, r, n, t, o, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  counts[BCAST]++;
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Barrier(MPI_Comm c) {
  counts[BARRIER]++;
  return PMPI_Barrier(c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  counts[ALLGATHER]++;
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d, MPI_Datatype rt,
                   MPI_Comm c) {
  counts[ALLGATHER]++;
  return PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  counts[ALLTOALL]++;
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn,
                  const int *rd, MPI_Datatype rt, MPI_Comm c) {
  counts[ALLTOALL]++;
  return PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c) {
  counts[GATHER]++;
  return PMPI_Reduce(s, r, n, t, o, root, c);
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
  counts[GATHER]++;
  return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  counts[P2P]++;
  return PMPI_Send(b, n, t, d, tag, c);
}
int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st) {
  counts[P2P]++;
  return PMPI_Recv(b, n, t, s, tag, c, st);
}
int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r) {
  counts[P2P]++;
  return PMPI_Isend(b, n, t, d, tag, c, r);
}
int MPI_Irecv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request *r) {
  counts[P2P]++;
  return PMPI_Irecv(b, n, t, s, tag, c, r);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) {
  counts[COMMDUP]++;
  return PMPI_Comm_dup(c, n);
}
int MPI_File_open(MPI_Comm c, const char *name, int amode, MPI_Info info, MPI_File *fh) {
  counts[FILEOPEN]++;
  return PMPI_File_open(c, name, amode, info, fh);
}
int MPI_File_close(MPI_File *fh) {
  counts[FILECLOSE]++;
  return PMPI_File_close(fh);
}
int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  counts[SETSIZE]++;
  return PMPI_File_set_size(fh, size);
}
int MPI_File_sync(MPI_File fh) {
  counts[FILESYNC]++;
  return PMPI_File_sync(fh);
}
int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
  counts[GETSIZE]++;
  return PMPI_File_get_size(fh, size);
}
int MPI_Comm_free(MPI_Comm *c) {
  counts[COMMFREE]++;
  return PMPI_Comm_free(c);
}
int MPI_File_set_view(MPI_File fh, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *rep, MPI_Info i) {
  counts[SETVIEW]++;
  return PMPI_File_set_view(fh, d, e, f, rep, i);
}
#define IO(NAME, K, CONST)                                                                          \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset o, CONST void *b, int n, MPI_Datatype t, MPI_Status *s) { \
    counts[K]++;                                                                                    \
    return PMPI_File_##NAME(fh, o, b, n, t, s);                                                     \
  }
IO(write_at_all, FILEIO_COLL, const)
IO(read_at_all, FILEIO_COLL, )
IO(write_at, FILEIO_INDEP, const)
IO(read_at, FILEIO_INDEP, )
#define IO2(NAME, K, CONST)                                                             \
  int MPI_File_##NAME(MPI_File fh, CONST void *b, int n, MPI_Datatype t, MPI_Status *s) { \
    counts[K]++;                                                                        \
    return PMPI_File_##NAME(fh, b, n, t, s);                                            \
  }
IO2(write_all, FILEIO_COLL, const)
IO2(read_all, FILEIO_COLL, )
IO2(write, FILEIO_INDEP, const)
IO2(read, FILEIO_INDEP, )

#define REPS 20
#define PER 1024

/* The lifecycle's phases, their calls by kind on this rank. */
enum { PH_CREATE, PH_DEFINE, PH_ENDDEF, PH_PUT, PH_CLOSE_W, PH_OPEN, PH_INQ, PH_GET, PH_CLOSE_R, NPHASES };
static const char *phase_name[NPHASES] = {"create", "def_dim/var/att", "enddef", "put_vara_all", "close",
                                          "open", "inq_varid", "get_vara_all", "close (read)"};

static void print_phase(const char *label, const char *name, const long long *c) {
  long long coll = 0;
  char detail[512] = "";
  for (int k = 0; k < NKINDS; ++k) {
    if (!c[k]) continue;
    if (!local_kind(k)) coll += c[k];
    char one[64];
    snprintf(one, sizeof one, "%s%s %lld", detail[0] ? ", " : "", kind_name[k], c[k]);
    strncat(detail, one, sizeof detail - strlen(detail) - 1);
  }
  printf("lifecycle %-6s %-16s coll %2lld | %s\n", label, name, coll, detail[0] ? detail : "-");
}

/* create .. close and open .. close of a small file (a fixed-size variable,
 * and a record variable when `record`), each phase counted apart. */
static int lifecycle(const char *dir, int record, int rank, int nprocs) {
  long long per[NPHASES][NKINDS], mark[NKINDS];
  char path[1024];
  snprintf(path, sizeof path, "%s/lifecycle_%d.nc", dir, record);
  static int buf[PER];
  int ncid, dims[2], var, errors = 0, ph = 0;
  MPI_Offset start[2] = {0, (MPI_Offset)PER * rank}, count[2] = {1, PER};
#define PHASE(CALLS)                                            \
  do {                                                          \
    memcpy(mark, counts, sizeof counts);                        \
    CALLS;                                                      \
    for (int k = 0; k < NKINDS; ++k) per[ph][k] = counts[k] - mark[k]; \
    ++ph;                                                       \
  } while (0)
  if (rank == 0) remove(path); /* a new file (an existing one is truncated: PnetCDF's rank 0 by POSIX calls) */
  MPI_Barrier(MPI_COMM_WORLD);
  PHASE(errors += ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) != NC_NOERR);
  PHASE({
    errors += ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]) != NC_NOERR;
    errors += ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]) != NC_NOERR;
    errors += ncmpi_def_var(ncid, "v", NC_INT, record ? 2 : 1, record ? dims : &dims[1], &var) != NC_NOERR;
    errors += ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 9, "lifecycle") != NC_NOERR;
  });
  PHASE(errors += ncmpi_enddef(ncid) != NC_NOERR);
  PHASE(errors += ncmpi_put_vara_int_all(ncid, var, record ? start : &start[1], record ? count : &count[1], buf) !=
                  NC_NOERR);
  PHASE(errors += ncmpi_close(ncid) != NC_NOERR);
  PHASE(errors += ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid) != NC_NOERR);
  PHASE(errors += ncmpi_inq_varid(ncid, "v", &var) != NC_NOERR);
  PHASE(errors += ncmpi_get_vara_int_all(ncid, var, record ? start : &start[1], record ? count : &count[1], buf) !=
                  NC_NOERR);
  PHASE(errors += ncmpi_close(ncid) != NC_NOERR);
#undef PHASE
  if (rank == 0) {
    long long total[NKINDS] = {0};
    for (int p = 0; p < NPHASES; ++p) {
      print_phase(record ? "record" : "fixed", phase_name[p], per[p]);
      for (int k = 0; k < NKINDS; ++k) total[k] += per[p][k];
    }
    print_phase(record ? "record" : "fixed", "TOTAL", total);
  }
  return errors;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs, ncid, dims[2], fixed, rec;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char path[1024];
  snprintf(path, sizeof path, "%s/collective_mpi_calls.nc", argc > 1 ? argv[1] : ".");
  int lifecycle_errors = lifecycle(argc > 1 ? argv[1] : ".", 0, rank, nprocs);
  lifecycle_errors += lifecycle(argc > 1 ? argv[1] : ".", 1, rank, nprocs);
  if (lifecycle_errors) printf("rank %d: lifecycle errors: %d\n", rank, lifecycle_errors);
  if (getenv("LIFECYCLE_ONLY")) {
    MPI_Finalize();
    return lifecycle_errors != 0;
  }
  static int buf[PER];
  for (int i = 0; i < PER; ++i) buf[i] = i + rank;
  if (ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) != NC_NOERR) return 1;
  ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]);
  ncmpi_def_dim(ncid, "x", (MPI_Offset)PER * nprocs, &dims[1]);
  ncmpi_def_var(ncid, "fixed", NC_INT, 1, &dims[1], &fixed);
  ncmpi_def_var(ncid, "rec", NC_INT, 2, dims, &rec);
  ncmpi_enddef(ncid);
  /* Cases 0-3: the collective calls; 4-5: independent (in independent data
   * mode, entered and left outside the count); 6-7: one iput each, then
   * ncmpi_wait_all (records appended past case 1's). */
  enum { NCASES = 8 };
  const char *names[NCASES] = {"put_vara_all fixed", "put_vara_all record", "get_vara_all fixed",
                               "get_vara_all record", "put_vara indep fixed", "get_vara indep fixed",
                               "iput+wait_all fixed", "iput+wait_all record"};
  long long per_case[NCASES][NKINDS];
  int errors = 0;
  for (int c = 0; c < NCASES; ++c) {
    if (c == 4) errors += ncmpi_begin_indep_data(ncid) != NC_NOERR;
    if (c == 6) errors += ncmpi_end_indep_data(ncid) != NC_NOERR;
    long long before[NKINDS];
    memcpy(before, counts, sizeof counts);
    for (int k = 0; k < REPS; ++k) {
      MPI_Offset start[2] = {k, (MPI_Offset)PER * rank}, count[2] = {1, PER};
      int err = NC_NOERR, req, status;
      if (c == 7) start[0] += REPS;
      switch (c) {
        case 0: err = ncmpi_put_vara_int_all(ncid, fixed, &start[1], &count[1], buf); break;
        case 1: err = ncmpi_put_vara_int_all(ncid, rec, start, count, buf); break;
        case 2: err = ncmpi_get_vara_int_all(ncid, fixed, &start[1], &count[1], buf); break;
        case 3: err = ncmpi_get_vara_int_all(ncid, rec, start, count, buf); break;
        case 4: err = ncmpi_put_vara_int(ncid, fixed, &start[1], &count[1], buf); break;
        case 5: err = ncmpi_get_vara_int(ncid, fixed, &start[1], &count[1], buf); break;
        default:
          err = c == 6 ? ncmpi_iput_vara_int(ncid, fixed, &start[1], &count[1], buf, &req)
                       : ncmpi_iput_vara_int(ncid, rec, start, count, buf, &req);
          if (err == NC_NOERR) err = ncmpi_wait_all(ncid, 1, &req, &status);
          if (err == NC_NOERR) err = status;
      }
      errors += err != NC_NOERR;
    }
    for (int k = 0; k < NKINDS; ++k) per_case[c][k] = counts[k] - before[k];
  }
  ncmpi_close(ncid);
  if (rank == 0) {
    printf("%-22s", "per call (rank 0)");
    for (int k = 0; k < NKINDS; ++k) printf(" %s", kind_name[k]);
    printf(" | total\n");
    for (int c = 0; c < NCASES; ++c) {
      long long total = 0;
      printf("%-22s", names[c]);
      for (int k = 0; k < NKINDS; ++k) {
        printf(" %.2f", (double)per_case[c][k] / REPS);
        total += per_case[c][k];
      }
      printf(" | %.2f\n", (double)total / REPS);
    }
    if (errors) printf("errors: %d\n", errors);
  }
  MPI_Finalize();
  return errors != 0;
}
