/* HDF5 export of exacdf relations and checkpoints (docs/relations.md).
 *
 * Built as the separate library libexacdf_hdf5 when Debian's parallel HDF5
 * (hdf5-openmpi) is found, so libexacdf itself needs no HDF5; link
 * -lexacdf_hdf5 -lexacdf. The HDF5 file is written with HDF5's MPI-IO driver
 * and collective transfers, one 2-D H5T_NATIVE_UINT64 dataset per relation
 * (rows x (arity + 1): the values and the id column, as exacdf stores them),
 * contiguous, with attributes "exa_kind", "arity" (int) and "columns"
 * ("c0,c1,...,id"), so h5py / HDF5 users read the relation as it is in the
 * netCDF file.
 */
#ifndef EXACDF_HDF5_H
#define EXACDF_HDF5_H

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

/** Copies relation `name` of the open exacdf file ncid (data mode) into the
 *  HDF5 file h5path as dataset `name`: every rank of the file's communicator
 *  reads a contiguous block of rows and writes it collectively. append 0
 *  creates (truncates) h5path; append 1 adds to an existing HDF5 file.
 *  NC_ENOTVAR / NC_EINVAL as exa_relation_inq; NC_ENAMEINUSE when the HDF5
 *  file has the dataset already; NC_EHDFERR for any HDF5 failure.
 *  Collective. */
extern int exa_relation_export_hdf5(int ncid, const char *name, const char *h5path, int append);

/** Writes the current checkpoint of dir into a new HDF5 file h5path: one
 *  dataset per relation holding its restored rows (the latest full snapshot
 *  plus the later deltas, as exa_checkpoint_read returns them, ids renumbered
 *  0..n-1 in rank order), and the root attribute "iteration" (long long).
 *  NC_ENOENT when dir has no committed checkpoint. Collective on comm. */
extern int exa_checkpoint_export_hdf5(MPI_Comm comm, const char *dir, const char *h5path);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_HDF5_H */
