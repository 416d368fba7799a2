/* The collective MPI calls of a small classic file's life, counted by PMPI
 * interposition in this program (linked with ENABLE_EXPORTS, so libexacdf's
 * calls resolve to the wrappers below): create, define, enddef,
 * put_vara_all, close, then open, get_vara_all, close. With more than one
 * rank exacdf makes no more of them than PnetCDF 1.12.3 outside safe mode
 * (docs/perf/collective_mpi_calls.md, bench/run_collective_mpi_calls.sh),
 * phase by phase: each agreement it needs is merged into one message. On
 * one rank it makes no agreement at all. The counts are exact (a regression
 * shows as a failure with the calls of the phase printed). The values
 * written are read back, and an inconsistent mode and a bad stack still fail
 * where they must (their full checks: test_mode_consistency,
 * test_connector_stack). */
#include <stdlib.h>

#include "exacdf.h"
#include "mpi_test.h"

enum { ALLREDUCE, BCAST, BARRIER, ALLGATHER, ALLTOALL, GATHER, COMMDUP, FILEOPEN, FILECLOSE, SETVIEW, SETSIZE,
       FILESYNC, IO_ALL, NKINDS };
static const char *kind_name[NKINDS] = {"allreduce", "bcast",    "barrier",  "allgather", "alltoall",
                                        "gather",    "comm_dup", "file_open", "file_close", "set_view",
                                        "set_size",  "sync",     "io_all"};
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
int MPI_File_set_view(MPI_File fh, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *rep, MPI_Info i) {
  counts[SETVIEW]++;
  return PMPI_File_set_view(fh, d, e, f, rep, i);
}
int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  counts[SETSIZE]++;
  return PMPI_File_set_size(fh, size);
}
int MPI_File_sync(MPI_File fh) {
  counts[FILESYNC]++;
  return PMPI_File_sync(fh);
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[IO_ALL]++;
  return PMPI_File_write_at_all(fh, o, b, n, t, s);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset o, void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[IO_ALL]++;
  return PMPI_File_read_at_all(fh, o, b, n, t, s);
}
int MPI_File_write_all(MPI_File fh, const void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[IO_ALL]++;
  return PMPI_File_write_all(fh, b, n, t, s);
}
int MPI_File_read_all(MPI_File fh, void *b, int n, MPI_Datatype t, MPI_Status *s) {
  counts[IO_ALL]++;
  return PMPI_File_read_all(fh, b, n, t, s);
}

static long long mark[NKINDS];
static void start_phase(void) { memcpy(mark, counts, sizeof counts); }

/* The calls since start_phase: each kind must be as expected (-1: any). */
static void expect_phase(const char *phase, const long long expected[NKINDS]) {
  int bad = 0;
  for (int k = 0; k < NKINDS; ++k) bad |= expected[k] >= 0 && counts[k] - mark[k] != expected[k];
  if (!bad) return;
  fprintf(stderr, "[rank %d] %s: MPI calls", mpi_test_rank, phase);
  for (int k = 0; k < NKINDS; ++k)
    if (counts[k] - mark[k] || expected[k] > 0)
      fprintf(stderr, " %s %lld (expected %lld)", kind_name[k], counts[k] - mark[k], expected[k]);
  fprintf(stderr, "\n");
  CHECK(!bad);
}

#define N 64

