/*
 * The put_vard/get_vard scenario of record variables shared by
 * tests/mpi/test_vard_records.c (classic files, also run against PnetCDF)
 * and tests/mpi_exacdf/test_vard_sections.c (the partitioned format, whose
 * redefs leave records in sections). PnetCDF defines a vard file type over
 * the records' layout: from ncmpi_inq_varoffset, record r at r * recsize
 * (ncmpi_inq_recsize). Records of a, then a redef adding the record
 * variable c (filled), later one adding e. vard with contiguous, vector,
 * subarray, indexed, hindexed and struct file types, non-contiguous buffer
 * types, record ranges across the records of both redefs, one type over two
 * variables, puts past the end (numrecs grows), collective and
 * independent; every value read back with vara and with vard, also after a
 * reopen. Include after mpi_test.h; rank and nprocs are the includer's.
 */
#ifndef EXACDF_VARD_RECORDS_SCENARIO_H
#define EXACDF_VARD_RECORDS_SCENARIO_H

#include <string.h>

#define X 6     /* ints of a's record */
#define XC 4    /* ints of c's record */
#define NR 5    /* records written before the first redef */
#define MAXREC 16


/* What the file should hold; known[] says which values are defined. */
static int want_a[MAXREC][X], want_c[MAXREC][XC];
static unsigned char known_a[MAXREC][X], known_c[MAXREC][XC];

static int fv(int var, int rec, int i) { return var * 100000 + rec * 100 + i; }

static void expect_a(int rec, int i, int v) { want_a[rec][i] = v, known_a[rec][i] = 1; }
static void expect_c(int rec, int i, int v) { want_c[rec][i] = v, known_c[rec][i] = 1; }

static MPI_Datatype commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

/* `inner` placed at byte `disp` (the file types are relative to the variable's offset). */
static MPI_Datatype at(MPI_Aint disp, MPI_Datatype inner) {
  MPI_Datatype t;
  int one = 1;
  MPI_Type_create_hindexed(1, &one, &disp, inner, &t);
  MPI_Type_free(&inner);
  return commit(t);
}

/* Every value of a and c (vara over all records) against the model. */
static void check_vara(int ncid, const char *when) {
  static int got[MAXREC * X];
  int a, c;
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &a));
  CHECK_OK(ncmpi_inq_varid(ncid, "c", &c));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  MPI_Offset start[2] = {0, 0}, count[2] = {nrec, X};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, a, start, count, got));
  int bad = 0;
  for (int r = 0; r < nrec; r++)
    for (int i = 0; i < X; i++) bad += known_a[r][i] && got[r * X + i] != want_a[r][i];
  count[1] = XC;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, c, start, count, got));
  for (int r = 0; r < nrec; r++)
    for (int i = 0; i < XC; i++) bad += known_c[r][i] && got[r * XC + i] != want_c[r][i];
  if (bad && rank == 0) printf("%s: %d values differ\n", when, bad);
  CHECK(bad == 0);
}

/* Records [first, first + n) of a, columns [lo, hi) of each: a subarray of
 * one record repeated recsize apart (hvector), placed at record first. */
static MPI_Datatype a_columns(MPI_Offset recsize, int first, int n, int lo, int hi) {
  int size = X, sub = hi - lo, st = lo;
  MPI_Datatype row, recs;
  MPI_Type_create_subarray(1, &size, &sub, &st, MPI_ORDER_C, MPI_INT, &row);
  MPI_Type_create_hvector(n, 1, recsize, row, &recs);
  MPI_Type_free(&row);
  return at((MPI_Aint)first * recsize, recs);
}

/* 1. Collective: a's records NR-2 .. NR+1 (first two old, two new: past
 * the end), each rank its columns; numrecs is then nrec_after. */
static void put_a_across(int ncid, MPI_Offset recsize, MPI_Offset nrec_after) {
  int a, lo = X * rank / nprocs, hi = X * (rank + 1) / nprocs;
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &a));
  MPI_Datatype ft = a_columns(recsize, NR - 2, 4, lo, hi);
  int vals[4 * X], n = 0;
  for (int r = NR - 2; r < NR + 2; r++)
    for (int i = lo; i < hi; i++) vals[n++] = fv(1, r, i) + 7;
  CHECK_OK(ncmpi_put_vard_all(ncid, a, ft, vals, n, MPI_INT));
  for (int r = NR - 2; r < NR + 2; r++)
    for (int i = 0; i < X; i++) expect_a(r, i, fv(1, r, i) + 7);
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK(nrec == nrec_after);
  int back[4 * X];
  memset(back, 0, sizeof back);
  CHECK_OK(ncmpi_get_vard_all(ncid, a, ft, back, n, MPI_INT));
  CHECK(memcmp(back, vals, (size_t)n * sizeof(int)) == 0);
  MPI_Type_free(&ft);
}

