/* The async connector defers independent puts by default (async{indep=defer})
 * and completes them wherever PnetCDF 1.12.3 and MPI-IO make written data
 * visible (layer/async_connector.cpp, AsyncConnector::put):
 *   - to the program itself: its own get of the same region, ncmpi_wait,
 *     ncmpi_inq_put_size (the bytes count), ncmpi_flush;
 *   - to every process: ncmpi_sync (MPI-IO's sync-barrier-sync: another rank
 *     reads the values after it), ncmpi_end_indep_data, ncmpi_redef,
 *     ncmpi_close.
 * Each case: an independent put of this rank's slice whose write is held
 * 400 ms (exa_debug_late_writes), checked to be still queued when the put
 * returned (exa_async_wait with no wait: deferred by default); then the call;
 * when it returns, the bytes are in the file (read with POSIX pread at the
 * variable's offset, big-endian) before any other library call.
 * TEST_VISIBILITY_SPEC overrides the stack (async{indep=now} fails the
 * "still queued" check). Needs MPI_THREAD_MULTIPLE (set below). */
#include <pnetcdf.h>
#include <exacdf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_test.h"

enum { N = 2048, kHoldMs = 400 };

enum Point { kOwnGet, kWait, kInqPutSize, kFlush, kSync, kEndIndep, kRedef, kClose, kPoints };
static const char *const kPointName[kPoints] = {"own get", "ncmpi_wait", "ncmpi_inq_put_size", "ncmpi_flush",
                                                "ncmpi_sync", "ncmpi_end_indep_data", "ncmpi_redef",
                                                "ncmpi_close"};

static int value_of(int point, int rank, int i) { return 1000000 * (point + 1) + N * rank + i + 1; }

/* This rank's N ints of the variable at `offset`, as the file holds them now. */
static int on_disk_matches(const char *path, MPI_Offset offset, int point) {
  static unsigned char bytes[N * 4];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t got = pread(fd, bytes, sizeof bytes, (off_t)(offset + (MPI_Offset)mpi_test_rank * N * 4));
  close(fd);
  if (got != (ssize_t)sizeof bytes) return 0;
  for (int i = 0; i < N; ++i) {
    const unsigned char *b = bytes + 4 * i;
    int32_t v = (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3]);
    if (v != value_of(point, mpi_test_rank, i)) return 0;
  }
  return 1;
}

static void one_point(const char *spec, int point) {
  char path[1200];
  char name[64];
  snprintf(name, sizeof name, "visibility_%d.nc", point);
  snprintf(path, sizeof path, "%s", mpi_test_path(name));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid = -1, dx, va;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "x", (MPI_Offset)N * mpi_test_nprocs, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dx, &va));
  CHECK_OK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
  CHECK_OK(ncmpi_enddef(ncid));
  MPI_Offset offset = 0, put_before = 0, put_after = 0;
  CHECK_OK(ncmpi_inq_varoffset(ncid, va, &offset));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_inq_put_size(ncid, &put_before));

  static int vals[N], got[N];
  for (int i = 0; i < N; ++i) vals[i] = value_of(point, mpi_test_rank, i);
  MPI_Offset start = (MPI_Offset)mpi_test_rank * N, count = N;
  exa_debug_late_writes(kHoldMs);
  CHECK_OK(ncmpi_put_vara_int(ncid, va, &start, &count, vals));
  memset(vals, 0, sizeof vals); /* the put kept its own copy */
  int pending = -1;
  CHECK_OK(exa_async_wait(ncid, 0, &pending));
  if (pending < 1)
    fprintf(stderr, "[rank %d] %s: the independent put was not deferred (pending %d)\n", mpi_test_rank,
            kPointName[point], pending);
  CHECK(pending >= 1);

  int closed = 0;
  switch (point) {
    case kOwnGet:
      CHECK_OK(ncmpi_get_vara_int(ncid, va, &start, &count, got));
      for (int i = 0; i < N; ++i)
        if (got[i] != value_of(point, mpi_test_rank, i)) {
          CHECK(got[i] == value_of(point, mpi_test_rank, i));
          break;
        }
      break;
    case kWait:
      CHECK_OK(ncmpi_wait(ncid, 0, NULL, NULL));
      break;
    case kInqPutSize:
      CHECK_OK(ncmpi_inq_put_size(ncid, &put_after));
      CHECK(put_after - put_before >= (MPI_Offset)N * 4);
      break;
    case kFlush:
      CHECK_OK(ncmpi_flush(ncid));
      break;
    case kSync:
      CHECK_OK(ncmpi_sync(ncid));
      break;
    case kEndIndep:
      CHECK_OK(ncmpi_end_indep_data(ncid));
      break;
    case kRedef:
      CHECK_OK(ncmpi_redef(ncid));
      break;
    case kClose:
      CHECK_OK(ncmpi_close(ncid));
      closed = 1;
      break;
  }
  exa_debug_late_writes(0);
  const int there = on_disk_matches(path, offset, point);
  if (!there) fprintf(stderr, "[rank %d] %s returned before the deferred put was in the file\n", mpi_test_rank, kPointName[point]);
  CHECK(there);

  if (point == kSync) {
    /* Another rank's values, after its sync, a barrier and this rank's sync
     * (MPI-IO's sync-barrier-sync; the first sync was above). */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(ncmpi_sync(ncid));
    const int peer = (mpi_test_rank + 1) % mpi_test_nprocs;
    MPI_Offset pstart = (MPI_Offset)peer * N;
    CHECK_OK(ncmpi_get_vara_int(ncid, va, &pstart, &count, got));
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != value_of(point, peer, i);
    CHECK(bad == 0);
  }
  if (point == kRedef) CHECK_OK(ncmpi_enddef(ncid));
  if (!closed) CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the pool calls MPI */
  mpi_test_init(&argc, &argv);
  alarm(240); /* a hang fails the test rather than the suite's time */
  const char *spec = getenv("TEST_VISIBILITY_SPEC") ? getenv("TEST_VISIBILITY_SPEC") : "async{threads=2}";
  for (int point = 0; point < kPoints; ++point) one_point(spec, point);
  return mpi_test_finish();
}
