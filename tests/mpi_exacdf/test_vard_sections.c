/*
 * put_vard/get_vard of record variables whose records a redef left in place
 * (record sections, issue 19): the scenario of vard_records_scenario.h on a
 * partitioned file (whose redefs split the records: superblock flag 2,
 * checked in the raw bytes) and, as a check of the expectations, on a CDF-5
 * file (tests/mpi/test_vard_records.c runs it on classic files against
 * PnetCDF too); then file types reaching before record 0 or past a
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

/* Whether the current superblock (the slot of the larger generation) has
 * flag 2, record sections: read on rank 0 from the raw bytes. */
static int has_sections(const char *path) {
  int yes = 0;
  if (rank == 0) {
    unsigned char slots[1024];
    FILE *fp = fopen(path, "rb");
    if (fp && fread(slots, 1, sizeof slots, fp) == sizeof slots) {
      uint64_t gen[2] = {0, 0}, flags[2] = {0, 0};
      for (int s = 0; s < 2; s++)
        for (int k = 0; k < 8; k++) {
          gen[s] = gen[s] << 8 | slots[512 * s + 16 + k];
          if (k < 4) flags[s] = flags[s] << 8 | slots[512 * s + 12 + k];
        }
      yes = (int)(flags[slots[512] == 0x89 && gen[1] > gen[0]] & 2u) != 0;
    }
    if (fp) fclose(fp);
  }
  MPI_Bcast(&yes, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return yes;
}

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

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  scenario(mpi_test_path("vard_sections_cdf5.nc"), NC_64BIT_DATA);
  const char *split = mpi_test_path("vard_sections.nc");
  scenario(split, EXA_FORMAT_PARTITIONED);
  CHECK(has_sections(split));
  refused(split);
  partitioned_reach(mpi_test_path("vard_reach.nc"));
  return mpi_test_finish();
}
