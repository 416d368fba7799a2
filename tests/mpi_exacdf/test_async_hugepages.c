/* The async connector's copies in 2 MiB huge pages (issue 17,
 * util/huge_page_arena): puts of the sizes the arena handles differently --
 * 32 KiB (heap), 96 KiB and 512 KiB (carved from shared chunks, several per
 * chunk, a chunk freed when its last buffer goes) and 1.25 MiB (a mapping of
 * its own) -- over three steps, with the caller's buffer overwritten right
 * after each put returns, produce a file byte-identical to native's, with the
 * pool under SCHED_BATCH (default) and under async{sched=normal}; every value
 * read back. async{sched=...} takes batch or normal only: anything else is
 * NC_EINVAL at create. */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_test.h"

enum { kVars = 4, kSteps = 3 };
/* ints per rank per put: 32 KiB, 96 KiB, 512 KiB, 1.25 MiB */
static const MPI_Offset kLen[kVars] = {8192, 24576, 131072, 327680};

static int value(int var, int step, int rank, MPI_Offset k) { return ((var * 10 + step) * 10 + rank) * 1000000 + (int)k; }

static void write_file(const char* path, const char* stack) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", stack);
  int ncid, v[kVars];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  int step_dim;
  CHECK_OK(ncmpi_def_dim(ncid, "step", kSteps, &step_dim));
  for (int q = 0; q < kVars; ++q) {
    char name[8] = {'v', (char)('0' + q), 0}, dim[8] = {'n', (char)('0' + q), 0};
    int dims[2] = {step_dim, -1};
    CHECK_OK(ncmpi_def_dim(ncid, dim, kLen[q] * mpi_test_nprocs, &dims[1]));
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 2, dims, &v[q]));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  int* buf = malloc((size_t)kLen[kVars - 1] * sizeof(int));
  CHECK(buf != NULL);
  for (int s = 0; s < kSteps; ++s) {
    for (int q = 0; q < kVars; ++q) {
      MPI_Offset start[2] = {s, (MPI_Offset)mpi_test_rank * kLen[q]}, count[2] = {1, kLen[q]};
      for (MPI_Offset k = 0; k < kLen[q]; ++k) buf[k] = value(q, s, mpi_test_rank, k);
      CHECK_OK(ncmpi_put_vara_int_all(ncid, v[q], start, count, buf));
      for (MPI_Offset k = 0; k < kLen[q]; ++k) buf[k] = -1; /* the copy was taken */
    }
  }
  free(buf);
  CHECK_OK(ncmpi_close(ncid));
}

static void check_values(const char* path) {
  int* buf = malloc((size_t)kLen[kVars - 1] * sizeof(int));
  CHECK(buf != NULL);
  int ncid, v;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  for (int q = 0; q < kVars; ++q) {
    char name[8] = {'v', (char)('0' + q), 0};
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    for (int s = 0; s < kSteps; ++s) {
      MPI_Offset start[2] = {s, (MPI_Offset)mpi_test_rank * kLen[q]}, count[2] = {1, kLen[q]};
      CHECK_OK(ncmpi_get_vara_int_all(ncid, v, start, count, buf));
      int bad = 0;
      for (MPI_Offset k = 0; k < kLen[q]; ++k) bad += buf[k] != value(q, s, mpi_test_rank, k);
      CHECK(bad == 0);
    }
  }
  CHECK_OK(ncmpi_close(ncid));
  free(buf);
}

static int same_bytes(const char* p, const char* q) {
  FILE *a = fopen(p, "rb"), *b = fopen(q, "rb");
  int same = a && b;
  static char x[65536], y[65536];
  while (same) {
    size_t na = fread(x, 1, sizeof x, a), nb = fread(y, 1, sizeof y, b);
    if (na != nb) same = 0;
    for (size_t k = 0; same && k < na; ++k) same = x[k] == y[k];
    if (na == 0) break;
  }
  if (a) fclose(a);
  if (b) fclose(b);
  return same;
}

int main(int argc, char** argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the pool's threads call MPI */
  mpi_test_init(&argc, &argv);
  char native[1200];
  snprintf(native, sizeof native, "%s", mpi_test_path("hugepages_native.nc"));
  write_file(native, "native");
  const char* stacks[] = {"async", "async{sched=normal}", "async{sched=batch;threads=3}"};
  for (int k = 0; k < 3; ++k) {
    const char* path = mpi_test_path("hugepages_async.nc");
    write_file(path, stacks[k]);
    check_values(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int same = mpi_test_rank == 0 ? same_bytes(native, path) : 1;
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(same);
  }

  const char* bad[] = {"async{sched=fast}", "async{sched=}", "async{sched=BATCH}"};
  for (int k = 0; k < 3; ++k) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_connectors", bad[k]);
    int ncid = -1;
    CHECK_ERR(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("hugepages_bad.nc"), NC_CLOBBER, info, &ncid), NC_EINVAL);
    MPI_Info_free(&info);
  }
  return mpi_test_finish();
}
