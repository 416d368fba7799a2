/*
 * put_vard/get_vard of record variables whose records a redef left in place
 * (record sections, issue 19): the scenario of vard_records_scenario.h on a
 * partitioned file (whose redefs split the records: superblock flag 2,
 * checked in the raw bytes) and, as a check of the expectations, on a CDF-5
 * file (tests/mpi/test_vard_records.c runs it on classic files against
 * PnetCDF too); vector, (h)indexed_block, resized, dup, Fortran-order
 * subarray, darray and hvector-of-struct file types compared between the
 * CDF-5 file and the split one; then file types reaching before record 0 or past a
 * fixed-size variable's bytes (a partitioned file's metadata lies
 * around its data). exacdf only.
 */
#include <exacdf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mpi_test.h"

static int rank, nprocs;

#include "vard_records_scenario.h"
#include "superblock_probe.h"

/* A file type reaching before record 0: NC_EINVALCOORDS (bytes no section
 * holds: tests/unit/test_record_runs.cpp). */
static void refused(const char *path) {
  int ncid, a;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &a));
  MPI_Datatype before;
  int one = 1;
  MPI_Aint minus4 = -4;
  MPI_Type_create_hindexed(1, &one, &minus4, MPI_INT, &before);
  before = commit(before);
  int v = 1;
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_ERR(ncmpi_put_vard(ncid, a, before, &v, 1, MPI_INT), NC_EINVALCOORDS);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  /* a collective call with the error on one rank still completes on every rank */
  CHECK_ERR(ncmpi_get_vard_all(ncid, a, before, &v, rank == 0 ? 1 : 0, MPI_INT),
            rank == 0 ? NC_EINVALCOORDS : NC_NOERR);
  MPI_Type_free(&before);
  CHECK_OK(ncmpi_close(ncid));
}

/* A partitioned file without sections keeps metadata around its data: a
 * vard file type of a fixed-size variable reaching past its bytes, or of a
 * record variable before its records, is NC_EINVALCOORDS and writes
 * nothing; the variable's own bytes still work. */
static void partitioned_reach(const char *path) {
  int ncid, d[2], fx, r;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 4, &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_INT, 2, d, &r));
  CHECK_OK(ncmpi_def_var(ncid, "fx", NC_INT, 1, &d[1], &fx));
  CHECK_OK(ncmpi_enddef(ncid));
  int one = 1, vals[5] = {1, 2, 3, 4, 5}, got[5] = {0};
  MPI_Aint minus4 = -4;
  MPI_Datatype five, before;
  MPI_Type_contiguous(5, MPI_INT, &five);
  five = commit(five);
  MPI_Type_create_hindexed(1, &one, &minus4, MPI_INT, &before);
  before = commit(before);
  CHECK_ERR(ncmpi_put_vard_all(ncid, fx, five, vals, 1, five), NC_EINVALCOORDS);
  CHECK_ERR(ncmpi_put_vard_all(ncid, r, before, vals, 1, MPI_INT), NC_EINVALCOORDS);
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, d[0], &nrec));
  CHECK(nrec == 0);
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_INT, &four);
  four = commit(four);
  CHECK_OK(ncmpi_put_vard_all(ncid, fx, four, vals, 1, four));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_get_var_int_all(ncid, fx, got));
  CHECK(got[0] == 1 && got[3] == 4);
  CHECK_OK(ncmpi_close(ncid));
  MPI_Type_free(&five);
  MPI_Type_free(&before);
  MPI_Type_free(&four);
}

/* More file type constructors, each put and got through vard on the CDF-5
 * file (a plain MPI-IO view: MPI's own reading of the type) and on the
 * split one, the same values: what each reads, and then every value of a
 * and c, must be the same in both. Records 0-6 (where a and c hold known
 * values), a's ints 0-5 and c's 6-9 of 11 per record. */
