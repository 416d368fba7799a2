/*
 * Gets of a file without fill values (PnetCDF's default, NC_NOFILL) whose
 * regions reach past the end of the file: the bytes never written read as
 * zeros in exacdf, the written ones as written, after other reads of real
 * data in the same run (so stale MPI-IO buffers exist).
 *
 * Under Open MPI (OMPIO) two things made those bytes come back as stale
 * values of the same run or uninitialised memory:
 *  - a collective read reports every byte asked for as read, past the end of
 *    the file too, so zeroing by the status's count zeroed nothing;
 *  - a write with gaps (its data sieving, of an independent write or of a
 *    collective one's aggregator) reads the span and writes it back whole:
 *    past the end of the file that read is short, and the gaps went to disk
 *    as whatever its buffer held.
 *
 * Part 1: explicit gets straddling the end of the file -- vara, vars, varn,
 * and nonblocking gets with wait_all / wait -- collective and independent.
 * Part 2: random sequences of puts and gets on the ranks' own rows (the
 * sequence of the former tests/mpi_exacdf/test_async_random.c), every get
 * compared with what the rank put there (0 where it never put).
 *
 * PnetCDF 1.12.3 leaves never-written bytes undefined (it returns whatever
 * MPI-IO left in the buffer, byte-swapped): the oracle build checks only the
 * written values.
 */
#include "mpi_test.h"

enum { R = 4, C = 32, kSentinel = 0x7f7f7f7f };

static int failures_part[2];

static int value_at(int row, int col) { return row * 1000 + col + 1; }

/* What a get of (row, col) must see: the value written, or 0 past what was
 * written (only checked against exacdf). */
static void expect(int part, const char *what, int row, int col, int written, int got) {
  int want = written ? value_at(row, col) : 0;
  if (!written && !MPI_TEST_IS_EXACDF) return;
  if (got != want) {
    if (failures_part[part] < 8)
      fprintf(stderr, "[rank %d] %s: (%d, %d) read %d, expected %d\n", mpi_test_rank, what, row, col, got, want);
    failures_part[part]++;
  }
}

/* Part 1's file, in round `g_round`: rows [0, last * R) written but for
 * their last kGap columns (puts with gaps), then the first `g_half` columns
 * of row last * R -- every other one in odd rounds -- so the end of the file
 * is in the middle of that row. */
enum { kGap = 4 };
static int g_round, g_half;
static int written_at(int last, int row, int col) {
  return (row < last * R && col < C - kGap) ||
         (row == last * R && col < g_half && (g_round % 2 == 0 || col % 2 == 0));
}

/* A read of real data of the same shape as the get that follows, from row 0
 * (written on more than one rank): fills MPI-IO's buffers, and the heap
 * chunks of that size, with values. */
static void read_real(int ncid, int v, int collective, const MPI_Offset *ct, const MPI_Offset *sd) {
  int buf[3 * C];
  MPI_Offset st[2] = {0, 0};
  CHECK_OK(collective ? ncmpi_get_vars_int_all(ncid, v, st, ct, sd, buf) : ncmpi_get_vars_int(ncid, v, st, ct, sd, buf));
}

static void check_region(const char *what, int last, const MPI_Offset *st, const MPI_Offset *ct, const MPI_Offset *sd,
                         const int *got) {
  int k = 0;
  for (MPI_Offset i = 0; i < ct[0]; ++i)
    for (MPI_Offset j = 0; j < ct[1]; ++j, ++k) {
      int row = (int)(st[0] + i * (sd ? sd[0] : 1)), col = (int)(st[1] + j * (sd ? sd[1] : 1));
      expect(0, what, row, col, written_at(last, row, col), got[k]);
    }
}

