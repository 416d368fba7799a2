/*
 * put_vard/get_vard of record variables in classic files (CDF-2, CDF-5):
 * the scenario of vard_records_scenario.h -- file types over the records'
 * layout (ncmpi_inq_varoffset + r * ncmpi_inq_recsize) of every kind,
 * records across redefs, numrecs growth, two variables in one file type.
 * Run against exacdf and PnetCDF (oracle); tests/mpi_exacdf/
 * test_vard_sections.c runs the same on the partitioned format.
 */
#include <pnetcdf.h>
#include <stdio.h>
#include <string.h>

#include "mpi_test.h"

static int rank, nprocs;

#include "vard_records_scenario.h"

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  scenario(mpi_test_path("vard_records_cdf2.nc"), NC_64BIT_OFFSET);
  scenario(mpi_test_path("vard_records_cdf5.nc"), NC_64BIT_DATA);
  return mpi_test_finish();
}