#define TYPES 9
static MPI_Datatype make_type(int k) {
  const int rs = X + XC + 1, nr = NR + 2;
  MPI_Datatype t, u;
  int bl[2] = {1, 1}, i;
  MPI_Aint d[MAXREC];
  int di[MAXREC];
  switch (k) {
    case 0: MPI_Type_vector(nr, 3, rs, MPI_INT, &t); break;
    case 1:
      for (i = 0; i < nr; i++) d[i] = (MPI_Aint)(i * rs + 2) * 4;
      MPI_Type_create_hindexed_block(nr, 2, d, MPI_INT, &t);
      break;
    case 2:
      for (i = 0; i < (nr + 1) / 2; i++) di[i] = 2 * i * rs + X;
      MPI_Type_create_indexed_block((nr + 1) / 2, XC, di, MPI_INT, &t);
      break;
    case 3:
    case 4:
      MPI_Type_contiguous(X, MPI_INT, &u);
      MPI_Type_create_resized(u, 0, rs * 4, &t);
      MPI_Type_free(&u);
      MPI_Type_contiguous(nr, t, &u);
      MPI_Type_free(&t);
      if (k == 4) {
        MPI_Type_dup(u, &t);
        MPI_Type_free(&u);
      } else {
        t = u;
      }
      break;
    case 5: {
      int sizes[2] = {rs, nr}, subs[2] = {XC, nr}, starts[2] = {X, 0};
      MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
      break;
    }
    case 6: {
      int g[2] = {nr, rs}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
          darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
      MPI_Type_create_darray(4, (rank % 2) * 2, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
      break;
    }
    case 7: {
      int g[2] = {rs, nr}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2},
          ps[2] = {2, 2};
      MPI_Type_create_darray(4, rank % 2, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
      break;
    }
    default: {
      MPI_Datatype pair, types[2];
      MPI_Type_contiguous(2, MPI_INT, &pair);
      types[0] = MPI_INT, types[1] = pair;
      d[0] = 0, d[1] = (X + 1) * 4;
      MPI_Type_create_struct(2, bl, d, types, &u);
      MPI_Type_free(&pair);
      MPI_Type_create_hvector(nr, 1, rs * 4, u, &t);
      MPI_Type_free(&u);
      break;
    }
  }
  return commit(t);
}

static void compare_types(const char *classic, const char *split) {
  int f[2], a[2], c[2];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, classic, NC_WRITE, MPI_INFO_NULL, &f[0]));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, split, NC_WRITE, MPI_INFO_NULL, &f[1]));
  for (int j = 0; j < 2; j++) {
    MPI_Offset recsize = 0;
    CHECK_OK(ncmpi_inq_recsize(f[j], &recsize));
    CHECK(recsize == (X + XC + 1) * 4);
    CHECK_OK(ncmpi_inq_varid(f[j], "a", &a[j]));
    CHECK_OK(ncmpi_inq_varid(f[j], "c", &c[j]));
  }
  static int vals[MAXREC * (X + XC + 1)], got[2][MAXREC * (X + XC + 1)];
  for (int k = 0; k < TYPES; k++) {
    MPI_Datatype t = make_type(k);
    int size = 0;
    MPI_Type_size(t, &size);
    const int n = size / 4;
    for (int i = 0; i < n; i++) vals[i] = 900000 + 1000 * k + i;
    for (int j = 0; j < 2; j++) {
      /* ranks of the same darray piece write the same values */
      CHECK_OK(ncmpi_put_vard_all(f[j], a[j], t, vals, k >= 6 || rank == 0 ? n : 0, MPI_INT));
      memset(got[j], 0, sizeof got[j]);
      CHECK_OK(ncmpi_get_vard_all(f[j], a[j], t, got[j], n, MPI_INT));
    }
    if (memcmp(got[0], got[1], (size_t)n * sizeof(int)) != 0 || memcmp(got[0], vals, (size_t)n * sizeof(int)) != 0) {
      printf("[rank %d] file type %d: vard differs between the classic and the split file\n", rank, k);
      CHECK(0);
    }
    MPI_Type_free(&t);
  }
  for (int v = 0; v < 2; v++) {
    MPI_Offset start[2] = {0, 0}, count[2] = {NR + 2, v ? XC : X};
    for (int j = 0; j < 2; j++) CHECK_OK(ncmpi_get_vara_int_all(f[j], v ? c[j] : a[j], start, count, got[j]));
    CHECK(memcmp(got[0], got[1], (size_t)((NR + 2) * count[1]) * sizeof(int)) == 0);
  }
  CHECK_OK(ncmpi_close(f[0]));
  CHECK_OK(ncmpi_close(f[1]));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  char classic[1200];
  snprintf(classic, sizeof classic, "%s", mpi_test_path("vard_sections_cdf5.nc"));
  scenario(classic, NC_64BIT_DATA);
  const char *split = mpi_test_path("vard_sections.nc");
  scenario(split, EXA_FORMAT_PARTITIONED);
  CHECK(superblock_flag_set(split, 2u));
  compare_types(classic, split);
  refused(split);
  partitioned_reach(mpi_test_path("vard_reach.nc"));
  return mpi_test_finish();
}
