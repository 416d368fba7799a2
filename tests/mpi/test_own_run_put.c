/* Collective puts whose every rank's piece is one contiguous run of the file
 * (FLASH-IO's blocks: each rank owns base + rank%3 consecutive blocks of
 * [blocks, nzb, nyb, nxb]), written once through the usual MPI-IO path
 * (exa_direct_put=disable) and once with the defaults (exacdf: every rank
 * writes its own run, no collective MPI-IO call). The two files must be
 * byte-identical, every value must read back and the checkpoint variable's
 * bytes must be its big-endian encoding. Also: a double converted to float,
 * bytes written as they are, small tree variables, a bad start on the last
 * rank (NC_EINVALCOORDS there only; the others' runs land, and a second put
 * where only that rank writes), the only record variable (numrecs agreed),
 * and overlapping pieces (the usual path). Against PnetCDF the hint is
 * ignored and the same checks hold. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define NB 8                 /* cells per block edge */
#define CELLS (NB * NB * NB) /* per block */
#define BASE 100             /* blocks per rank before + rank%3 */
#define OVL 1000             /* ints per rank of the overlapping variable */

static MPI_Offset first_block(int r) {
  MPI_Offset f = 0;
  for (int q = 0; q < r; ++q) f += BASE + q % 3;
  return f;
}
static MPI_Offset total_blocks(void) { return first_block(mpi_test_nprocs); }

/* The value of cell c of block b of variable v. */
static double value(int v, MPI_Offset b, MPI_Offset c) { return v * 1e7 + b * CELLS + c + 0.25; }

