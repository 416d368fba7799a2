// The typed collective get calls of the public API, chosen by nc_type.
#pragma once

#include <mpi.h>

#include "util/status.hpp"

namespace exa::query {

// ncmpi_get_vara_<type>_all into buf (values of nc_type type).
Status get_vara_all(int ncid, int varid, int type, const MPI_Offset* start, const MPI_Offset* count,
                    void* buf);
// ncmpi_get_varn_<type>_all (num may be 0). NC_ERANGE is returned as is
// (the values are read).
Status get_varn_all(int ncid, int varid, int type, int num, MPI_Offset* const* starts,
                    MPI_Offset* const* counts, void* buf);

}  // namespace exa::query
