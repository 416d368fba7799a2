// Walking a variable's values in slabs along its first dimension, each rank
// its share of that dimension: the copy loops of `exacdf convert` and
// `exacdf verify`.
#pragma once

#include <pnetcdf.h>

#include <functional>
#include <vector>

namespace exa::tool {

struct VarShape {
  nc_type type = NC_NAT;
  std::vector<MPI_Offset> shape;  // the record dimension at its current length
};

/** The shape of a variable (throws NcError). */
VarShape var_shape(int ncid, int varid);

/**
 * Calls visit(start, count, values) for consecutive slabs of this rank's share
 * of the first dimension (rows [len*r/p, len*(r+1)/p)), each at most max_bytes
 * of native values, read with the independent ncmpi_get_vara (independent data
 * mode must be on). A scalar is rank 0's.
 * Returns the first NC_* error of a read or of visit.
 */
int for_each_slab(int ncid, int varid, const VarShape& vs, size_t max_bytes, int rank, int nprocs,
                  const std::function<int(const MPI_Offset* start, const MPI_Offset* count,
                                          const void* values)>& visit);

}  // namespace exa::tool
