/* The cache connector's mover never writes a collective put's record before
 * another rank's part of an older collective call has landed, even when that
 * part is still being written after the collective write returned elsewhere
 * (OMPIO returns on a rank once its own part is handed over).
 *
 * exa_debug_late_writes makes rank 1's writes land late: its independent
 * writes sleep first; in a collective write it takes part with nothing and
 * writes its part alone afterwards. With MPI_THREAD_MULTIPLE (the mover):
 *   call 0: rank 1 puts a slot (its mover's write of it is late, so the
 *           watermark stays below call 1);
 *   call 1: rank 1 puts "big" = A (logged; the mover may not drain it alone);
 *   call 2: rank 0 puts "big" = B, rank 1 a record its ring has no room for:
 *           every rank drains together (A, late), then rank 0 logs B and its
 *           mover writes B at once.
 * The file must hold B. Before the drain ended with a barrier, rank 0's mover
 * wrote B while rank 1 was still writing A, and the file kept A. At 1 rank
 * the same calls run on rank 0 (nothing is late). */
#include <stdlib.h>

#include "exacdf.h"
#include "mpi_test.h"

enum { NB = 1000, W = 4, LATE_MS = 300 };

static int a_value(int i) { return 1000000 + i; }
static int b_value(int i) { return 2000000 + i; }
static int other_value(int i) { return 3000000 + i; }
static int slot_value(int rank, int i) { return 100 * rank + i; }

static void write_calls(const char *path, const char *spec) {
  const int me = mpi_test_rank, np = mpi_test_nprocs, late = 1 % np, first = 0;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", spec);
  int ncid, db, ds, vbig, vother, vslot;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "b", NB, &db));
  CHECK_OK(ncmpi_def_dim(ncid, "s", (MPI_Offset)np * W, &ds));
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_INT, 1, &db, &vbig));
  CHECK_OK(ncmpi_def_var(ncid, "other", NC_INT, 1, &db, &vother));
  CHECK_OK(ncmpi_def_var(ncid, "slot", NC_INT, 1, &ds, &vslot));
  CHECK_OK(ncmpi_enddef(ncid));
  if (me == late && np > 1) exa_debug_late_writes(LATE_MS);

  static int buf[NB];
  MPI_Offset start = 0, count = 0;
  /* call 0 */
  for (int i = 0; i < W; ++i) buf[i] = slot_value(me, i);
  start = (MPI_Offset)me * W;
  count = me == late ? W : 0;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, vslot, &start, &count, buf));
  /* call 1 */
  for (int i = 0; i < NB; ++i) buf[i] = a_value(i);
  start = 0;
  count = me == late ? NB : 0;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, vbig, &start, &count, buf));
  /* call 2: one collective put, two variables (a put names one) */
  if (me == first && me != late) {
    for (int i = 0; i < NB; ++i) buf[i] = b_value(i);
    count = NB;
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vbig, &start, &count, buf));
  } else if (me == late && np > 1) {
    for (int i = 0; i < NB; ++i) buf[i] = other_value(i);
    count = NB;
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vother, &start, &count, buf));
  } else {
    count = 0;
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vbig, &start, &count, buf));
  }
  if (np == 1) { /* the same values, one rank */
    for (int i = 0; i < NB; ++i) buf[i] = b_value(i);
    count = NB;
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vbig, &start, &count, buf));
    for (int i = 0; i < NB; ++i) buf[i] = other_value(i);
    CHECK_OK(ncmpi_put_vara_int_all(ncid, vother, &start, &count, buf));
  }
  CHECK_OK(ncmpi_close(ncid));
  exa_debug_late_writes(0);
}

static void check_file(const char *path, const char *spec) {
  const int np = mpi_test_nprocs, late = 1 % np;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "native");
  int ncid, vbig, vother, vslot;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_inq_varid(ncid, "big", &vbig));
  CHECK_OK(ncmpi_inq_varid(ncid, "other", &vother));
  CHECK_OK(ncmpi_inq_varid(ncid, "slot", &vslot));
  static int got[NB];
  int wrong_big = 0, wrong = 0;
  CHECK_OK(ncmpi_get_var_int_all(ncid, vbig, got));
  for (int i = 0; i < NB; ++i) wrong_big += got[i] != b_value(i);
  if (wrong_big) fprintf(stderr, "rank %d: %s: big[0] = %d (A is %d, B %d)\n", mpi_test_rank, spec, got[0],
                         a_value(0), b_value(0));
  CHECK_OK(ncmpi_get_var_int_all(ncid, vother, got));
  for (int i = 0; i < NB; ++i) wrong += got[i] != other_value(i);
  MPI_Offset start = (MPI_Offset)late * W, count = W;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vslot, &start, &count, got));
  for (int i = 0; i < W; ++i) wrong += got[i] != slot_value(late, i);
  CHECK_OK(ncmpi_close(ncid));
  CHECK(wrong_big == 0);
  CHECK(wrong == 0);
}

int main(int argc, char **argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the mover */
  mpi_test_init(&argc, &argv);
  char dir[1200], path[1200], spec[2600];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("tier"));
  snprintf(path, sizeof path, "%s", mpi_test_path("late.nc"));
  /* A ring per rank (size / ranks) holds the slot and one big record, never
   * two big ones. */
  const long ring = 6144;
  snprintf(spec, sizeof spec, "cache{dir=%s;size=%ld}", dir, ring * mpi_test_nprocs);
  write_calls(path, spec);
  check_file(path, spec);
  snprintf(spec, sizeof spec, "async,cache{dir=%s;size=%ld}", dir, ring * mpi_test_nprocs);
  write_calls(path, spec);
  check_file(path, spec);
  return mpi_test_finish();
}