/* create .. close and open .. close of a file with fixed-size variables. */
static void lifecycle(int nprocs) {
  const int many = nprocs > 1;
  const char *path = mpi_test_path("lifecycle.nc");
  int ncid, dims[2], v, w, out[N], in[N];
  MPI_Offset start = (MPI_Offset)N * mpi_test_rank, count = N;
  for (int i = 0; i < N; ++i) out[i] = 1000 * mpi_test_rank + i;
  if (mpi_test_rank == 0) remove(path); /* a new file (an old one would be truncated: one agreement more) */
  MPI_Barrier(MPI_COMM_WORLD);

  /* PnetCDF: two broadcasts (rank 0's mode; rank 0's look at an existing
   * file). exacdf: one allreduce (stack, rank 0's mode), the open and
   * its duplicate communicator, one allreduce (every rank's open outcome,
   * rank 0's look at the file). */
  start_phase();
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  expect_phase("create", (long long[NKINDS]){[ALLREDUCE] = 2 * many, [COMMDUP] = 1, [FILEOPEN] = 1});
  start_phase();
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * nprocs, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &dims[1], &v));
  CHECK_OK(ncmpi_def_var(ncid, "w", NC_DOUBLE, 1, &dims[1], &w));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 9, "lifecycle"));
  expect_phase("define", (long long[NKINDS]){0});
  /* None (PnetCDF: none either): rank 0 writes the header. */
  start_phase();
  CHECK_OK(ncmpi_enddef(ncid));
  expect_phase("enddef", (long long[NKINDS]){0});
  start_phase();
  CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &start, &count, out));
  expect_phase("put_vara_all", (long long[NKINDS]){[SETVIEW] = 1, [IO_ALL] = 1});
  /* Nothing to agree at the close of a file without record variables. */
  start_phase();
  CHECK_OK(ncmpi_close(ncid));
  expect_phase("close", (long long[NKINDS]){[FILECLOSE] = 1});

  /* PnetCDF: two broadcasts (rank 0's mode, the header). exacdf: one
   * allreduce (stack, rank 0's mode), the open, one allreduce (every rank's
   * open outcome, rank 0's header: it is small). */
  start_phase();
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_phase("open", (long long[NKINDS]){[ALLREDUCE] = 2 * many, [COMMDUP] = 1, [FILEOPEN] = 1});
  CHECK_OK(ncmpi_inq_varid(ncid, "v", &v));
  start_phase();
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &start, &count, in));
  expect_phase("get_vara_all", (long long[NKINDS]){[SETVIEW] = 1, [IO_ALL] = 1});
  for (int i = 0; i < N; ++i) CHECK(in[i] == out[i]);
  char title[16] = "";
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", title));
  CHECK(memcmp(title, "lifecycle", 9) == 0);
  start_phase();
  CHECK_OK(ncmpi_close(ncid));
  expect_phase("close (read-only)", (long long[NKINDS]){[FILECLOSE] = 1});
}

/* A header larger than what the open's agreement carries comes in one
 * broadcast more, whole. */
static void large_header(int nprocs) {
  const char *path = mpi_test_path("large_header.nc");
  static char text[10000], got[10000];
  for (size_t i = 0; i < sizeof text; ++i) text[i] = (char)('a' + i % 26);
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "long", sizeof text, text));
  CHECK_OK(ncmpi_close(ncid));
  start_phase();
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  expect_phase("open (large header)",
               (long long[NKINDS]){[ALLREDUCE] = 2 * (nprocs > 1), [BCAST] = nprocs > 1, [COMMDUP] = 1, [FILEOPEN] = 1});
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "long", got));
  CHECK(memcmp(got, text, sizeof text) == 0);
  CHECK_OK(ncmpi_close(ncid));
}

/* The agreements merged are still agreements: a mode that differs from
 * rank 0's is still reported to that rank (the file made with rank 0's
 * mode), and a stack one rank cannot make still fails every rank. */
static void still_agreed(int nprocs) {
  if (nprocs == 1) return;
  const int last = mpi_test_rank == nprocs - 1;
  int ncid, fmt = -1;
  const char *path = mpi_test_path("modes.nc");
  int rc = ncmpi_create(MPI_COMM_WORLD, path, last ? NC_64BIT_DATA : NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid);
  CHECK_ERR(rc, last ? NC_EMULTIDEFINE_CMODE : NC_NOERR);
  CHECK_OK(ncmpi_inq_format(ncid, &fmt));
  CHECK(fmt == NC_FORMAT_CDF2);
  CHECK_OK(ncmpi_close(ncid));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", last ? "no_such_connector" : "passthrough");
  CHECK_ERR(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid), NC_EINVAL);
  MPI_Info_free(&info);
}

/* The first enddef agrees nothing outside safe mode: a header write that
 * fails on rank 0 is rank 0's error (PnetCDF's behaviour), and every rank
 * still leaves define mode, so the next collective call meets on every rank.
 * In safe mode every rank gets the error and stays in define mode. */
static void header_write_failure(int nprocs) {
  if (nprocs == 1) return;
  const char *path = mpi_test_path("header_fails.nc");
  int ncid, d, v, value = 7 + mpi_test_rank, got = -1;
  MPI_Offset start = mpi_test_rank, count = 1;
  for (int safe = 0; safe < 2; ++safe) {
    if (safe) setenv("PNETCDF_SAFE_MODE", "1", 1);
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "x", nprocs, &d));
    CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &d, &v));
    exa_debug_fail_write(mpi_test_rank == 0 ? 1 : 0);
    start_phase();
    const int rc = ncmpi_enddef(ncid);
    exa_debug_fail_write(0);
    if (!safe) {
      CHECK_ERR(rc, mpi_test_rank == 0 ? NC_EWRITE : NC_NOERR);
      expect_phase("enddef (failing)", (long long[NKINDS]){0});
    } else {
      CHECK_ERR(rc, NC_EWRITE);
      CHECK_OK(ncmpi_enddef(ncid)); /* still in define mode: written now */
    }
    CHECK_OK(ncmpi_put_vara_int_all(ncid, v, &start, &count, &value));
    CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &start, &count, &got));
    CHECK(got == value);
    CHECK_OK(ncmpi_close(ncid));
    if (safe) unsetenv("PNETCDF_SAFE_MODE");
  }
}