/* 2. Independent: c's records r = rank (mod nprocs) of [0, nrec] -- old
 * records in c's own section, new ones, one past the end -- through an
 * indexed file type (element displacements: recsize is a multiple of 4)
 * from a buffer whose values are every other int (vector buffer type). */
static void put_c_indexed(int ncid, MPI_Offset recsize) {
  int c, nrec_now = NR + 2;
  CHECK_OK(ncmpi_inq_varid(ncid, "c", &c));
  int bl[MAXREC], disp[MAXREC], nb = 0;
  for (int r = rank; r <= nrec_now; r += nprocs) {
    bl[nb] = XC;
    disp[nb] = (int)(r * recsize / 4);
    nb++;
  }
  MPI_Datatype ft, bt;
  MPI_Type_indexed(nb, bl, disp, MPI_INT, &ft);
  ft = commit(ft);
  MPI_Type_vector(nb * XC, 1, 2, MPI_INT, &bt);
  bt = commit(bt);
  static int buf[2 * MAXREC * XC], back[2 * MAXREC * XC];
  int n = 0;
  for (int r = rank; r <= nrec_now; r += nprocs)
    for (int i = 0; i < XC; i++) {
      buf[2 * n] = fv(3, r, i);
      buf[2 * n + 1] = -1;
      n++;
      expect_c(r, i, fv(3, r, i));
    }
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_put_vard(ncid, c, ft, buf, 1, bt));
  memset(back, 0, sizeof back);
  CHECK_OK(ncmpi_get_vard(ncid, c, ft, back, 1, bt));
  int bad = 0;
  for (int k = 0; k < n; k++) bad += back[2 * k] != buf[2 * k] || back[2 * k + 1] != 0;
  CHECK(bad == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  /* the other ranks' expectations: the model is the same on every rank */
  for (int p = 0; p < nprocs; p++)
    for (int r = p; r <= nrec_now; r += nprocs)
      for (int i = 0; i < XC; i++) expect_c(r, i, fv(3, r, i));
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK(nrec == nrec_now + 1);
  MPI_Type_free(&ft);
  MPI_Type_free(&bt);
}

/* 3. One struct file type over a and c together, record by record (a's
 * column 0 and c's columns 1-2 of records 0 .. nrec-1 on rank 0): in the
 * unsplit layout they alternate, in the file their old records are in two
 * sections, so the view's order is not the buffer's. */
static void struct_two_vars(int ncid, MPI_Offset recsize) {
  int a, c;
  MPI_Offset aoff, coff, nrec = 0;
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &a));
  CHECK_OK(ncmpi_inq_varid(ncid, "c", &c));
  CHECK_OK(ncmpi_inq_varoffset(ncid, a, &aoff));
  CHECK_OK(ncmpi_inq_varoffset(ncid, c, &coff));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  int bl[2 * MAXREC];
  MPI_Aint disp[2 * MAXREC];
  MPI_Datatype types[2 * MAXREC];
  int nb = 0, vals[3 * MAXREC], n = 0;
  for (int r = 0; r < nrec; r++) {
    bl[nb] = 1, disp[nb] = (MPI_Aint)(r * recsize), types[nb++] = MPI_INT;
    bl[nb] = 1, disp[nb] = (MPI_Aint)(r * recsize + (coff - aoff) + 4), types[nb++] = pair;
    vals[n++] = fv(5, r, 0);
    vals[n++] = fv(6, r, 1);
    vals[n++] = fv(6, r, 2);
    expect_a(r, 0, fv(5, r, 0));
    expect_c(r, 1, fv(6, r, 1));
    expect_c(r, 2, fv(6, r, 2));
  }
  MPI_Datatype ft;
  MPI_Type_create_struct(nb, bl, disp, types, &ft);
  ft = commit(ft);
  MPI_Type_free(&pair);
  CHECK_OK(ncmpi_put_vard_all(ncid, a, ft, vals, rank == 0 ? n : 0, MPI_INT));
  int back[3 * MAXREC];
  memset(back, 0, sizeof back);
  CHECK_OK(ncmpi_get_vard_all(ncid, a, ft, back, n, MPI_INT));
  CHECK(memcmp(back, vals, (size_t)n * sizeof(int)) == 0);
  MPI_Type_free(&ft);
}

