// Reads of attribute and variable values through the typed ncmpi_get_* calls, the
// call picked from the external type so values arrive in their own C type.
#pragma once

#include <pnetcdf.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace exa::tool {

/**
 * The `len` values of attribute `name` of `varid` (NC_GLOBAL allowed) as raw memory
 * of the attribute's C type; text attributes come back as chars.  Throws NcError.
 */
std::vector<unsigned char> read_att_values(int ncid, int varid, const std::string& name,
                                           nc_type type, MPI_Offset len);

/**
 * Reads the hyperslab start/count of a variable into `buf` (values of `type`) with the
 * collective ncmpi_get_vara_<type>_all.  Returns the NC_* status.
 */
int get_vara_typed(int ncid, int varid, nc_type type, const MPI_Offset* start,
                   const MPI_Offset* count, void* buf);

/**
 * Reads a whole variable of dimension lengths `shape` (empty for a scalar) in
 * row-major order, in hyperslabs of at most `max_bytes`, calling sink(values, n)
 * for each.  Memory stays bounded whatever the variable's size.  Throws NcError.
 */
void read_var_in_chunks(int ncid, int varid, nc_type type, const std::vector<MPI_Offset>& shape,
                        std::size_t max_bytes,
                        const std::function<void(const void* values, std::size_t n)>& sink);

}  // namespace exa::tool