/* FLASH-IO's blocks: each rank puts one contiguous run of each variable
 * (384 KiB, then 1 MiB), in a file of at least 1 MiB of data. The ranks agree
 * in one allgather that every piece is one run and no two overlap, and each
 * writes its own: no file view, no collective MPI-IO call (one rank decides
 * alone). In a file under 1 MiB (384 KiB on one rank) the put makes
 * PnetCDF's calls and no vote. Overlapping pieces, or one rank's strided
 * piece, vote and then take the usual path. */
static void own_runs_for_contiguous_pieces(int nprocs) {
  const int many = nprocs > 1;
  const char *path = mpi_test_path("own_runs.nc");
  enum { PER = 384 * 1024 / 8, BIG = 1024 * 1024 / 8 };
  double *out = malloc(2 * BIG * sizeof *out), *in = malloc(2 * BIG * sizeof *in);
  CHECK(out != NULL && in != NULL);
  for (int i = 0; i < 2 * BIG; ++i) out[i] = 1e6 * mpi_test_rank + i + 0.5;
  for (int big = 0; big < 2; ++big) {
    const MPI_Offset per = big ? BIG : PER;
    const int small_file = 2 * per * nprocs * 8 < 1024 * 1024;
    int ncid, dim, v[2];
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "blocks", per * nprocs, &dim));
    CHECK_OK(ncmpi_def_var(ncid, "dens", NC_DOUBLE, 1, &dim, &v[0]));
    CHECK_OK(ncmpi_def_var(ncid, "pres", NC_DOUBLE, 1, &dim, &v[1]));
    CHECK_OK(ncmpi_enddef(ncid));
    MPI_Offset start = per * mpi_test_rank, count = per;
    for (int k = 0; k < 2; ++k) {
      start_phase();
      CHECK_OK(ncmpi_put_vara_double_all(ncid, v[k], &start, &count, out));
      if (small_file)
        expect_phase("put_vara_all (file under 1 MiB)", (long long[NKINDS]){[SETVIEW] = 1, [IO_ALL] = 1});
      else
        expect_phase("put_vara_all (one run a rank)", (long long[NKINDS]){[ALLGATHER] = many});
    }
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < BIG; ++i) in[i] = -1;
      CHECK_OK(ncmpi_get_vara_double_all(ncid, v[k], &start, &count, in));
      for (int i = 0; i < per; ++i) CHECK(in[i] == out[i]);
    }
    if (big && many) {
      /* Overlapping runs (each rank's reaches into the next one's): the usual path. */
      MPI_Offset longer = mpi_test_rank == nprocs - 1 ? per : per + 8;
      start_phase();
      CHECK_OK(ncmpi_put_vara_double_all(ncid, v[0], &start, &longer, out));
      expect_phase("put_vara_all (overlapping runs)", (long long[NKINDS]){[ALLGATHER] = 1, [SETVIEW] = 1, [IO_ALL] = 1});
      /* Rank 0's piece strided: the usual path. */
      MPI_Offset half = per / 2, two = 2;
      start_phase();
      CHECK_OK(ncmpi_put_vars_double_all(ncid, v[1], &start, mpi_test_rank == 0 ? &half : &count,
                                         mpi_test_rank == 0 ? &two : NULL, out));
      expect_phase("put_vars_all (one rank strided)", (long long[NKINDS]){[ALLGATHER] = 1, [SETVIEW] = 1, [IO_ALL] = 1});
    }
    CHECK_OK(ncmpi_close(ncid));
  }
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  /* The default stack: the counts are native's. */
  unsetenv("EXACDF_CONNECTORS");
  unsetenv("PNETCDF_SAFE_MODE");
  unsetenv("PNETCDF_HINTS");
  lifecycle(mpi_test_nprocs);
  large_header(mpi_test_nprocs);
  still_agreed(mpi_test_nprocs);
  header_write_failure(mpi_test_nprocs);
  own_runs_for_contiguous_pieces(mpi_test_nprocs);
  return mpi_test_finish();
}
