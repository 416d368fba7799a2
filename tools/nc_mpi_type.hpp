// The MPI datatype of an external type's native C values, for the flexible
// ncmpi_get/put_vara_all calls of the tools.
#pragma once

#include <mpi.h>
#include <pnetcdf.h>

#include "mpi_check.hpp"

namespace exa::tool {

inline MPI_Datatype mpi_type_of(nc_type type) {
  switch (type) {
    case NC_CHAR: return MPI_CHAR;
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_INT: return MPI_INT;
    case NC_FLOAT: return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    case NC_UBYTE: return MPI_UNSIGNED_CHAR;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_UINT: return MPI_UNSIGNED;
    case NC_INT64: return MPI_LONG_LONG;
    case NC_UINT64: return MPI_UNSIGNED_LONG_LONG;
    default: return MPI_DATATYPE_NULL;
  }
}

inline int native_size_of(nc_type type) {
  int size = 0;
  MPI_Datatype t = mpi_type_of(type);
  if (t != MPI_DATATYPE_NULL) mpi_check(MPI_Type_size(t, &size), "MPI_Type_size");
  return size;
}

}  // namespace exa::tool