/* 4. Every record of a through a 2-D subarray whose rows are whole
 * records (recsize / 4 ints), rank r reading rows r, r + nprocs, ...
 * through an hindexed type of contiguous rows (collective). */
static void get_all_a(int ncid, MPI_Offset recsize, const char *when) {
  int a;
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &a));
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  int sizes[2] = {(int)nrec, (int)(recsize / 4)}, subs[2] = {(int)nrec, X}, starts[2] = {0, 0};
  MPI_Datatype ft;
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &ft);
  ft = commit(ft);
  static int got[MAXREC * X];
  memset(got, 0, sizeof got);
  CHECK_OK(ncmpi_get_vard_all(ncid, a, ft, got, nrec * X, MPI_INT));
  int bad = 0;
  for (int r = 0; r < nrec; r++)
    for (int i = 0; i < X; i++) bad += known_a[r][i] && got[r * X + i] != want_a[r][i];
  MPI_Type_free(&ft);
  MPI_Datatype row, rows;
  MPI_Type_contiguous(X, MPI_INT, &row);
  int bl[MAXREC];
  MPI_Aint disp[MAXREC];
  int nb = 0;
  for (int r = rank; r < nrec; r += nprocs) bl[nb] = 1, disp[nb++] = (MPI_Aint)(r * recsize);
  MPI_Type_create_hindexed(nb, bl, disp, row, &rows);
  rows = commit(rows);
  MPI_Type_free(&row);
  memset(got, 0, sizeof got);
  CHECK_OK(ncmpi_get_vard_all(ncid, a, rows, got, nb * X, MPI_INT));
  for (int k = 0, r = rank; r < nrec; r += nprocs, k++)
    for (int i = 0; i < X; i++) bad += known_a[r][i] && got[k * X + i] != want_a[r][i];
  MPI_Type_free(&rows);
  if (bad && rank == 0) printf("%s: vard of a: %d values differ\n", when, bad);
  CHECK(bad == 0);
}

static void scenario(const char *path, int cmode) {
  memset(known_a, 0, sizeof known_a);
  memset(known_c, 0, sizeof known_c);
  int ncid, d[3], a, c, e;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | cmode, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", X, &d[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "xc", XC, &d[2]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &a));
  CHECK_OK(ncmpi_enddef(ncid));
  int row[X];
  for (int r = 0; r < NR; r++) {
    for (int i = 0; i < X; i++) row[i] = fv(1, r, i), expect_a(r, i, fv(1, r, i));
    MPI_Offset start[2] = {r, 0}, count[2] = {r % nprocs == rank, X};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, a, start, count, row));
  }
  /* redef: c, filled (its old records read as the fill value) */
  CHECK_OK(ncmpi_redef(ncid));
  int dc[2] = {d[0], d[2]};
  CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 2, dc, &c));
  CHECK_OK(ncmpi_def_var_fill(ncid, c, 0, NULL));
  CHECK_OK(ncmpi_enddef(ncid));
  for (int r = 0; r < NR; r++)
    for (int i = 0; i < XC; i++) expect_c(r, i, NC_FILL_INT);
  MPI_Offset recsize = 0;
  CHECK_OK(ncmpi_inq_recsize(ncid, &recsize));
  CHECK(recsize == (X + XC) * 4);
  check_vara(ncid, "after the first redef");
  put_a_across(ncid, recsize, NR + 2);
  put_c_indexed(ncid, recsize);
  check_vara(ncid, "after vard puts");
  struct_two_vars(ncid, recsize);
  check_vara(ncid, "after the struct vard");
  get_all_a(ncid, recsize, "before the second redef");
  /* a second redef: e, more sections */
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_var(ncid, "e", NC_INT, 1, d, &e));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_inq_recsize(ncid, &recsize));
  CHECK(recsize == (X + XC + 1) * 4);
  check_vara(ncid, "after the second redef");
  get_all_a(ncid, recsize, "after the second redef");
  put_a_across(ncid, recsize, NR + 3); /* records NR-2 .. NR+1 again, now all old */
  struct_two_vars(ncid, recsize);
  check_vara(ncid, "after vard puts past the second redef");
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_recsize(ncid, &recsize));
  check_vara(ncid, "after the reopen");
  get_all_a(ncid, recsize, "after the reopen");
  CHECK_OK(ncmpi_close(ncid));
}

#endif
