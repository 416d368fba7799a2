/* put_vard/get_vard of more than 2 GiB in one call on one rank (MPI counts
 * are int): rank 0 moves 2 GiB + 1 MiB, the others one record's first byte.
 * (a) a CDF-5 fixed-size variable: one file view, the transfer through a
 *     1 MiB-block memory type;
 * (b) a record variable of a partitioned file whose records a redef split
 *     (10 records in closed sections): the view in batches of at most
 *     1 GiB, the file type covering the variable b the redef added too.
 * Every byte is checked by get_vard and some records by get_vara, where
 * PnetCDF's meaning puts them. PnetCDF 1.12.3 as built by Debian returns
 * NC_EINTOVERFLOW for such a vard (found by running it), so this runs against
 * exacdf only. */
#include <exacdf.h>
#include <stdint.h>

#include "mpi_test.h"

#define MIB ((MPI_Offset)1 << 20)
#define BLOCKS 2049 /* 2 GiB + 1 MiB */

static signed char f(int64_t u) { return (signed char)(u ^ (u >> 7) ^ (u >> 17) ^ (u >> 23)); }

/* rank 0: BLOCKS MiB from the variable's begin; others: byte rank * MiB */
static MPI_Datatype file_type(int rank) {
  MPI_Datatype blk, t;
  if (rank == 0) {
    MPI_Type_contiguous((int)MIB, MPI_SIGNED_CHAR, &blk);
    MPI_Type_contiguous(BLOCKS, blk, &t);
    MPI_Type_free(&blk);
  } else {
    int one = 1;
    MPI_Aint at = (MPI_Aint)(rank * MIB);
    MPI_Type_create_hindexed(1, &one, &at, MPI_SIGNED_CHAR, &t);
  }
  MPI_Type_commit(&t);
  return t;
}

/* put_vard, then get_vard of the same bytes: every byte f(its offset) */
static void round_trip(int ncid, int var, signed char *buf) {
  const int rank = mpi_test_rank;
  const MPI_Offset n = rank == 0 ? BLOCKS * MIB : 1, first = rank == 0 ? 0 : rank * MIB;
  MPI_Datatype t = file_type(rank);
  for (MPI_Offset i = 0; i < n; i++) buf[i] = f(first + i);
  CHECK_OK(ncmpi_put_vard_all(ncid, var, t, buf, n, MPI_SIGNED_CHAR));
  memset(buf, 0, (size_t)n);
  CHECK_OK(ncmpi_get_vard_all(ncid, var, t, buf, n, MPI_SIGNED_CHAR));
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < n; i++) bad += buf[i] != f(first + i);
  CHECK(bad == 0);
  MPI_Type_free(&t);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank;
  signed char *buf = malloc((size_t)(BLOCKS * MIB));
  CHECK(buf != NULL);
  if (buf) {
    /* (a) CDF-5 */
    int ncid, d[3], v, a, b;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("large_vard.nc"), NC_CLOBBER | NC_64BIT_DATA,
                          MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "n", BLOCKS * MIB, &d[0]));
    CHECK_OK(ncmpi_def_var(ncid, "v", NC_BYTE, 1, d, &v));
    CHECK_OK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
    CHECK_OK(ncmpi_enddef(ncid));
    round_trip(ncid, v, buf);
    MPI_Offset st = BLOCKS * MIB - MIB, ct = rank == 0 ? MIB : 0, bad = 0;
    CHECK_OK(ncmpi_get_vara_schar_all(ncid, v, &st, &ct, buf)); /* the last MiB by vara */
    for (MPI_Offset i = 0; i < ct; i++) bad += buf[i] != f(st + i);
    CHECK(bad == 0);
    CHECK_OK(ncmpi_close(ncid));
    if (rank == 0) remove(mpi_test_path("large_vard.nc"));

    /* (b) records split by a redef */
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("large_vard_split.nc"),
                          NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    CHECK_OK(ncmpi_def_dim(ncid, "n", MIB, &d[1]));
    CHECK_OK(ncmpi_def_var(ncid, "a", NC_BYTE, 2, d, &a));
    CHECK_OK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
    CHECK_OK(ncmpi_enddef(ncid));
    MPI_Offset rs[2] = {9, 0}, rc[2] = {rank == 0, MIB};
    CHECK_OK(ncmpi_put_vara_schar_all(ncid, a, rs, rc, buf)); /* 10 records before the redef */
    CHECK_OK(ncmpi_redef(ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "m", 4, &d[2]));
    int bd[2] = {d[0], d[2]};
    CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 2, bd, &b));
    CHECK_OK(ncmpi_enddef(ncid));
    MPI_Offset recsize = 0;
    CHECK_OK(ncmpi_inq_recsize(ncid, &recsize));
    CHECK(recsize == MIB + 4);
    round_trip(ncid, a, buf);
    bad = 0;
    for (MPI_Offset r = 5; r <= 1500; r += 1495) { /* a closed record, a current one */
      rs[0] = r;
      CHECK_OK(ncmpi_get_vara_schar_all(ncid, a, rs, rc, buf));
      for (MPI_Offset w = 0; w < rc[1] && rank == 0; w++) bad += buf[w] != f(r * recsize + w);
    }
    CHECK(bad == 0);
    CHECK_OK(ncmpi_close(ncid));
    if (rank == 0) remove(mpi_test_path("large_vard_split.nc"));
  }
  free(buf);
  return mpi_test_finish();
}