static void straddling_gets(const char *path) {
  const int last = mpi_test_nprocs - 1, nrows = R * mpi_test_nprocs;
  int ncid, dim[2], v, old;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_NOFILL, &old));
  CHECK_OK(ncmpi_def_dim(ncid, "row", nrows, &dim[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", C, &dim[1]));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 2, dim, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  int buf[R * C];
  {
    MPI_Offset st[2] = {(MPI_Offset)mpi_test_rank * R, 0}, ct[2] = {R, C - kGap}, sd[2] = {1, 1};
    if (mpi_test_rank == last) ct[0] = 1, ct[1] = g_half;
    if (mpi_test_rank == last && g_round % 2 == 1) sd[1] = 2, ct[1] = (g_half + 1) / 2;
    for (int i = 0; i < (int)ct[0]; ++i)
      for (int j = 0; j < (int)ct[1]; ++j) buf[i * ct[1] + j] = value_at((int)st[0] + i, j * (int)sd[1]);
    CHECK_OK(ncmpi_put_vars_int_all(ncid, v, st, ct, sd, buf));
  }
  /* The region: the row before the end's row (written, when there is one),
   * the end's row from a quarter on (half written), the row after (never). */
  const MPI_Offset s0 = last > 0 ? (MPI_Offset)last * R - 1 : 0;
  MPI_Offset st[2] = {s0, C / 4 + mpi_test_rank}, ct[2] = {3, C - (C / 4 + mpi_test_rank)};
  MPI_Offset one1[2] = {1, 1}, sd[2] = {1, 2}, cts[2] = {3, (ct[1] + 1) / 2};
  /* varn: one region of real data, then the straddling one */
  MPI_Offset rs0[2] = {0, 1}, rc0[2] = {1, 4};
  MPI_Offset *starts[2] = {rs0, st}, *counts[2] = {rc0, ct};
  int got[3 * C + 4], got2[3 * C];
  for (int collective = 1; collective >= 0; --collective) {
    const char *mode = collective ? "collective" : "independent";
    char what[96];
    if (!collective) CHECK_OK(ncmpi_begin_indep_data(ncid));

    read_real(ncid, v, collective, ct, one1);
    for (int k = 0; k < 3 * C; ++k) got[k] = kSentinel;
    CHECK_OK(collective ? ncmpi_get_vara_int_all(ncid, v, st, ct, got) : ncmpi_get_vara_int(ncid, v, st, ct, got));
    snprintf(what, sizeof what, "%s get_vara", mode);
    check_region(what, last, st, ct, NULL, got);

    /* a small region wholly past the end: the last row's, some columns */
    MPI_Offset pst[2] = {nrows - 1, mpi_test_rank % C}, pct[2] = {1, 3};
    read_real(ncid, v, collective, pct, one1);
    for (int k = 0; k < 3; ++k) got[k] = kSentinel;
    CHECK_OK(collective ? ncmpi_get_vara_int_all(ncid, v, pst, pct, got) : ncmpi_get_vara_int(ncid, v, pst, pct, got));
    snprintf(what, sizeof what, "%s get_vara past the end", mode);
    check_region(what, last, pst, pct, NULL, got);

    read_real(ncid, v, collective, cts, sd);
    for (int k = 0; k < 3 * C; ++k) got[k] = kSentinel;
    CHECK_OK(collective ? ncmpi_get_vars_int_all(ncid, v, st, cts, sd, got)
                        : ncmpi_get_vars_int(ncid, v, st, cts, sd, got));
    snprintf(what, sizeof what, "%s get_vars", mode);
    check_region(what, last, st, cts, sd, got);

    read_real(ncid, v, collective, ct, one1);
    for (int k = 0; k < 3 * C + 4; ++k) got[k] = kSentinel;
    CHECK_OK(collective ? ncmpi_get_varn_int_all(ncid, v, 2, starts, counts, got)
                        : ncmpi_get_varn_int(ncid, v, 2, starts, counts, got));
    snprintf(what, sizeof what, "%s get_varn", mode);
    check_region(what, last, rs0, rc0, NULL, got);
    check_region(what, last, st, ct, NULL, got + 4);

    read_real(ncid, v, collective, ct, one1);
    int req[2], status[2];
    for (int k = 0; k < 3 * C; ++k) got[k] = got2[k] = kSentinel;
    CHECK_OK(ncmpi_iget_vara_int(ncid, v, rs0, rc0, got2, &req[0]));
    CHECK_OK(ncmpi_iget_vara_int(ncid, v, st, ct, got, &req[1]));
    CHECK_OK(collective ? ncmpi_wait_all(ncid, 2, req, status) : ncmpi_wait(ncid, 2, req, status));
    CHECK(status[0] == NC_NOERR && status[1] == NC_NOERR);
    snprintf(what, sizeof what, "%s iget_vara + %s", mode, collective ? "wait_all" : "wait");
    check_region(what, last, rs0, rc0, NULL, got2);
    check_region(what, last, st, ct, NULL, got);

    if (!collective) CHECK_OK(ncmpi_end_indep_data(ncid));
  }
  CHECK_OK(ncmpi_close(ncid));
}

/* Part 2. kRows x kCols per rank; every rank puts and gets its own rows only. */
enum { kRows = 6, kCols = 24, kOps = 60, kSeeds = 12 };

static unsigned next_rand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

static void random_sequence(const char *path, unsigned seed) {
  int ncid, dims[2], vi, vf, old;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_NOFILL, &old));
  CHECK_OK(ncmpi_def_dim(ncid, "row", kRows * mpi_test_nprocs, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", kCols, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "i", NC_INT, 2, dims, &vi));
  CHECK_OK(ncmpi_def_var(ncid, "f", NC_FLOAT, 2, dims, &vf));
  CHECK_OK(ncmpi_enddef(ncid));
  static int shadow[kRows][kCols];
  static unsigned char put[kRows][kCols];
  memset(shadow, 0, sizeof shadow);
  memset(put, 0, sizeof put);
  unsigned s = seed;
  int buf[kCols * kRows], got[kCols * kRows];
  float fbuf[kCols * kRows];
  int indep = 0;
  for (int op = 0; op < kOps; ++op) {
    /* every rank draws the same kind (collective calls must match) */
    unsigned kind = next_rand(&s) % 10;
    unsigned mine = next_rand(&s) + (unsigned)mpi_test_rank * 7919u;
    MPI_Offset start[2], count[2];
    start[0] = (MPI_Offset)mpi_test_rank * kRows + mine % kRows;
    count[0] = 1 + (mine >> 4) % (MPI_Offset)(kRows - start[0] % kRows);
    start[1] = (mine >> 8) % kCols;
    count[1] = 1 + (mine >> 13) % (kCols - start[1]);
    int n = (int)(count[0] * count[1]);
    if (kind == 9) {
      /* Independent writes and collective ones on either side are ordered by
       * a sync (MPI-IO's consistency: without it, a collective write's data
       * sieving may write back a neighbour's bytes it read before an
       * independent write of them landed -- PnetCDF loses such writes). */
      CHECK_OK(ncmpi_sync(ncid));
      CHECK_OK(indep ? ncmpi_end_indep_data(ncid) : ncmpi_begin_indep_data(ncid));
      indep = !indep;
    } else if (kind == 7) { /* the application's own collective meanwhile */
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (kind == 8) {
      for (int k = 0; k < n; ++k) got[k] = kSentinel;
      CHECK_OK(indep ? ncmpi_get_vara_int(ncid, vi, start, count, got)
                     : ncmpi_get_vara_int_all(ncid, vi, start, count, got));
      for (int k = 0; k < n; ++k) {
        int r = (int)(start[0] % kRows + k / count[1]), c = (int)(start[1] + k % count[1]);
        int want = put[r][c] ? shadow[r][c] : 0;
        if (!put[r][c] && !MPI_TEST_IS_EXACDF) continue;
        if (got[k] != want) {
          if (failures_part[1] < 8)
            fprintf(stderr, "[rank %d] seed %u op %d %s get (%d, %d): read %d, expected %d\n", mpi_test_rank, seed,
                    op, indep ? "independent" : "collective", (int)(mpi_test_rank * kRows + r), c, got[k], want);
          failures_part[1]++;
        }
      }
    } else if (kind < 4) {
      for (int k = 0; k < n; ++k) buf[k] = (int)(seed * 1000003u + (unsigned)op * 1009u + (unsigned)k);
      CHECK_OK(indep ? ncmpi_put_vara_int(ncid, vi, start, count, buf)
                     : ncmpi_put_vara_int_all(ncid, vi, start, count, buf));
      for (int k = 0; k < n; ++k) {
        int r = (int)(start[0] % kRows + k / count[1]), c = (int)(start[1] + k % count[1]);
        shadow[r][c] = buf[k];
        put[r][c] = 1;
      }
    } else {
      for (int k = 0; k < n; ++k) fbuf[k] = (float)(op * 100 + k) + 0.25f;
      CHECK_OK(indep ? ncmpi_put_vara_float(ncid, vf, start, count, fbuf)
                     : ncmpi_put_vara_float_all(ncid, vf, start, count, fbuf));
    }
  }
  if (indep) {
    CHECK_OK(ncmpi_sync(ncid));
    CHECK_OK(ncmpi_end_indep_data(ncid));
  }
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  /* (the random sequences first: the straddling gets then find MPI-IO's
   * buffers, and the heap, full of values) */
  for (unsigned seed = 1; seed <= kSeeds; ++seed) random_sequence(mpi_test_path("past_eof_random.nc"), seed);
  for (g_round = 0; g_round < 6; ++g_round) {
    g_half = C / 2 - 3 * g_round;
    straddling_gets(mpi_test_path("past_eof.nc"));
  }
  if (failures_part[0] || failures_part[1])
    fprintf(stderr, "[rank %d] wrong values: %d in the straddling gets, %d in the random sequences\n", mpi_test_rank,
            failures_part[0], failures_part[1]);
  CHECK(failures_part[0] == 0);
  CHECK(failures_part[1] == 0);
  return mpi_test_finish();
}
