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
 * Part 1: explicit gets straddling the end of the file -- vara, vars, varn
 * (also of overlapping regions), nonblocking gets with wait_all / wait, and
 * vard (the caller's own file type) -- collective and independent. In the
 * last two rounds the file is written by put_vard_all, then put_vard (a file
 * type with gaps).
 * Part 3: holes inside the file (never written, below its end) read through
 * varn and wait_all as the fill value (NC_FILL) or zeros (NC_NOFILL).
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

static int failures_part[3];

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

/* A vard file type over the ints of a region (start, count, stride) of a
 * variable of `ncols` columns: one block per element. */
static MPI_Datatype region_type(const MPI_Offset *st, const MPI_Offset *ct, const MPI_Offset *sd, int ncols) {
  int n = (int)(ct[0] * ct[1]), k = 0;
  int *displs = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  for (MPI_Offset i = 0; i < ct[0]; ++i)
    for (MPI_Offset j = 0; j < ct[1]; ++j)
      displs[k++] = (int)((st[0] + i * (sd ? sd[0] : 1)) * ncols + st[1] + j * (sd ? sd[1] : 1));
  MPI_Datatype t;
  CHECK(MPI_Type_create_indexed_block(n, 1, displs, MPI_INT, &t) == MPI_SUCCESS);
  CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
  free(displs);
  return t;
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
    if (g_round < 4) {
      CHECK_OK(ncmpi_put_vars_int_all(ncid, v, st, ct, sd, buf));
    } else { /* the same bytes through the caller's file type: collective, then independent */
      MPI_Datatype ft = region_type(st, ct, sd, C);
      if (g_round == 4) {
        CHECK_OK(ncmpi_put_vard_all(ncid, v, ft, buf, ct[0] * ct[1], MPI_INT));
      } else {
        CHECK_OK(ncmpi_begin_indep_data(ncid));
        CHECK_OK(ncmpi_put_vard(ncid, v, ft, buf, ct[0] * ct[1], MPI_INT));
        CHECK_OK(ncmpi_sync(ncid));
        CHECK_OK(ncmpi_end_indep_data(ncid));
      }
      MPI_Type_free(&ft);
    }
  }
  /* The region: the row before the end's row (written, when there is one),
   * the end's row from a quarter on (half written), the row after (never). */
  const MPI_Offset s0 = last > 0 ? (MPI_Offset)last * R - 1 : 0;
  MPI_Offset st[2] = {s0, C / 4 + mpi_test_rank}, ct[2] = {3, C - (C / 4 + mpi_test_rank)};
  MPI_Offset one1[2] = {1, 1}, sd[2] = {1, 2}, cts[2] = {3, (ct[1] + 1) / 2};
  /* varn: one region of real data, then the straddling one */
  MPI_Offset rs0[2] = {0, 1}, rc0[2] = {1, 4};
  MPI_Offset *starts[2] = {rs0, st}, *counts[2] = {rc0, ct};
  int got[3 * C + 4], got2[3 * C], gotn[3 * C + C];
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

    /* varn of overlapping regions (read once into staging, then copied):
     * the straddling region, and its last two rows again from column C/2 */
    {
      MPI_Offset os[2] = {st[0] + 1, C / 2}, oc[2] = {2, C / 2};
      MPI_Offset *ostarts[2] = {st, os}, *ocounts[2] = {ct, oc};
      read_real(ncid, v, collective, ct, one1);
      for (int k = 0; k < 3 * C + C; ++k) gotn[k] = kSentinel;
      CHECK_OK(collective ? ncmpi_get_varn_int_all(ncid, v, 2, ostarts, ocounts, gotn)
                          : ncmpi_get_varn_int(ncid, v, 2, ostarts, ocounts, gotn));
      snprintf(what, sizeof what, "%s get_varn overlapping", mode);
      check_region(what, last, st, ct, NULL, gotn);
      check_region(what, last, os, oc, NULL, gotn + ct[0] * ct[1]);
    }

    /* vard: the straddling region, and the strided one, as file types */
    for (int strided = 0; strided <= 1; ++strided) {
      const MPI_Offset *c = strided ? cts : ct, *d = strided ? sd : NULL;
      MPI_Datatype ft = region_type(st, c, d, C);
      read_real(ncid, v, collective, c, strided ? sd : one1);
      for (int k = 0; k < 3 * C; ++k) got[k] = kSentinel;
      CHECK_OK(collective ? ncmpi_get_vard_all(ncid, v, ft, got, c[0] * c[1], MPI_INT)
                          : ncmpi_get_vard(ncid, v, ft, got, c[0] * c[1], MPI_INT));
      snprintf(what, sizeof what, "%s get_vard%s", mode, strided ? " strided" : "");
      check_region(what, last, st, c, d, got);
      MPI_Type_free(&ft);
    }

    if (!collective) CHECK_OK(ncmpi_end_indep_data(ncid));
  }
  CHECK_OK(ncmpi_close(ncid));
}

