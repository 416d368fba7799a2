/* libexacdf_hdf5 (include/exacdf_hdf5.h): exports relations of a CDF-5 file
 * and the current checkpoint of a directory to HDF5, and its errors.
 * check_export_hdf5.py then reads the HDF5 files with h5py and compares them
 * with the netCDF file read by netCDF4-python. argv[1]: scratch directory. */
#include <exacdf.h>
#include <exacdf_hdf5.h>

#include "mpi_test.h"

/* n rows of arity values: value c of row i is base + i * (c + 1). */
static unsigned long long *rows_of(MPI_Offset n, int arity, unsigned long long base) {
  unsigned long long *t = malloc(sizeof *t * (size_t)(n * arity + 1));
  for (MPI_Offset i = 0; i < n; i++)
    for (int c = 0; c < arity; c++) t[i * arity + c] = base + (unsigned long long)(i * (c + 1));
  return t;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const unsigned long long r = (unsigned long long)mpi_test_rank;
  char h5[1200], h5ck[1200], ckdir[1200];
  snprintf(h5, sizeof h5, "%s", mpi_test_path("relations.h5"));
  snprintf(h5ck, sizeof h5ck, "%s", mpi_test_path("checkpoint.h5"));
  snprintf(ckdir, sizeof ckdir, "%s", mpi_test_path("ck"));

  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("relations.nc"), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL,
                        &ncid));
  MPI_Offset ne = 5 + 3 * mpi_test_rank, nt = mpi_test_rank == 0 ? 0 : 7;  /* rank 0 holds no triple */
  unsigned long long *edge = rows_of(ne, 2, r * 1000), *triple = rows_of(nt, 3, r * 1000000 + 1);
  CHECK_OK(exa_relation_write(ncid, "edge", 2, ne, edge));
  CHECK_OK(exa_relation_write(ncid, "triple", 3, nt, triple));
  /* What the checkpoint below restores: T's full rows plus its delta rows. */
  MPI_Offset nfull = 4 + mpi_test_rank, ndelta = 2;
  unsigned long long *full = rows_of(nfull, 2, r * 100), *delta = rows_of(ndelta, 2, 50000 + r * 100);
  unsigned long long *both = malloc(sizeof *both * 2 * (size_t)(nfull + ndelta));
  memcpy(both, full, sizeof *both * 2 * (size_t)nfull);
  memcpy(both + 2 * nfull, delta, sizeof *both * 2 * (size_t)ndelta);
  CHECK_OK(exa_relation_write(ncid, "T_expected", 2, nfull + ndelta, both));

  CHECK_OK(exa_relation_export_hdf5(ncid, "edge", h5, 0));
  CHECK_OK(exa_relation_export_hdf5(ncid, "triple", h5, 1));
  CHECK_ERR(exa_relation_export_hdf5(ncid, "edge", h5, 1), NC_ENAMEINUSE);
  CHECK_ERR(exa_relation_export_hdf5(ncid, "nothing", h5, 1), NC_ENOTVAR);
  CHECK_ERR(exa_relation_export_hdf5(ncid, "edge", h5, 2), NC_EINVAL);
  CHECK_ERR(exa_relation_export_hdf5(ncid + 1000, "edge", h5, 0), NC_EBADID);
  CHECK_ERR(exa_relation_export_hdf5(ncid, "edge", mpi_test_path("no/such/dir/x.h5"), 0), NC_EHDFERR);
  CHECK_ERR(exa_relation_export_hdf5(ncid, "edge", mpi_test_path("missing.h5"), 1), NC_EHDFERR);
  CHECK_OK(ncmpi_close(ncid));

  int ckid;
  CHECK_ERR(exa_checkpoint_export_hdf5(MPI_COMM_WORLD, ckdir, h5ck), NC_ENOENT);
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, ckdir, 2, &ckid));
  CHECK_OK(exa_checkpoint_write(ckid, "T", EXA_CHECKPOINT_FULL, 2, nfull, full));
  CHECK_OK(exa_checkpoint_write(ckid, "E", EXA_CHECKPOINT_FULL, 2, ne, edge));
  CHECK_OK(exa_checkpoint_commit(ckid));
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, ckdir, 4, &ckid));
  CHECK_OK(exa_checkpoint_write(ckid, "T", EXA_CHECKPOINT_DELTA, 2, ndelta, delta));
  CHECK_OK(exa_checkpoint_commit(ckid));
  CHECK_OK(exa_checkpoint_export_hdf5(MPI_COMM_WORLD, ckdir, h5ck));

  free(edge), free(triple), free(full), free(delta), free(both);
  return mpi_test_finish();
}