static void write_file(const char *path, const char *mode) {
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs, last = rank == nprocs - 1;
  MPI_Info info;
  MPI_Info_create(&info);
  if (mode) MPI_Info_set(info, "exa_direct_put", mode);
  int ncid, d[6], dens, temp, flag, lref, bbox, pres, rec, ovl;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_OFFSET, info, &ncid));
  MPI_Info_free(&info);
  const MPI_Offset tot = total_blocks();
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "blocks", tot, &d[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "nzb", NB, &d[2]));
  CHECK_OK(ncmpi_def_dim(ncid, "nyb", NB, &d[3]));
  CHECK_OK(ncmpi_def_dim(ncid, "nxb", NB, &d[4]));
  CHECK_OK(ncmpi_def_dim(ncid, "six", 6, &d[5]));
  int ovl_dim, cells_dim;
  CHECK_OK(ncmpi_def_dim(ncid, "ovl", (MPI_Offset)OVL * (nprocs + 1), &ovl_dim));
  CHECK_OK(ncmpi_def_dim(ncid, "cells", tot * CELLS, &cells_dim));
  CHECK_OK(ncmpi_def_var(ncid, "lref", NC_INT, 1, &d[1], &lref));
  int d2[2] = {d[1], d[5]};
  CHECK_OK(ncmpi_def_var(ncid, "bbox", NC_DOUBLE, 2, d2, &bbox));
  CHECK_OK(ncmpi_def_var(ncid, "dens", NC_DOUBLE, 4, &d[1], &dens));
  CHECK_OK(ncmpi_def_var(ncid, "temp", NC_FLOAT, 4, &d[1], &temp));
  CHECK_OK(ncmpi_def_var(ncid, "flag", NC_BYTE, 4, &d[1], &flag));
  CHECK_OK(ncmpi_def_var(ncid, "pres", NC_DOUBLE, 4, &d[1], &pres));
  CHECK_OK(ncmpi_def_var(ncid, "ovl", NC_INT, 1, &ovl_dim, &ovl));
  int dr[2] = {d[0], cells_dim};
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_FLOAT, 2, dr, &rec));
  CHECK_OK(ncmpi_enddef(ncid));

  const MPI_Offset nb = BASE + rank % 3, fb = first_block(rank), n = nb * CELLS;
  double *dv = malloc(sizeof(double) * n);
  signed char *bv = malloc(n);
  int *iv = malloc(sizeof(int) * (2 * OVL > nb ? 2 * OVL : nb));
  double *box = malloc(sizeof(double) * nb * 6);
  for (MPI_Offset b = 0; b < nb; ++b) {
    iv[b] = (int)(fb + b) % 5;
    for (int k = 0; k < 6; ++k) box[b * 6 + k] = value(9, fb + b, k);
  }
  MPI_Offset s1 = fb, c1 = nb, s2[2] = {fb, 0}, c2[2] = {nb, 6};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, lref, &s1, &c1, iv));
  CHECK_OK(ncmpi_put_vara_double_all(ncid, bbox, s2, c2, box));
  MPI_Offset s4[4] = {fb, 0, 0, 0}, c4[4] = {nb, NB, NB, NB};
  for (MPI_Offset i = 0; i < n; ++i) dv[i] = value(0, fb + i / CELLS, i % CELLS);
  CHECK_OK(ncmpi_put_vara_double_all(ncid, dens, s4, c4, dv));
  for (MPI_Offset i = 0; i < n; ++i) dv[i] = value(1, fb + i / CELLS, i % CELLS);
  CHECK_OK(ncmpi_put_vara_double_all(ncid, temp, s4, c4, dv)); /* to float */
  for (MPI_Offset i = 0; i < n; ++i) bv[i] = (signed char)((fb * CELLS + i) % 251 - 125);
  CHECK_OK(ncmpi_put_vara_schar_all(ncid, flag, s4, c4, bv));

  /* A bad start on the last rank (of several): its error alone, the others'
   * runs land; then it writes its run alone in a collective put. */
  for (MPI_Offset i = 0; i < n; ++i) dv[i] = value(2, fb + i / CELLS, i % CELLS);
  MPI_Offset bad[4] = {tot + 1, 0, 0, 0};
  const int wrong = last && nprocs > 1;
  CHECK_ERR(ncmpi_put_vara_double_all(ncid, pres, wrong ? bad : s4, c4, dv), wrong ? NC_EINVALCOORDS : NC_NOERR);
  MPI_Offset none[4] = {0, 0, 0, 0};
  CHECK_OK(ncmpi_put_vara_double_all(ncid, pres, s4, wrong ? c4 : none, dv));

  /* The only record variable: each rank's part of a record is one run. */
  float *fv = malloc(sizeof(float) * n);
  for (MPI_Offset t = 0; t < 2; ++t) {
    for (MPI_Offset i = 0; i < n; ++i) fv[i] = (float)value(3 + (int)t, fb + i / CELLS, i % CELLS);
    MPI_Offset sr[2] = {t, fb * CELLS}, cr[2] = {1, n};
    CHECK_OK(ncmpi_put_vara_float_all(ncid, rec, sr, cr, fv));
  }
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, d[0], &nrec));
  CHECK(nrec == 2);

  /* Overlapping pieces (the same values where they overlap). */
  MPI_Offset so = (MPI_Offset)OVL * rank, co = 2 * OVL;
  for (MPI_Offset i = 0; i < co; ++i) iv[i] = (int)(so + i) * 3;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, ovl, &so, &co, iv));
  CHECK_OK(ncmpi_close(ncid));
  free(dv);
  free(bv);
  free(iv);
  free(box);
  free(fv);
}

