/*
 * mpi_calls_count.c -- a PMPI interposition library (LD_PRELOAD) that counts
 * the collective, file-open and file-sync MPI calls a whole program makes,
 * whatever library makes them (issue 21: what a checkpoint costs in MPI calls,
 * exacdf against the MPI-IO and HDF5 writers of examples/tc).
 *
 * Build:  mpicc -shared -fPIC -O2 bench/mpi_calls_count.c -o libmpi_calls_count.so
 * Use:    mpiexec -x LD_PRELOAD=$PWD/libmpi_calls_count.so ./prog ...
 * At MPI_Finalize every rank prints one line to stderr:
 *   mpi_calls rank=R barrier=.. bcast=.. allreduce=.. ... file_open=.. file_sync=..
 * (see bench/mpiio_count.c for why a preloaded MPI_* definition interposes
 * in Open MPI: its MPI_* symbols are weak over the PMPI_* ones). MPI-IO's own
 * internal collectives (OMPIO calls the PMPI_/internal entry points) are not
 * counted: these are the calls the program and its I/O library make.
 */
#include <mpi.h>
#include <stdio.h>

enum { BARRIER, BCAST, ALLREDUCE, REDUCE, EXSCAN, SCAN, GATHER, GATHERV, ALLGATHER, ALLTOALL,
       ALLTOALLV, COMM_DUP, COMM_SPLIT, FILE_OPEN, FILE_CLOSE, FILE_SYNC, FILE_SET_VIEW,
       FILE_WRITE_ALL, FILE_WRITE, NKINDS };
static const char *names[NKINDS] = {"barrier", "bcast", "allreduce", "reduce", "exscan", "scan",
                                    "gather", "gatherv", "allgather", "alltoall", "alltoallv",
                                    "comm_dup", "comm_split", "file_open", "file_close", "file_sync",
                                    "file_set_view", "file_write_all", "file_write"};
static long long counts[NKINDS];

int MPI_Barrier(MPI_Comm c) { counts[BARRIER]++; return PMPI_Barrier(c); }
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  counts[BCAST]++;
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  counts[ALLREDUCE]++;
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  counts[REDUCE]++;
  return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  counts[EXSCAN]++;
  return PMPI_Exscan(s, r, n, t, op, c);
}
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  counts[SCAN]++;
  return PMPI_Scan(s, r, n, t, op, c);
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c) {
  counts[GATHER]++;
  return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[],
                MPI_Datatype rt, int root, MPI_Comm c) {
  counts[GATHERV]++;
  return PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  counts[ALLGATHER]++;
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  counts[ALLTOALL]++;
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[],
                  const int rd[], MPI_Datatype rt, MPI_Comm c) {
  counts[ALLTOALLV]++;
  return PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) { counts[COMM_DUP]++; return PMPI_Comm_dup(c, n); }
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) {
  counts[COMM_SPLIT]++;
  return PMPI_Comm_split(c, color, key, n);
}
int MPI_File_open(MPI_Comm c, const char *path, int mode, MPI_Info info, MPI_File *fh) {
  counts[FILE_OPEN]++;
  return PMPI_File_open(c, path, mode, info, fh);
}
int MPI_File_close(MPI_File *fh) { counts[FILE_CLOSE]++; return PMPI_File_close(fh); }
int MPI_File_sync(MPI_File fh) { counts[FILE_SYNC]++; return PMPI_File_sync(fh); }
int MPI_File_set_view(MPI_File fh, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *rep,
                      MPI_Info info) {
  counts[FILE_SET_VIEW]++;
  return PMPI_File_set_view(fh, d, e, f, rep, info);
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[FILE_WRITE_ALL]++;
  return PMPI_File_write_at_all(fh, o, b, n, t, s);
}
int MPI_File_write_all(MPI_File fh, const void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[FILE_WRITE_ALL]++;
  return PMPI_File_write_all(fh, b, n, t, s);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[FILE_WRITE]++;
  return PMPI_File_write_at(fh, o, b, n, t, s);
}

int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char line[1024];
  int len = snprintf(line, sizeof line, "mpi_calls rank=%d", rank);
  for (int k = 0; k < NKINDS && len < (int)sizeof line; k++)
    len += snprintf(line + len, sizeof line - (size_t)len, " %s=%lld", names[k], counts[k]);
  fprintf(stderr, "%s\n", line);
  return PMPI_Finalize();
}