/* Part 3. Holes inside the file: variable "a" (first in the file) never
 * written, or written in every other row, while "b" after it is written
 * whole, so a's holes lie below the end of the file. Gets of a through varn
 * and iget + wait_all (each rank its own rows, then rows of other ranks)
 * read the fill value (NC_FILL) or zeros (NC_NOFILL; only exacdf checked). */
enum { HR = 3, HC = 16 };
static void holes(const char *path, int fill) {
  const int nrows = HR * mpi_test_nprocs;
  int ncid, dim[2], a, b, old;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, fill ? NC_FILL : NC_NOFILL, &old));
  CHECK_OK(ncmpi_def_dim(ncid, "row", nrows, &dim[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", HC, &dim[1]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 2, dim, &a));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 2, dim, &b));
  CHECK_OK(ncmpi_enddef(ncid));
  int buf[HR * HC], got[2 * HR * HC];
  MPI_Offset st[2] = {(MPI_Offset)mpi_test_rank * HR, 0}, ct[2] = {HR, HC}, one[2] = {1, HC};
  for (int k = 0; k < HR * HC; ++k) buf[k] = value_at((int)st[0] + k / HC, k % HC);
  CHECK_OK(ncmpi_put_vara_int_all(ncid, b, st, ct, buf));
  /* a: the even rows of this rank's, one put each */
  for (int i = 0; i < HR; i += 2) {
    MPI_Offset rs[2] = {st[0] + i, 0};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, a, rs, one, buf + i * HC));
  }
  CHECK_OK(ncmpi_sync(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_sync(ncid));
  /* the region: this rank's rows, and the next rank's (wrapping) */
  const MPI_Offset next = (MPI_Offset)((mpi_test_rank + 1) % mpi_test_nprocs) * HR;
  MPI_Offset s1[2] = {next, 0};
  MPI_Offset *starts[2] = {st, s1}, *counts[2] = {ct, ct};
  for (int kind = 0; kind < 4; ++kind) { /* varn coll/indep, iget + wait_all/wait */
    const int collective = kind % 2 == 0;
    if (!collective) CHECK_OK(ncmpi_begin_indep_data(ncid));
    for (int k = 0; k < 2 * HR * HC; ++k) got[k] = kSentinel;
    if (kind < 2) {
      CHECK_OK(collective ? ncmpi_get_varn_int_all(ncid, a, 2, starts, counts, got)
                          : ncmpi_get_varn_int(ncid, a, 2, starts, counts, got));
    } else {
      int req[2], status[2];
      CHECK_OK(ncmpi_iget_vara_int(ncid, a, st, ct, got, &req[0]));
      CHECK_OK(ncmpi_iget_vara_int(ncid, a, s1, ct, got + HR * HC, &req[1]));
      CHECK_OK(collective ? ncmpi_wait_all(ncid, 2, req, status) : ncmpi_wait(ncid, 2, req, status));
      CHECK(status[0] == NC_NOERR && status[1] == NC_NOERR);
    }
    for (int k = 0; k < 2 * HR * HC; ++k) {
      const int row = (int)(k < HR * HC ? st[0] : next) + (k % (HR * HC)) / HC, col = k % HC;
      const int written = row % HR % 2 == 0;
      const int want = written ? value_at(row, col) : fill ? NC_FILL_INT : 0;
      if (!written && !fill && !MPI_TEST_IS_EXACDF) continue;
      if (got[k] != want) {
        if (failures_part[2] < 8)
          fprintf(stderr, "[rank %d] holes (%s, %s): a(%d, %d) read %d, expected %d\n", mpi_test_rank,
                  fill ? "fill" : "nofill", kind < 2 ? "varn" : "iget", row, col, got[k], want);
        failures_part[2]++;
      }
    }
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
  holes(mpi_test_path("past_eof_holes.nc"), 1);
  holes(mpi_test_path("past_eof_holes.nc"), 0);
  if (failures_part[0] || failures_part[1] || failures_part[2])
    fprintf(stderr, "[rank %d] wrong values: %d in the straddling gets, %d in the random sequences, %d in the holes\n",
            mpi_test_rank, failures_part[0], failures_part[1], failures_part[2]);
  CHECK(failures_part[0] == 0);
  CHECK(failures_part[1] == 0);
  CHECK(failures_part[2] == 0);
  return mpi_test_finish();
}