static void check_file(const char *path) {
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  int ncid, v;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  /* Every rank reads the next rank's blocks (another rank's writes). */
  const int other = (rank + 1) % nprocs;
  const MPI_Offset nb = BASE + other % 3, fb = first_block(other), n = nb * CELLS;
  double *dv = malloc(sizeof(double) * n);
  MPI_Offset s4[4] = {fb, 0, 0, 0}, c4[4] = {nb, NB, NB, NB};
  const char *names[3] = {"dens", "temp", "pres"};
  const int which[3] = {0, 1, 2};
  for (int k = 0; k < 3; ++k) {
    CHECK_OK(ncmpi_inq_varid(ncid, names[k], &v));
    CHECK_OK(ncmpi_get_vara_double_all(ncid, v, s4, c4, dv));
    MPI_Offset wrong = 0;
    for (MPI_Offset i = 0; i < n; ++i) {
      const double want = value(which[k], fb + i / CELLS, i % CELLS);
      wrong += k == 1 ? dv[i] != (double)(float)want : dv[i] != want;
    }
    if (wrong) fprintf(stderr, "[rank %d] %s: %lld wrong values\n", rank, names[k], (long long)wrong);
    CHECK(wrong == 0);
  }
  signed char *bv = malloc(n);
  CHECK_OK(ncmpi_inq_varid(ncid, "flag", &v));
  CHECK_OK(ncmpi_get_vara_schar_all(ncid, v, s4, c4, bv));
  MPI_Offset wrong = 0;
  for (MPI_Offset i = 0; i < n; ++i) wrong += bv[i] != (signed char)((fb * CELLS + i) % 251 - 125);
  CHECK(wrong == 0);
  float *fv = malloc(sizeof(float) * n);
  CHECK_OK(ncmpi_inq_varid(ncid, "rec", &v));
  for (MPI_Offset t = 0; t < 2; ++t) {
    MPI_Offset sr[2] = {t, fb * CELLS}, cr[2] = {1, n};
    CHECK_OK(ncmpi_get_vara_float_all(ncid, v, sr, cr, fv));
    wrong = 0;
    for (MPI_Offset i = 0; i < n; ++i) wrong += fv[i] != (float)value(3 + (int)t, fb + i / CELLS, i % CELLS);
    CHECK(wrong == 0);
  }
  int *iv = malloc(sizeof(int) * (OVL * (nprocs + 1) > nb ? OVL * (nprocs + 1) : nb));
  CHECK_OK(ncmpi_inq_varid(ncid, "ovl", &v));
  CHECK_OK(ncmpi_get_var_int_all(ncid, v, iv));
  wrong = 0;
  for (MPI_Offset i = 0; i < (MPI_Offset)OVL * (nprocs + 1); ++i) wrong += iv[i] != (int)i * 3;
  CHECK(wrong == 0);
  CHECK_OK(ncmpi_inq_varid(ncid, "lref", &v));
  MPI_Offset s1 = fb, c1 = nb;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, v, &s1, &c1, iv));
  wrong = 0;
  for (MPI_Offset b = 0; b < nb; ++b) wrong += iv[b] != (int)(fb + b) % 5;
  CHECK(wrong == 0);
  CHECK_OK(ncmpi_close(ncid));
  free(dv);
  free(bv);
  free(fv);
  free(iv);
}

/* The whole file's bytes (rank 0), *size set. */
static unsigned char *slurp(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = malloc(*size > 0 ? *size : 1);
  CHECK(fread(bytes, 1, *size, f) == (size_t)*size);
  fclose(f);
  return bytes;
}

/* dens's bytes in the file (rank 0) against the big-endian encoding of its values. */
static void check_bytes(const char *path) {
  int ncid, v;
  MPI_Offset offset = 0;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "dens", &v));
  CHECK_OK(ncmpi_inq_varoffset(ncid, v, &offset));
  CHECK_OK(ncmpi_close(ncid));
  if (mpi_test_rank != 0) return;
  long size = 0;
  unsigned char *bytes = slurp(path, &size);
  if (!bytes) return;
  const uint16_t probe = 1;
  const int little = *(const unsigned char *)&probe == 1;
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < total_blocks() * CELLS; ++i) {
    const double x = value(0, i / CELLS, i % CELLS);
    unsigned char raw[8], enc[8];
    memcpy(raw, &x, 8);
    for (int k = 0; k < 8; ++k) enc[k] = little ? raw[7 - k] : raw[k];
    const long at = (long)(offset + i * 8);
    bad += at + 8 > size || memcmp(bytes + at, enc, 8) != 0;
  }
  if (bad) fprintf(stderr, "dens: %lld values with wrong bytes in %s\n", (long long)bad, path);
  CHECK(bad == 0);
  free(bytes);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char paths[2][1200];
  const char *modes[2] = {"disable", NULL};
  const char *files[2] = {"own_run_disable.nc", "own_run_auto.nc"};
  for (int m = 0; m < 2; ++m) {
    snprintf(paths[m], sizeof paths[m], "%s", mpi_test_path(files[m]));
    write_file(paths[m], modes[m]);
    check_file(paths[m]);
    check_bytes(paths[m]);
  }
  if (mpi_test_rank == 0) {
    long size[2] = {0, 0};
    unsigned char *bytes[2];
    for (int m = 0; m < 2; ++m) bytes[m] = slurp(paths[m], &size[m]);
    CHECK(size[1] == size[0]);
    if (bytes[0] && bytes[1] && size[1] == size[0]) CHECK(memcmp(bytes[0], bytes[1], size[0]) == 0);
    for (int m = 0; m < 2; ++m) free(bytes[m]);
  }
  return mpi_test_finish();
}
